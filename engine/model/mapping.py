"""The character mapping P(lost letter | known IPA unit), built on IPA feature embeddings.

E_K(k) = emb_norm * normalise(dropout(concat_g F_g[feature_g(k)]))     (7 groups)
E_L(l) = sum_k W[l, k] E_K(k)                                           (W unconstrained)
P(l | k) = softmax_l(E_K(k) . E_L(l) / T)                                (l includes <DEL>)

Index 0 on both sides is the deletion pseudo-character, so deletion competes with real letters
inside the same softmax (as in the authors' code).
"""

from __future__ import annotations

import torch
from torch import nn

from engine.config import Config
from engine.model.phonology import DELETE, GROUP_SIZES, unit_features


class CharMapping(nn.Module):
    def __init__(self, lost_letters: list[str], known_units: list[str], config: Config):
        super().__init__()
        if lost_letters[0] != DELETE or known_units[0] != DELETE:
            raise ValueError("index 0 of both alphabets must be the deletion pseudo-character")
        self.lost_letters = list(lost_letters)
        self.known_units = list(known_units)
        self.config = config
        d, a = config.feature_dim, config.init_interval
        feats = torch.tensor([unit_features(u).indices() for u in known_units], dtype=torch.long)
        self.register_buffer("features", feats)                      # (K, 7)
        offsets = torch.tensor([0, *torch.tensor(GROUP_SIZES).cumsum(0)[:-1].tolist()])
        self.register_buffer("feature_offsets", offsets)             # (7,)
        if config.use_ipa_features:
            self.feature_emb = nn.Parameter(torch.empty(sum(GROUP_SIZES), d).uniform_(-a, a))
            self.unit_emb = None
        else:
            self.feature_emb = None
            self.unit_emb = nn.Parameter(torch.empty(len(known_units), 7 * d).uniform_(-a, a))
        self.aligner = nn.Parameter(torch.empty(len(lost_letters), len(known_units)).uniform_(-a, a))

    @property
    def n_lost(self) -> int:
        return len(self.lost_letters)

    def known_embeddings(self, dropout: bool) -> torch.Tensor:
        if self.feature_emb is not None:
            rows = self.feature_emb[self.features + self.feature_offsets]   # (K, 7, d)
            e = rows.reshape(rows.shape[0], -1)
        else:
            e = self.unit_emb
        if dropout and self.config.dropout > 0:
            e = nn.functional.dropout(e, p=self.config.dropout, training=True)
        return self.config.emb_norm * nn.functional.normalize(e, dim=1, eps=1e-12)

    def log_probs(self, dropout: bool = False) -> torch.Tensor:
        """(K, C) log P(lost letter | known unit)."""
        e_k = self.known_embeddings(dropout)
        e_l = self.aligner @ e_k
        return torch.log_softmax(e_k @ e_l.T / self.config.temperature, dim=1)

    def sound_loss(self, probs: torch.Tensor) -> torch.Tensor:
        """Omega_loss: each lost letter should receive a total mass of about one known unit."""
        return ((probs.sum(dim=0) - 1.0) ** 2).sum()
