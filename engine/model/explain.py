"""Why a span matches a stem: the best character alignment under the current mapping.

The edit DP of alignment.py for a single (span, stem) pair in max form, with a back-trace.
Each step says which known unit produced which lost letters (none = deleted, two = insertion).

A syllable run's span is read as the model reads it, two slots a sign (onset, vowel): the stem's units
with a null onset before every vowel that follows no consonant (engine/model/syllables.py) are aligned to
the slots, a consonant to an onset slot with P(onset | sign), a vowel to a vowel slot with P(vowel | sign),
both from the run's sign grid; a unit the spelling leaves out pays the model's price for that (a coda
consonant's, an onset's, a vowel's), and a coda written with a sign of its own takes both slots of one
sign, its vowel an echo. Each step's ``lost`` is the sign whose slot the unit took, so the two units of a
syllable both show its sign.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.corpus import split_units
from engine.model.phonology import ipa_units
from engine.results import MappingSnapshot


@dataclass(frozen=True)
class AlignedPair:
    known: str            # an IPA unit of the stem
    lost: str             # the letters it became: "" (deleted), one letter, or two (insertion)
    log_prob: float       # log P of this step (insertion includes -gamma)
    #: a syllable run's step: the positions in the span of the signs whose slots the unit took (one, or
    #: none when the spelling leaves it out); () for a letters run
    signs_at: tuple[int, ...] = ()


def best_alignment(mapping: MappingSnapshot, span: str, stem_ipa: str, gamma: float = 3.5,
                   band: int = 2) -> tuple[list[AlignedPair], float]:
    """The most probable monotone alignment of ``span`` to ``stem_ipa`` and its log-probability.

    Returns ([], -inf) when no alignment exists inside the band or a symbol is not in the mapping.
    """
    units = ipa_units(stem_ipa)
    letters = list(split_units(span))
    if mapping.syllables is not None:
        return _syllable_alignment(mapping.syllables, units, letters, gamma, band)
    lost_index = {c: i for i, c in enumerate(mapping.lost)}
    known_index = {u: i for i, u in enumerate(mapping.known)}
    if any(u not in known_index for u in units) or any(c not in lost_index for c in letters):
        return [], -math.inf
    logp = [[_log(p) for p in row] for row in mapping.probs]
    path, total = best_path([logp[known_index[u]] for u in units], [lost_index[c] for c in letters], gamma, band)
    steps, j = [], 0
    for unit, (k, lp) in zip(units, path):
        steps.append(AlignedPair(unit, "".join(letters[j: j + k]), lp))
        j += k
    return steps, total


def _log(p) -> float:
    """log P, with a probability of 0 read as 1e-30 (an alignment step the mapping all but rules out)."""
    return math.log(max(float(p), 1e-30))


def _syllable_alignment(table, units, signs: list[str], gamma: float, band: int) -> tuple[list[AlignedPair], float]:
    """best_alignment for a syllable run (module docstring): ``table`` its SyllableTable."""
    from engine.model.syllable_mapping import (CODA_DELETE_LOG_P, ECHO_LOG_P, IMPOSSIBLE_LOG_P, ONSET_DELETE_LOG_P,
                                               VOWEL_DELETE_LOG_P)
    from engine.model.syllables import NULL_ONSET, is_vowel, syllabify

    sign_row = {s: i for i, s in enumerate(table.signs)}
    onset_col = {u: j for j, u in enumerate(table.onsets)}
    vowel_col = {u: j for j, u in enumerate(table.vowels)}
    stem = list(syllabify(units))
    if any(s not in sign_row for s in signs) or any(u not in onset_col and u not in vowel_col for u in stem):
        return [], -math.inf
    rows = []
    for i, u in enumerate(stem):
        coda = not is_vowel(u) and u != NULL_ONSET and (i + 1 == len(stem) or not is_vowel(stem[i + 1]))
        row = [VOWEL_DELETE_LOG_P if is_vowel(u) else CODA_DELETE_LOG_P if coda else ONSET_DELETE_LOG_P]
        for s in signs:
            r = sign_row[s]
            if u in vowel_col:      # a vowel in a vowel slot (never in an onset slot)
                row += [IMPOSSIBLE_LOG_P, _log(table.vowel_probs[r, vowel_col[u]])]
            else:                   # a consonant or the null onset in an onset slot; a coda's echo vowel
                row += [_log(table.onset_probs[r, onset_col[u]]), ECHO_LOG_P if coda else IMPOSSIBLE_LOG_P]
        rows.append(row)
    cols = list(range(1, 2 * len(signs) + 1))
    path, total = best_path(rows, cols, gamma, band)
    if not path or any(lp <= IMPOSSIBLE_LOG_P for _, lp in path):   # only through a slot no unit can take
        return [], -math.inf
    steps, j = [], 0
    for unit, (k, lp) in zip(stem, path):
        at = tuple(dict.fromkeys((j + x) // 2 for x in range(k)))
        steps.append(AlignedPair(unit, "".join(signs[p] for p in at), lp, at))
        j += k
    return steps, total


def best_path(rows: list[list[float]], cols: list[int], gamma: float, band: int) -> tuple[list[tuple[int, float]], float]:
    """The edit DP's best single path: ``rows[i]`` is the log-probability row of the stem's i-th unit
    (column 0: deleted), ``cols[j]`` the column of the span's j-th position. Returns, for each stem unit
    in order, (how many positions it produced: 0 deleted, 1, or 2 an insertion paying ``gamma``, the
    step's log-probability), and the total; ([], -inf) when no path exists inside the band."""
    m, n = len(rows), len(cols)
    NEG = -math.inf
    best = [[NEG] * (n + 1) for _ in range(m + 1)]
    back: list[list[tuple[int, float] | None]] = [[None] * (n + 1) for _ in range(m + 1)]
    best[0][0] = 0.0
    for i in range(1, m + 1):
        row = rows[i - 1]
        for j in range(max(0, i - band), min(n, i + band) + 1):
            options = [(0, best[i - 1][j] + row[0])]
            if j >= 1:
                options.append((1, best[i - 1][j - 1] + row[cols[j - 1]]))
            if j >= 2:
                options.append((2, best[i - 1][j - 2] + row[cols[j - 2]] + row[cols[j - 1]] - gamma))
            k, v = max(options, key=lambda t: t[1])
            if v > NEG:
                best[i][j] = v
                back[i][j] = (k, v - best[i - 1][j - k])
    if abs(m - n) > band or best[m][n] == NEG:
        return [], NEG
    path: list[tuple[int, float]] = []
    i, j = m, n
    while i > 0:
        k, lp = back[i][j]  # type: ignore[misc]
        path.append((k, lp))
        i, j = i - 1, j - k
    return path[::-1], best[m][n]


def run_alignment_settings(run) -> tuple[float, int]:
    """The insertion cost and band a stored run ended with (a ``RunRecord``): what an explanation of
    its matches must align with (the app's hover, the exports' alignments). A run whose settings
    cannot be read gets the defaults."""
    from engine.config import Config

    try:
        cfg = run.settings()
        return cfg.insertion_cost(run.last_step or cfg.steps), cfg.band
    except Exception:  # noqa: BLE001 - an old or odd record: the defaults, as the app always did
        return Config().insertion_cost_end, Config().band
