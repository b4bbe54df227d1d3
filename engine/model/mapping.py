"""The character mapping P(lost letter | known IPA unit), built on IPA feature embeddings.

E_K(k) = emb_norm * normalise(dropout(concat_g F_g[feature_g(k)]))     (7 groups; 8 with feature_modifiers)
E_L(l) = sum_k W[l, k] E_K(k)                                           (W unconstrained)
P(l | k) = softmax_l(E_K(k) . E_L(l) / T)                                (l includes <DEL>)

Index 0 on both sides is the deletion pseudo-character, so deletion competes with real letters
inside the same softmax (as in the authors' code).
"""

from __future__ import annotations

import torch
from torch import nn

from engine.config import Config
from engine.model.phonology import DELETE, GROUP_SIZES, MODIFIERS, unit_features, unit_modifier


def group_sizes(config: Config) -> tuple[int, ...]:
    """The sizes of the feature groups a run embeds: the paper's 7, and with setting feature_modifiers
    an 8th, the unit's first diacritic (engine.model.phonology.MODIFIERS)."""
    return (*GROUP_SIZES, len(MODIFIERS)) if config.feature_modifiers else GROUP_SIZES


def feature_rows(units, config: Config) -> list[tuple[int, ...]]:
    """Each unit's feature indices, one per group of ``group_sizes(config)``."""
    if config.feature_modifiers:
        return [(*unit_features(u).indices(), unit_modifier(u)) for u in units]
    return [unit_features(u).indices() for u in units]


def add_feature_embeddings(module: nn.Module, units, config: Config) -> None:
    """Register E_K's parameters on ``module``: the feature groups' embeddings (``feature_emb``) and
    each of ``units``' feature indices, or (ablation "-IPA") a free vector per unit (``unit_emb``)."""
    d, a = config.feature_dim, config.init_interval
    sizes = group_sizes(config)
    module.register_buffer("features", torch.tensor(feature_rows(units, config), dtype=torch.long))  # (K, G)
    offsets = torch.tensor([0, *torch.tensor(sizes).cumsum(0)[:-1].tolist()])
    module.register_buffer("feature_offsets", offsets)                                              # (G,)
    if config.use_ipa_features:
        module.feature_emb = nn.Parameter(torch.empty(sum(sizes), d).uniform_(-a, a))
        module.unit_emb = None
    else:
        module.feature_emb = None
        module.unit_emb = nn.Parameter(torch.empty(len(units), len(sizes) * d).uniform_(-a, a))


def raw_known_embeddings(module: nn.Module) -> torch.Tensor:
    """(K, G·d) the concatenated feature embeddings (or free vectors) of every known unit."""
    if module.feature_emb is not None:
        rows = module.feature_emb[module.features + module.feature_offsets]   # (K, G, d)
        return rows.reshape(rows.shape[0], -1)
    return module.unit_emb


def finish_known_embeddings(e: torch.Tensor, config: Config, dropout: bool) -> torch.Tensor:
    """Dropout (training), then each unit's vector scaled to emb_norm."""
    if dropout and config.dropout > 0:
        e = nn.functional.dropout(e, p=config.dropout, training=True)
    return config.emb_norm * nn.functional.normalize(e, dim=1, eps=1e-12)


def resolve_vowel_weight(setting: float, vowel_letters, known_units) -> float:
    """The setting vowel_weight as Omega_loss uses it: itself, or for 0 the lost vowel letters
    (``vowel_letters``: engine.model.letter_classes.class_evidence, None where classes say nothing)
    over the known vowel units, at most 1."""
    if setting > 0:
        return float(setting)
    from engine.model.syllables import is_vowel

    vowels = sum(1 for u in known_units if is_vowel(u))
    if not vowel_letters or not vowels:
        return 1.0
    return min(1.0, len(vowel_letters) / vowels)


class CharMapping(nn.Module):
    def __init__(self, lost_letters: list[str], known_units: list[str], config: Config,
                 vowel_letters: list[str] | None = None):
        """``vowel_letters``: the lost letters that pattern as vowels (settings class_init and
        vowel_weight 0), None where letter classes say nothing."""
        super().__init__()
        if lost_letters[0] != DELETE or known_units[0] != DELETE:
            raise ValueError("index 0 of both alphabets must be the deletion pseudo-character")
        self.lost_letters = list(lost_letters)
        self.known_units = list(known_units)
        self.config = config
        a = config.init_interval
        add_feature_embeddings(self, known_units, config)
        self.aligner = nn.Parameter(torch.empty(len(lost_letters), len(known_units)).uniform_(-a, a))
        if vowel_letters is not None and config.class_init > 0:
            self.lean_to_classes(set(vowel_letters), config.class_init)
        #: the weight Omega_loss gives known vowels' rows (setting vowel_weight; 0 resolved here)
        self.vowel_weight = resolve_vowel_weight(config.vowel_weight, vowel_letters, known_units)

    def lean_to_classes(self, vowel_letters: set[str], weight: float) -> None:
        """Add ``weight`` to each lost letter's aligner weights on the known units of its class:
        vowels for the letters in ``vowel_letters``, consonants for the others (setting class_init)."""
        from engine.model.syllables import is_vowel

        vowel_unit = torch.tensor([is_vowel(u) for u in self.known_units])
        consonant_unit = torch.tensor([u != DELETE and not is_vowel(u) for u in self.known_units])
        with torch.no_grad():
            for i, letter in enumerate(self.lost_letters[1:], start=1):
                self.aligner[i] += weight * (vowel_unit if letter in vowel_letters else consonant_unit)

    @property
    def n_lost(self) -> int:
        return len(self.lost_letters)

    def known_embeddings(self, dropout: bool) -> torch.Tensor:
        return finish_known_embeddings(raw_known_embeddings(self), self.config, dropout)

    def log_probs(self, dropout: bool = False) -> torch.Tensor:
        """(K, C) log P(lost letter | known unit)."""
        e_k = self.known_embeddings(dropout)
        e_l = self.aligner @ e_k
        return torch.log_softmax(e_k @ e_l.T / self.config.temperature, dim=1)

    def sound_loss(self, probs: torch.Tensor) -> torch.Tensor:
        """Omega_loss: each lost letter should receive a total mass of about one known unit (each
        known vowel's row counted vowel_weight times, as in the authors' get_alignment)."""
        if self.vowel_weight != 1.0:
            from engine.model.syllables import is_vowel

            w = torch.tensor([self.vowel_weight if is_vowel(u) else 1.0 for u in self.known_units],
                             dtype=probs.dtype, device=probs.device)
            probs = probs * w.unsqueeze(1)
        return ((probs.sum(dim=0) - 1.0) ** 2).sum()
