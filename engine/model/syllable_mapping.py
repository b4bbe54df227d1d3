"""The syllable model (setting ``signs = syllables``): each lost sign has an onset (a consonant of
the known language, no onset, or a vowel read as a glide) and a vowel, learned through the same IPA
feature embeddings as the paper's letter mapping (engine/model/mapping.py):

    E_K(u)           the known-unit embedding of engine/model/mapping.py (7 feature groups, or 8); the null
                     onset (engine/model/syllables.py) has a free embedding of its own
    e_on(l)  = sum_c W_on[l, c] E_K(c)      over the onsets, l in <DEL> + signs
    e_vo(s)  = sum_v W_vo[s, v] E_K(v)      over the vowels
    P(sign l | onset c) = softmax_l(E_K(c) . e_on(l) / T)      the paper's P(lost | known), <DEL> included
    P(vowel v | sign s) = softmax_v(E_K(v) . e_vo(s) / T)

With setting sign_offsets each of these scores also gets a free offset b / T (b from 0, learned; Omega_loss pays
the setting's weight times sum b^2): units whose features are all alike (k, kʰ, kʷ) are one embedding, and only
an offset lets a sign read the rarer of them.

Signs that share a consonant learn onset vectors near that consonant's embedding, so the grid's rows
and columns come out of training (nothing says which signs share anything). What a sign is worth is
pinned as P(sound | sign), the onset scores normalised over the onsets, and reported (the sign grid) the
same way, or with vowel_slot = joint as the posterior of the stems' syllables given the sign
(:meth:`SyllableMapping.sound_probs`).

For the edit DP (unchanged: engine/model/alignment.py and its compiled forms) a sign is two slots,
onset then vowel, and :meth:`SyllableMapping.log_probs` gives the DP's table over those slots,
(K, 2C + 1):

- column 0 (deletion): log P(<DEL> | c) for consonants and the null onset; VOWEL_DELETE_LOG_P for vowels;
- onset slot of sign l: log P(l | c) for a consonant or the null onset (written before every
  onsetless vowel of a stem), the same plus GLIDE_LOG_P for a vowel;
- vowel slot of s: log P(v | s) - log q(v) for a vowel v (q: the vowels' share in the stems, so that
  a sign costs what an unmatched sign costs at the start); log echo_vowel_p (a setting, 0.1 unless set) for a
  consonant (a written vowel with no sound in the stem, reached through the DP's insertion: one consonant
  emits both slots, paying the share coda_insertion of gamma);
- the null onset in a vowel slot: IMPOSSIBLE_LOG_P.

With vowel_slot = joint the stems' (onset c, vowel v) pairs are extra rows of that table
(``Prepared.vowel_pairs``; a stem's onset that a vowel follows reads its pair's row): the onset slot holds
log P(s | c, v) = log P(s | c) + log P(v | s) - log P(v | c), normalised over the signs for each pair,
the vowel slot log(number of vowels) for every vowel alike (:meth:`SyllableMapping._pair_rows`).

docs/deviations-from-paper.md ("Syllabic scripts") gives the reasons, with what failed otherwise.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from engine.config import Config
from engine.model.mapping import add_feature_embeddings, finish_known_embeddings, group_sizes, raw_known_embeddings
from engine.model.phonology import DELETE
from engine.model.syllables import NULL_ONSET, SLOTS, is_vowel
from engine.results import SyllableTable

ECHO_LOG_P = math.log(0.1)
"""log-probability that a sign's written vowel stands for no vowel of the stem (an echo vowel): the
setting echo_vowel_p's default, log 0.1."""
GLIDE_LOG_P = math.log(0.05)
"""log-prior of a vowel of the stem standing in a sign's onset slot (a glide), added to its learned P(sign | vowel)."""
VOWEL_DELETE_LOG_P = math.log(0.05)
"""log-probability that a vowel of the stem is not written (the second part of a diphthong)."""
ONSET_DELETE_LOG_P = math.log(0.05)
"""With vowel_slot = joint: log-probability that the consonant a vowel follows, its sign's onset, is not written."""
CODA_DELETE_LOG_P = math.log(0.5)
"""With vowel_slot = joint: log-probability that a consonant no vowel follows (a coda) is not written."""
IMPOSSIBLE_LOG_P = -30.0
"""A vowel in an onset slot or a null onset in a vowel slot: finite, so that gradients stay finite."""


class SyllableMapping(nn.Module):
    def __init__(self, lost_letters: list[str], known_units: list[str], config: Config,
                 vowel_counts: dict[str, int] | None = None, sign_counts: dict[str, int] | None = None,
                 vowel_pairs: list[tuple[str, str]] | None = None,
                 pair_counts: dict[tuple[str, str], int] | None = None):
        """``vowel_counts``: how often each vowel stands in the known stems (the chance a vowel slot
        is scored against); ``sign_counts``: how often each sign stands in the corpus (the weights of
        the vowel marginal, :meth:`sound_loss`); None: all equally often. ``vowel_pairs`` (setting
        vowel_slot = joint): the stems' (onset, vowel) pairs, rows len(known_units) + i of the table,
        whose onset slots score P(sign | onset, vowel) (:meth:`_pair_rows`). ``pair_counts``: how often each of
        those pairs stands in the stems, the prior of the sign grid's reading (:meth:`sound_probs`; add-one;
        None: all alike)."""
        super().__init__()
        if lost_letters[0] != DELETE or known_units[0] != DELETE:
            raise ValueError("index 0 of both alphabets must be the deletion pseudo-character")
        if NULL_ONSET not in known_units:
            raise ValueError("a syllable model needs the null onset among the known units")
        self.lost_letters = list(lost_letters)
        self.known_units = list(known_units)
        self.config = config
        d, a = config.feature_dim, config.init_interval
        real = [u for u in known_units if u not in (DELETE, NULL_ONSET)]
        consonant_units = [u for u in real if not is_vowel(u)]
        self.vowel_units = [u for u in real if is_vowel(u)]
        # a vowel may stand in an onset too: a glide (Greek -ai-o- written -a-jo-) is learned, not given
        self.onset_units = [NULL_ONSET, *consonant_units, *self.vowel_units]
        if not self.vowel_units:   # the user's data, not a bug: one line (exit 2), never a traceback
            from engine.errors import InputError

            raise InputError("setting signs = syllables: no stem of the known vocabulary holds a vowel in its IPA "
                             f"(its sounds: {' '.join(real[:30])}); a syllable model reads each sign as onset + "
                             "vowel: give a vocabulary whose IPA has vowels, or train with signs = letters")
        kidx = {u: i for i, u in enumerate(known_units)}
        self.register_buffer("onset_rows", torch.tensor([kidx[u] for u in self.onset_units], dtype=torch.long))
        self.register_buffer("vowel_rows", torch.tensor([kidx[u] for u in self.vowel_units], dtype=torch.long))
        consonants = [kidx[u] for u in consonant_units]
        self.n_glides = len(self.vowel_units)
        self.register_buffer("consonant_rows", torch.tensor(consonants, dtype=torch.long))
        self.null_row = kidx[NULL_ONSET]
        # features of every known unit; DELETE and NULL_ONSET take the all-"none" consonant row;
        # NULL_ONSET gets a free vector below
        add_feature_embeddings(self, [DELETE if u == NULL_ONSET else u for u in known_units], config)
        self.null_emb = nn.Parameter(torch.empty(len(group_sizes(config)) * d).uniform_(-a, a))
        C = len(lost_letters) - 1
        self.onset_aligner = nn.Parameter(torch.empty(C + 1, len(self.onset_units)).uniform_(-a, a))
        self.vowel_aligner = nn.Parameter(torch.empty(C, len(self.vowel_units)).uniform_(-a, a))
        if config.sign_offsets > 0:
            # setting sign_offsets: a free offset on each (onset, sign) and (sign, vowel) score, from 0, paid for
            # in sound_loss; absent otherwise, so that runs and checkpoints without it are what they were
            self.onset_offset = nn.Parameter(torch.zeros(len(self.onset_units), C))
            self.vowel_offset = nn.Parameter(torch.zeros(C, len(self.vowel_units)))
        counts = torch.tensor([float((vowel_counts or {}).get(v, 0)) + 1.0 for v in self.vowel_units])
        self.register_buffer("vowel_log_chance", torch.log(counts / counts.sum()))
        signs = torch.tensor([float((sign_counts or {}).get(c, 0)) + 1.0 for c in lost_letters[1:]])
        self.register_buffer("sign_share", signs / signs.sum())
        self.vowel_pairs = list(vowel_pairs or ())
        onset_pos = {u: i for i, u in enumerate(self.onset_units)}
        vowel_pos = {u: i for i, u in enumerate(self.vowel_units)}
        self.register_buffer("pair_onsets", torch.tensor([onset_pos[c] for c, _ in self.vowel_pairs], dtype=torch.long),
                             persistent=False)
        self.register_buffer("pair_vowels", torch.tensor([vowel_pos[v] for _, v in self.vowel_pairs], dtype=torch.long),
                             persistent=False)
        seen = torch.tensor([float((pair_counts or {}).get(p, 0)) + 1.0 for p in self.vowel_pairs])
        # read only (the grid), never trained on: not in the state dict, so checkpoints from before it load
        self.register_buffer("pair_log_prior", torch.log(seen / seen.sum()), persistent=False)

    @property
    def n_lost(self) -> int:
        return len(self.lost_letters)

    def known_embeddings(self, dropout: bool) -> torch.Tensor:
        e = raw_known_embeddings(self)
        e = e.index_put((torch.tensor([self.null_row], device=e.device),), self.null_emb.unsqueeze(0))
        return finish_known_embeddings(e, self.config, dropout)

    def _scores(self, dropout: bool) -> tuple[torch.Tensor, torch.Tensor]:
        """(n_onsets, C + 1) E_K(c) . e_on(l) / T for <DEL> and every sign, and (C, n_vowels)
        E_K(v) . e_vo(s) / T."""
        e_k = self.known_embeddings(dropout)
        T = self.config.temperature
        e_on, e_vo = e_k[self.onset_rows], e_k[self.vowel_rows]
        s_on, s_vo = e_on @ (self.onset_aligner @ e_on).T / T, (self.vowel_aligner @ e_vo) @ e_vo.T / T
        if self.config.sign_offsets > 0:
            # over T as the features' scores are, so that plain SGD moves them about as fast as the aligners' rows
            s_on = torch.cat([s_on[:, :1], s_on[:, 1:] + self.onset_offset / T], dim=1)
            s_vo = s_vo + self.vowel_offset / T
        return s_on, s_vo

    @property
    def onset_offset_by_sign(self) -> torch.Tensor:
        """Setting sign_offsets: the onset offsets a row per sign (a view: writing it writes them)."""
        return self.onset_offset.T

    def offsets_penalty(self) -> torch.Tensor:
        """Setting sign_offsets: its weight times the offsets' sum of squares (0 without offsets)."""
        if self.config.sign_offsets <= 0:
            return self.onset_aligner.new_zeros(())
        return self.config.sign_offsets * (self.onset_offset.square().sum() + self.vowel_offset.square().sum())

    def log_probs(self, dropout: bool = False, vowels_free: bool = False) -> torch.Tensor:
        """(K, 2C + 1): the edit DP's table over the signs' slots (module docstring). ``vowels_free``:
        every vowel in a vowel slot scores as chance, log 0 (the onset phase, setting onsets_first)."""
        s_on, s_vo = self._scores(dropout)
        on, vo = torch.log_softmax(s_on, dim=1), torch.log_softmax(s_vo, dim=1)
        K, C = len(self.known_units), on.shape[1] - 1
        imp = on.new_full((K, C), IMPOSSIBLE_LOG_P)
        # a vowel in an onset slot (a glide) starts as unlikely as an echo vowel: at the start, when every
        # sign is alike, nothing else tells the DP which slot of a sign a stem's vowel belongs to
        on_slot = torch.cat([on[: -self.n_glides, 1:], on[-self.n_glides:, 1:] + GLIDE_LOG_P], dim=0)
        onset = imp.index_put((self.onset_rows,), on_slot)
        if vowels_free:
            vo_slot = torch.zeros_like(vo.T)
        elif self.vowel_pairs:
            # vowel_slot = joint: the onset slot holds P(s | c, v), the sign's whole value; the vowel slot scores
            # the chance of a vowel, log(vowels) for each alike, so that at the start a matched sign costs what
            # an unmatched one does, as a letter does (scored 0, the runs matched a fifth of the text)
            vo_slot = torch.full_like(vo.T, math.log(len(self.vowel_units)))
        else:
            vo_slot = (vo - self.vowel_log_chance).T
        vowel = imp.index_put((self.vowel_rows,), vo_slot)
        echo = math.log(self.config.echo_vowel_p)
        vowel = vowel.index_put((self.consonant_rows,), on.new_full((self.consonant_rows.numel(), C), echo))
        slots = torch.stack([onset, vowel], dim=2).reshape(K, SLOTS * C)
        deletion = on.new_full((K,), -math.log(SLOTS * C + 1))
        deletion = deletion.index_put((self.onset_rows[: -self.n_glides],), on[: -self.n_glides, 0])
        deletion = deletion.index_put((self.vowel_rows,), on.new_full((len(self.vowel_units),), VOWEL_DELETE_LOG_P))
        table = torch.cat([deletion.unsqueeze(1), slots], dim=1)
        # the known deletion pseudo-unit (stem padding) is never read: a flat row
        table = table.index_put((torch.tensor([0], device=on.device),),
                                on.new_full((1, SLOTS * C + 1), -math.log(SLOTS * C + 1)))
        if not self.vowel_pairs:
            return table
        # vowel_slot = joint: a consonant no vowel follows (a coda, a cluster's first) is written or left out
        # at even odds, then written with P(s | c, written); learned, its deletion reached 1 and stems
        # stripped of their codas matched a wrong reading's two-sign spans at no cost
        log_sign = torch.log_softmax(s_on[:, 1:], dim=1)                     # (n_onsets, C) P(s | c, written)
        coda = log_sign[1: -self.n_glides] + math.log1p(-math.exp(CODA_DELETE_LOG_P))
        rows = self.consonant_rows
        table = table.index_put((rows,), torch.cat([
            coda.new_full((rows.numel(), 1), CODA_DELETE_LOG_P),
            torch.stack([coda, table[rows, 2::SLOTS]], dim=2).reshape(rows.numel(), -1)], dim=1))
        return torch.cat([table, self._pair_rows(table, log_sign, vo, vowels_free)], dim=0)

    def _pair_rows(self, table: torch.Tensor, log_sign: torch.Tensor, vo: torch.Tensor,
                   vowels_free: bool) -> torch.Tensor:
        """(P, 2C + 1) the rows of the stems' onsets c that a vowel v follows (``log_sign``: log P(s | c, written),
        the onsets' scores normalised over the signs): c's own row, with each onset
        slot log P(s | c) + log P(v | s) - log P(v | c), P(v | c) = sum_s P(s | c, written) P(v | s): the
        sign given the whole syllable, P(s | c, v), which over the signs sums to P(c is written), as the
        paper's P(lost | known) sums over the letters. No entry of the table but a vowel slot's is above 0,
        and that one is the same log(number of vowels) for every vowel, so no stem gains from its vowels
        being rare (the ratio against the vowels' shares that vowel_slot = chance pays).

        A consonant that a vowel follows is the onset its sign writes: it is left out at the fixed
        ONSET_DELETE_LOG_P, not at its learned P(<DEL> | c) (a coda, which a syllabary's spelling may drop,
        is left out at even odds: CODA_DELETE_LOG_P, in :meth:`log_probs`). Learned, it reached 1 for whole
        consonants, and stems stripped of them matched the short spans of a wrong reading."""
        rows = table[self.onset_rows[self.pair_onsets]]                      # onset c's own row
        consonant = (self.pair_onsets != 0).unsqueeze(1)                     # onset 0 is the null onset
        written = math.log1p(-math.exp(ONSET_DELETE_LOG_P))
        onset_cols = torch.where(consonant, written + log_sign[self.pair_onsets], rows[:, 1::SLOTS])
        deletion = torch.where(consonant.squeeze(1), rows.new_full((rows.shape[0],), ONSET_DELETE_LOG_P), rows[:, 0])
        if not vowels_free:
            log_v_given_c = self._log_v_given_c(log_sign, vo)
            onset_cols = onset_cols + vo[:, self.pair_vowels].T \
                - log_v_given_c[self.pair_onsets, self.pair_vowels].unsqueeze(1)
        slots = torch.stack([onset_cols, rows[:, 2::SLOTS]], dim=2).reshape(rows.shape[0], -1)
        return torch.cat([deletion.unsqueeze(1), slots], dim=1)

    @staticmethod
    def _log_v_given_c(log_sign: torch.Tensor, vo: torch.Tensor) -> torch.Tensor:
        """(n_onsets, n_vowels) log P(v | c) = log sum_s P(s | c) P(v | s) (``log_sign``: log P(s | c) over the
        signs; ``vo``: log P(v | s)): P(s | c, v) is P(s | c) P(v | s) / P(v | c)."""
        return torch.logsumexp(log_sign.unsqueeze(2) + vo.unsqueeze(0), dim=1)

    def pin_probs(self, probs: torch.Tensor, dropout: bool) -> torch.Tensor:
        """What a pin pulls on, laid out like the DP table (K, 2C + 1): P(onset c | sign s) in the onset
        slot's column and P(vowel v | sign s) in the vowel slot's. A philologist's ``𐀏 = ka`` says what
        the sign is worth; pulling P(sign | /k/) to 1 instead would fight the other signs of the k-row
        (every sign of a row pinned to one consonant cannot each take all of its mass)."""
        s_on, s_vo = self._scores(dropout)
        log_on = torch.log_softmax(s_on[:, 1:], dim=0)                   # over the onsets, per sign
        log_vo = torch.log_softmax(s_vo, dim=1)                          # (C, n_vowels)
        K, C = probs.shape[0], log_vo.shape[0]
        imp = log_vo.new_full((K, C), IMPOSSIBLE_LOG_P)
        onset = imp.index_put((self.onset_rows,), log_on)
        vowel = imp.index_put((self.vowel_rows,), log_vo.T)
        slots = torch.stack([onset, vowel], dim=2).reshape(K, SLOTS * C)
        return torch.cat([imp[:, :1], slots], dim=1).exp()

    def score_probs(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The grid of a vowel_slot = chance run (and of joint runs before d4506d9): the onset scores the DP
        uses, normalised over the onsets instead of the signs, (C, n_onsets), and P(vowel | sign) (C, n_vowels)."""
        with torch.no_grad():
            s_on, s_vo = self._scores(False)
            return torch.softmax(s_on[:, 1:].T, dim=1), torch.softmax(s_vo, dim=1)

    def sign_given_syllable(self) -> torch.Tensor:
        """With vowel_slot = joint: (P, C) log P(sign s | the stems' syllable j = (c, v)) = log P(s | c) + log P(v | s)
        - log P(v | c), what the DP's pair rows read (:meth:`_pair_rows`, the written share aside). With gradient."""
        s_on, s_vo = self._scores(False)
        log_sign = torch.log_softmax(s_on[:, 1:], dim=1)                     # (n_onsets, C) log P(s | c)
        vo = torch.log_softmax(s_vo, dim=1)
        log_v_given_c = self._log_v_given_c(log_sign, vo)
        return log_sign[self.pair_onsets] + vo[:, self.pair_vowels].T \
            - log_v_given_c[self.pair_onsets, self.pair_vowels].unsqueeze(1)

    def pair_posterior(self) -> torch.Tensor:
        """With vowel_slot = joint: (P, C) P(syllable j | sign s), the grid's reading (:meth:`sound_probs`): P(s | j)
        times how often j stands in the stems, normalised over the syllables. With gradient."""
        return torch.softmax(self.sign_given_syllable() + self.pair_log_prior.unsqueeze(1), dim=0)

    def sound_probs(self) -> tuple[torch.Tensor, torch.Tensor]:
        """P(onset | sign) (C, n_onsets) and P(vowel | sign) (C, n_vowels).

        With vowel_slot = joint, Bayes under the model the DP trains: a sign writes the stems' syllable (c, v)
        with P(s | c, v) = P(s | c) P(v | s) / P(v | c) (:meth:`_pair_rows`), so P(c, v | s) is proportional to
        that times how often (c, v) stands in the stems, and the onset and the vowel are its marginals. A
        syllable that no stem has is not read. Otherwise the onset scores are the DP's, normalised over the
        onsets instead of the signs, and the vowel is P(vowel | sign)."""
        if not self.vowel_pairs:
            return self.score_probs()
        with torch.no_grad():
            post = self.pair_posterior()                                          # (P, C) P(c, v | s)
            p_on = post.new_zeros((len(self.onset_units), post.shape[1])).index_add_(0, self.pair_onsets, post)
            p_vo = post.new_zeros((len(self.vowel_units), post.shape[1])).index_add_(0, self.pair_vowels, post)
            return p_on.T, p_vo.T

    def sound_loss(self, probs: torch.Tensor) -> torch.Tensor:
        """The syllable model's Omega_loss: the vowels the signs give, weighted by how often each sign
        is written, should be the vowels of the known stems: KL(known vowels || sum_s share(s) P(v | s)).
        Without it every sign can give the commonest vowel, and the stems richest in it match every
        span (what training found; docs/deviations-from-paper.md). ``probs`` (the DP table) is not
        used: the marginal is read from a fresh dropout sample, as the paper's term is. With setting sign_offsets
        the offsets' price (:meth:`offsets_penalty`) is added, either way."""
        if self.vowel_pairs:
            # vowel_slot = joint: the paper's Omega_loss over the syllables, each sign receiving about
            # one (onset, vowel) pair's mass of P(sign | onset, vowel) (a sign that stood for many
            # syllables at once could read every span)
            received = probs[len(self.known_units):, 1::SLOTS].sum(dim=0)
            return ((received - 1.0) ** 2).sum() + self.offsets_penalty()
        _, s_vo = self._scores(True)
        marginal = self.sign_share @ torch.softmax(s_vo, dim=1)
        known = self.vowel_log_chance.exp()
        return (known * (self.vowel_log_chance - torch.log(marginal + 1e-12))).sum() + self.offsets_penalty()

    def syllable_table(self, scores: bool = False) -> SyllableTable:
        """The signs' values as the grid reads them (:meth:`sound_probs`), or with ``scores`` as :meth:`score_probs`
        reads them (the grid before d4506d9: benchmarks/experiments/grid_readings.py)."""
        p_on, p_vo = self.score_probs() if scores else self.sound_probs()
        return SyllableTable(tuple(self.lost_letters[1:]), tuple(self.onset_units), p_on.cpu().numpy(),
                             tuple(self.vowel_units), p_vo.cpu().numpy())

    def sound_given_sign(self) -> torch.Tensor:
        """(K, C + 1) P(sound k | sign l): onsets and vowels (each column sums to 2); column 0 (no
        sign) and the deletion row are 0. What a MappingSnapshot of a syllable run holds."""
        p_on, p_vo = self.sound_probs()
        out = p_on.new_zeros((len(self.known_units), len(self.lost_letters)))
        out[self.onset_rows, 1:] = p_on.T
        out[self.vowel_rows, 1:] = p_vo.T
        return out


def slot_windows(windows: torch.Tensor) -> torch.Tensor:
    """(S, N) sign ids (0 = padding) -> (S, 2N) slot ids of the DP table: sign l -> 2l - 1, 2l."""
    onset = torch.where(windows > 0, SLOTS * windows - 1, torch.zeros_like(windows))
    vowel = SLOTS * windows
    return torch.stack([onset, vowel], dim=2).reshape(windows.shape[0], -1)


def make_mapping(prep, class_init: float | None = None) -> nn.Module:
    """The character mapping the settings ask for: the paper's (letters) or the syllable model
    (``prep.script``, engine/model/script.py). ``class_init``: instead of the setting's (a later
    start of restart_class_init)."""
    config = prep.config if class_init is None else prep.config.replace(class_init=class_init)
    return prep.script.make_mapping(prep, config)

