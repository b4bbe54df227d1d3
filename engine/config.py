"""Every hyper-parameter of a run, in one documented object, with each setting's metadata.

Defaults are the paper's (Luo et al. 2021, appendix "Training details") and, where the paper is
silent, the authors' code (configs ``FinalPgm`` on the ``tacl`` branch of j-luo93/xib); see
../docs/deviations-from-paper.md for the few places we differ.

Each field carries a :class:`Setting` in its dataclass metadata: section, help text, where the
default comes from, and the allowed range or choices. That one table serves every front end:
:func:`parse_value` turns text (``--set``, a form, a report's settings column) into a value,
:func:`check_value` and ``Config.__post_init__`` refuse out-of-range values with one line such as
``setting lr: must be a finite number > 0 and <= 10, got inf``, and :func:`settings_info` lists
the fields for the GUI form (no source code is read, so it works in a frozen bundle).

Ranges: where the engine needs a bound it is stated with the reason; the upper bounds on the
numerical knobs are a generous multiple of the paper's value, chosen so that a value beyond them
cannot train (see ``lr`` and ``temperature``). A value inside the range that still makes the loss
or the parameters non-finite is caught by the training loop, not here.
"""

from __future__ import annotations

import dataclasses
import math
import re
import tomllib
import typing
import unicodedata
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Iterable, Literal, Mapping

from engine.errors import InputError

# where a default comes from
PAPER = "paper"
CODE = "authors' code"
OURS = "ours"

#: The section titles, in the order the form shows them.
SECTIONS = ("character mapping", "edit-distance DP", "word-boundary lattice", "objective",
            "optimisation", "evaluation and reports")

#: The largest step count a setting may name: ~3,300 times the paper's 3,000 steps.
MAX_STEPS = 10_000_000
#: Seeds are 32-bit: numpy's legacy seeding takes 0..2**32-1 and torch/random accept them all.
MAX_SEED = 2**32 - 1


class SettingError(InputError):
    """A setting's value is not allowed; names the key and the allowed values in one line."""

    def __init__(self, key: str, problem: str, *, path: str | Path | None = None):
        self.key = key
        self.detail = problem
        super().__init__(f"setting {key}: {problem}", path=path)


@dataclass(frozen=True)
class Setting:
    """What a front end needs to know about one Config field (besides its name, type, default)."""

    section: str
    help: str
    source: str                       # PAPER, CODE or OURS: where the default comes from
    minimum: float | None = None      # None = no lower bound
    maximum: float | None = None
    min_open: bool = False            # True: the value must be > minimum (not >=)
    max_open: bool = False
    choices: tuple[str, ...] = ()     # for str settings; empty = free text checked by a rule
    note: str = ""                    # a cross-field rule, shown with the range ("at least max_span")


def _setting(default: Any, section: str, help: str, source: str, *, ge: float | None = None,
             gt: float | None = None, le: float | None = None, lt: float | None = None,
             choices: Iterable[str] = (), note: str = "") -> Any:
    meta = Setting(section, " ".join(help.split()), source,
                   minimum=gt if gt is not None else ge, maximum=lt if lt is not None else le,
                   min_open=gt is not None, max_open=lt is not None, choices=tuple(choices), note=note)
    return field(default=default, metadata={"setting": meta})


EditMode = Literal["softmin", "max", "sum"]
Signs = Literal["letters", "syllables"]
VowelSlot = Literal["chance", "joint"]
WordsSpans = Literal["whole", "inside"]
Sampling = Literal["auto", "ngram", "sequential"]
Precision = Literal["double", "single"]
ScoreNormalisation = Literal["span", "stem"]
ReferenceNull = Literal["auto", "on", "off"]

_MAP, _DP, _LAT, _OBJ, _OPT, _EVAL = SECTIONS


@dataclass(frozen=True)
class Config:
    # --- character mapping (paper §3.1.1; code: DenseFeatEmbedding, unit_aligner) ---
    feature_dim: int = _setting(
        100, _MAP, "Size of each feature-group embedding; 7 groups are concatenated (700-d). "
        "Ugaritic: 35.", PAPER, ge=1, le=4096)
    use_ipa_features: bool = _setting(
        True, _MAP, 'False = ablation "-IPA": each known unit gets a free embedding of 7 * feature_dim.',
        PAPER)
    # Issue 49: the 7 groups give one embedding to units that differ only by a diacritic (k, kʰ, kʷ;
    # s̺, s̻; e, e̯), so no sign can prefer one of them (docs/deviations-from-paper.md).
    feature_modifiers: bool = _setting(
        False, _MAP, "Add an 8th feature group, the unit's first IPA diacritic or modifier letter (ʰ ʷ ʲ, "
        "apical ̺, laminal ̻, non-syllabic ̯ ...; none for a bare segment), so that units the paper's 7 groups "
        "cannot tell apart (k, kʰ, kʷ) get different embeddings. False = the paper's 7 groups.", OURS)
    dropout: float = _setting(
        0.5, _MAP, "Dropout on the concatenated known-unit embedding, before L2 normalisation.",
        PAPER, ge=0, lt=1)
    emb_norm: float = _setting(
        1.0, _MAP, "Known-unit embeddings are scaled to this norm after dropout.", CODE, gt=0, le=100)
    init_interval: float = _setting(
        0.05, _MAP, "Parameters start uniform in [-init_interval, init_interval].", CODE, gt=0, le=10)
    # T divides the logits: below 0.01 (20 times sharper than the paper's 0.2) the softmax is
    # one-hot from the first step and gradients are 1/T times larger, so nothing can be learned.
    temperature: float = _setting(
        0.2, _MAP, "T in P(lost | known) = softmax(E_K . E_L / T).", PAPER, ge=0.01, le=100)

    # A syllabary's sign writes an onset and a vowel; the paper's mapping gives one lost character one
    # IPA unit. docs/deviations-from-paper.md ("Syllabic scripts") describes the syllable model.
    signs: Signs = _setting(
        "letters", _MAP, 'What one lost character writes: "letters" (one sound: the paper\'s model) or '
        '"syllables" (an optional onset consonant and a vowel, each a distribution learned through the '
        'same IPA feature embeddings: syllabaries such as Linear B; spans are still counted in signs).',
        OURS, choices=typing.get_args(Signs))

    # Issue 25: a syllabary's consonantal skeleton first (engine/model/syllable_mapping.py).
    onsets_first: float = _setting(
        0.0, _MAP, "With signs = syllables: during the first onsets_first x anneal_steps steps every vowel "
        "slot is scored as chance (each vowel of a stem alike), so the signs' onsets, the consonantal "
        "skeleton, are learned before their vowels; then both. 0 = off (onsets and vowels together).",
        OURS, ge=0, le=1)

    # Issue 49: with "chance" the vowel slot is a ratio that exceeds 1 for a stem's rare vowels, so a
    # wrong reading that matches spans to stems rich in rare vowels scores above the right one
    # (docs/deviations-from-paper.md, "Syllabic scripts").
    vowel_slot: VowelSlot = _setting(
        "chance", _MAP, 'With signs = syllables: how a sign is scored against a stem\'s syllable (onset c, vowel v). '
        '"chance": P(sign | c) in the onset slot, P(v | sign) over the vowel\'s share in the stems in the vowel '
        'slot (a ratio above 1 for rare vowels); "joint": P(sign | c, v), normalised over the signs for each '
        'syllable as the paper\'s P(lost | known) is over the letters, with the paper\'s Omega_loss over the '
        'syllables, an onset left out at a fixed 0.05 and a coda at even odds (issue 49; the preset syllabary\'s).',
        OURS, choices=typing.get_args(VowelSlot))

    # Issue 49: through the features alone k, kʰ and kʷ are one embedding (the paper's seven groups have no aspiration
    # or secondary articulation), so the grid's reading of a rare syllable falls back to its common neighbour
    # (docs/notebook/invented-ciphers.md, "The rare signs"; in the preset syllabary since its dev runs).
    sign_offsets: float = _setting(
        0.0, _MAP, "With signs = syllables: each sign's score against each onset and each vowel gets a free offset, "
        "learned with the mapping from the first step, and this weight times the offsets' sum of squares is added "
        "to Omega_loss (so every start and the objective that screens them pay for the freedom alike). 0 = no "
        "offsets: a sign is placed through the IPA features alone (the paper's mapping).", OURS, ge=0, le=1e6)

    # Issue 30: distributional evidence for the start of the search (engine/model/letter_classes.py).
    class_init: float = _setting(
        0.0, _MAP, "With signs = letters: the aligner starts with this added to each lost letter's weights "
        "on the known units of its class, the class from the letters' contexts alone (Sukhotin's "
        "algorithm: letters that pattern as vowels lean to vowels, the others to consonants). 0 = the "
        "paper's uniform start.", OURS, ge=0, le=10)

    # --- edit-distance DP (paper §3.1.2; code: ExtractModel._get_matches) ---
    edit_mode: EditMode = _setting(
        "softmin", _DP, 'How a DP cell combines its edit operations: "softmin" (the authors\' code: '
        'the softmin-weighted mean cost), "max" (the paper: best alignment) or "sum" (all alignments).',
        CODE, choices=typing.get_args(EditMode))
    # The compiled CPU kernels once computed only in double; single runs twice the lanes per vector
    # (docs/benchmarks.md, "Training speed"). The GPU path and the torch DP compute in single anyway.
    dp_precision: Precision = _setting(
        "double", _DP, "Floating-point precision of the edit DP's compiled CPU kernels: double (the results "
        "recorded so far) or single (float32, as the GPU path and the authors' code compute; faster steps, "
        "results that differ from double's at rounding level).", OURS, choices=typing.get_args(Precision))
    # band 0 is legal (substitutions only: stem and span of equal length); each row of the DP has
    # 2 * band + 1 cells, and spans are at most 100 letters, so a wider band adds nothing.
    band: int = _setting(
        2, _DP, "Only alignments with |i - j| <= band exist, so stem and span lengths differ by "
        "at most band (0 = substitutions only).", CODE, ge=0, le=100)
    insertion_cost_start: float = _setting(
        0.0, _DP, "gamma = -ln(alpha), the insertion penalty, annealed linearly from start to end "
        "(Ugaritic: 10).", PAPER, ge=0, le=1000)
    insertion_cost_end: float = _setting(
        3.5, _DP, "The insertion penalty gamma at the end of annealing.", PAPER, ge=0, le=1000)
    # Issue 49: a syllabary that writes a coda with a sign of its own (an echo or a dummy vowel) makes
    # its words longer than their stems by a sign a coda; each paid gamma, and the search stayed far from
    # the reading (docs/deviations-from-paper.md, "Syllabic scripts").
    coda_insertion: float = _setting(
        1.0, _DP, "With signs = syllables: the share of the insertion penalty gamma paid where one known unit "
        "writes both slots of one sign (a coda written with a sign of its own, its vowel an echo or a dummy, as "
        "Linear B's ko-no-so); an insertion across two signs pays gamma. 1 = gamma, as every insertion.",
        OURS, ge=0, le=1)
    echo_vowel_p: float = _setting(
        0.1, _DP, "With signs = syllables: the probability that a sign's written vowel stands for no vowel of the "
        "stem (the echo or dummy vowel of a coda written with a sign of its own); 1 = such a vowel costs nothing, "
        "the sign's onset alone is scored.", OURS, gt=0, le=1)

    # --- word-boundary lattice (paper §3.1, appendix A; code: _run_ctc_v2) ---
    min_span: int = _setting(
        4, _LAT, "Shortest span (in letters) that can match a stem (Ugaritic: 3).", PAPER, ge=1, le=100,
        note="at most max_span")
    max_span: int = _setting(
        10, _LAT, "Longest span (in letters) that can match a stem.", PAPER, ge=1, le=100,
        note="at least min_span")
    unmatched_prior: float = _setting(
        0.5, _LAT, "Pr(O); the matched tags E_n share the rest uniformly.", CODE, gt=0, lt=1)
    reward_scale: float = _setting(
        20.0, _LAT, "The code multiplies each span reward P(x|E)^(1/|x|) by 20.", CODE, gt=0, le=1e6)
    segmented: bool = _setting(
        False, _LAT, "Whole-word spans only: each written word is one candidate span (the Ugaritic "
        "setting).", CODE)
    # Issue 49: on a syllabic text without dividers, free spans from the first step match runs of two signs
    # to anything and the search stays far from the reading; trained first on the text's words whole, it
    # reads them (docs/deviations-from-paper.md, "Syllabic scripts").
    words_first: int = _setting(
        0, _LAT, "When not segmented: train the first this many steps on pseudo-words, whole (as segmented = "
        "true), then on free spans: the pieces a unigram model of the text's sign strings cuts it into, kept "
        "when they recur and are long enough to be a stem (engine/model/pseudo_words.py; found without gold). "
        "0 = free spans from the first step (the paper).", OURS, ge=0, le=MAX_STEPS)
    # Issue 49: a pseudo-word is often a stem with its suffix; matched whole, an inflected word must match a
    # bare stem (what made the first Gothic WR 100 % runs fail, docs/deviations-from-paper.md).
    words_spans: WordsSpans = _setting(
        "whole", _LAT, 'With words_first: how the pseudo-words are matched. "whole": each one as one span (as '
        'segmented = true); "inside": spans inside each pseudo-word, the ordinary lattice over each one (a stem '
        'and its suffix, the suffix left unmatched).', OURS, choices=typing.get_args(WordsSpans))
    # Issue 49: the word finder's thresholds (engine/model/pseudo_words.py): a rare piece is more often half a
    # word, but the long words a text has once or twice are what pins most of a mapping.
    words_min_count: int = _setting(
        3, _LAT, "With words_first: a piece of 3 signs or more is a pseudo-word when the text has it at least this "
        "often.", OURS, ge=1, le=1_000_000)
    words_min_count_pair: int = _setting(
        9, _LAT, "With words_first: a piece of 2 signs is a pseudo-word when the text has it at least this often "
        "(a frequent pair is more often half a word).", OURS, ge=1, le=1_000_000)
    # Issue 49: a text's words come often or once (a Zipf law): trained on the pseudo-words as they stand, the
    # common ones set the mapping, and a list of each distinct word once read where the text's own words did not
    # (docs/notebook/invented-ciphers.md). In the preset syllabary (chosen on the dev syllabaries' running text).
    words_types: bool = _setting(
        False, _LAT, "With words_first: train the word phase on each distinct pseudo-word once instead of on every "
        "place the text has it.", OURS)
    # A chunk shorter than max_span could never hold the longest span.
    max_chunk: int = _setting(
        100, _LAT, "Longer runs between dividers are cut into pieces of at most this many units.",
        OURS, ge=1, le=100_000, note="at least max_span")

    # --- objective (paper §3.2; code: ExtractTrainer) ---
    quality_weight: float = _setting(
        10.0, _OBJ, "Weight of the matching quality term of the objective.", CODE, ge=0, le=1e6)
    coverage_weight: float = _setting(
        10.0, _OBJ, "lambda_cov, weight of the coverage term of the objective.", PAPER, ge=0, le=1e6)
    coverage_start: float = _setting(
        1.0, _OBJ, "r_cov, the coverage target, annealed linearly from start to end (code: 1.0 -> 0.5; "
        "Iberian 1.0 -> 0.1).", CODE, ge=0, le=1)
    coverage_end: float = _setting(
        0.5, _OBJ, "The coverage target r_cov at the end of annealing.", CODE, ge=0, le=1)
    sound_loss_weight: float = _setting(
        100.0, _OBJ, "lambda_loss for Omega_loss; like quality and coverage it is divided by the "
        "batch's characters.", PAPER, ge=0, le=1e6)
    vowel_weight: float = _setting(
        1.0, _OBJ, "With signs = letters: Omega_loss counts each known vowel's row of P(lost | known) this "
        "many times (the authors' code has it, default 1, unused by their configs; a commit says it "
        "\"helped on ON\"). Below 1 a lost letter may take the mass of several known vowels. 0 = from the "
        "letter classes: the lost letters that pattern as vowels (Sukhotin) over the known vowel units, at "
        "most 1 (1 where the classes say nothing: an abjad's known side, a syllabary).", CODE, ge=0, le=10)
    pin_weight: float = _setting(
        10.0, _OBJ, "Weight of -log P(lost | known) for every pinned value (the paper's partial/full "
        "models).", OURS, ge=0, le=1e6)
    # 0 keeps the paper's mean over all |V| stems; any K >= |V| is the same model.
    candidate_stems: int = _setting(
        0, _OBJ, "K: from candidate_start on, each span's P(span | matched) is the mean over its best-scoring "
        "stems under the current mapping, their number narrowing geometrically from |V| to K by the end of "
        "annealing (and the decoder's log |V| becomes log K), so a large dictionary's chance resemblances weigh "
        "less (beyond the paper; docs/deviations-from-paper.md). 0 = all stems (the paper). Evaluation always "
        "ranks every stem.",
        OURS, ge=0, le=10_000_000)
    # Narrowing from the first step fixes the mapping on chance resemblances (docs/benchmarks.md,
    # "Large vocabularies"): the spans first need a rough mapping learned against every stem.
    candidate_start: float = _setting(
        0.5, _OBJ, "When candidate_stems is on: the fraction of anneal_steps trained against every stem "
        "before each span competes with its K best only.", OURS, ge=0, le=1)
    # Cost (issue 15): the pass over every stem that picks each span's K best is most of a narrowed
    # step on a large vocabulary; between refreshes a span competes among its last list's stems.
    candidate_refresh: int = _setting(
        4, _OBJ, "When candidate_stems is on: each span's best stems over the whole vocabulary are recomputed "
        "(a DP pass over every stem, without gradient) on every this many-th visit of the span; on the visits "
        "in between it competes among the stems of its last list, re-ranked under the current mapping. 1 = "
        "every visit (the setting's first form; slower on a large vocabulary).", OURS, ge=1, le=MAX_STEPS)
    # Issue 15: in a large dictionary a short word or span finds a close stem under almost any mapping
    # (39k Hebrew stems against ~25^4 four-letter strings), so early training on short spans follows
    # chance resemblances; long spans resemble a stem by chance far more rarely.
    curriculum_min_span: int = _setting(
        0, _OBJ, "Long spans first: during the first curriculum_fraction x anneal_steps steps only spans (whole "
        "words when segmented) of at least this many letters are trained; then every span from min_span on "
        "(beyond the paper; docs/deviations-from-paper.md). 0 = off (the paper).", OURS, ge=0, le=100,
        note="0, or min_span..max_span")
    curriculum_fraction: float = _setting(
        0.5, _OBJ, "When curriculum_min_span is on: the fraction of anneal_steps trained on the long spans only.",
        OURS, ge=0, le=1)
    likelihood_weight: float = _setting(
        0.0, _OBJ, "Weight of -log P(X); 0 in the authors' code.", CODE, ge=0, le=1e6)

    # --- optimisation ---
    steps: int = _setting(
        3000, _OPT, "Training steps (batches) in the run.", PAPER, ge=0, le=MAX_STEPS)
    anneal_steps: int = _setting(
        2000, _OPT, "Steps over which the insertion cost and the coverage target move from start to end.",
        PAPER, ge=0, le=MAX_STEPS)
    # SGD step with gradients clipped to norm 1 moves the parameters by at most lr: at 10 (50 times
    # the paper's 0.2, 200 times the initial range of 0.05) one step already wipes what was learned,
    # so a larger value can only diverge; within the range, divergence is the training's to catch.
    lr: float = _setting(
        0.2, _OPT, "Learning rate of the SGD optimiser.", PAPER, gt=0, le=10)
    # Issue 15: on the full Ugaritic set P@1 peaks mid-run and is lost after annealing while the mapping of
    # the affix letters oscillates at the constant lr (docs/benchmarks.md, "Why the full set scores lower").
    lr_end_fraction: float = _setting(
        1.0, _OPT, "After annealing the learning rate decays linearly from lr to lr x this by the last step "
        "(1 = constant, the paper).", OURS, ge=0, le=1)
    clip_norm: float = _setting(
        1.0, _OPT, "Gradients are clipped to this norm (0 = no clipping).", CODE, ge=0, le=1e6)
    # The first chunk always enters a batch, so any positive size works; below max_span a batch
    # could not hold one longest span and every step would be a single short chunk.
    chars_per_batch: int = _setting(
        400, _OPT, "Letters per training batch (padding included); smaller uses less memory.", CODE,
        ge=1, le=10_000_000, note="at least max_span")
    sampling: Sampling = _setting(
        "auto", _OPT, '"ngram" (inverse n-gram frequency, with replacement, as the code), "sequential" '
        '(shuffled passes) or "auto" (sequential when segmented, else ngram).', CODE,
        choices=typing.get_args(Sampling))
    seed: int = _setting(
        0, _OPT, "Random seed: the same seed, data and settings give the same run.", OURS, ge=0,
        le=MAX_SEED)
    # Basin selection (issue 15): with a large dictionary many seeds end in a worse optimum of the same
    # objective, so several starts are trained and the one with the lowest objective is kept.
    restarts: int = _setting(
        1, _OPT, "R: train R starts (the run's seed and R - 1 seeds derived from it) for restart_fraction x "
        "steps (or restart_steps) each, keep the one whose objective over the whole corpus is lowest "
        "(gold-free) and continue only it to the full steps (beyond the paper; docs/deviations-from-paper.md). 1 = one start "
        "(the paper).", OURS, ge=1, le=64)
    # 1.0: on the 10x synthetic cipher the objective ranks the starts only at the end of the run
    # (docs/benchmarks.md, "Large vocabularies": restarts); at the end of annealing or earlier it does not.
    restart_fraction: float = _setting(
        1.0, _OPT, "When restarts > 1: the fraction of steps each start trains before the choice (rounded, "
        "at least 1 step); 1 = each start trains the whole run. restart_steps, when set, replaces it.", OURS,
        gt=0, le=1)
    # A screen validated at a number of steps (Linear B: the objective at step 500 tells the starts that
    # found the onsets) stays that long when a user shortens or lengthens the run.
    restart_steps: int = _setting(
        0, _OPT, "When restarts > 1: the steps each start trains before the choice, whatever the run's "
        "steps (at most all of them); 0 = restart_fraction x steps.", OURS, ge=0, le=MAX_STEPS)
    # Issue 49: on the dev syllabaries the objective over the pseudo-words at step 500 keeps a start no better
    # than chance; over the text where the word phase ends it keeps better ones (docs/benchmarks.md, "Which
    # start the screen keeps").
    restart_after_words: bool = _setting(
        False, _OPT, "When restarts > 1 and the run trains on its text's pseudo-words first (words_first): the "
        "starts are screened where that phase ends (after words_first steps, on the text) instead of after "
        "restart_steps. A run with no word phase (whole words, or a text without pseudo-words) screens as "
        "restart_steps says.", OURS)
    # Issue 30: on synthetic ciphers and Proto-Germanic the class start rescues some runs the paper's start
    # leaves in a bad basin and fails others, and the lower objective of the two picks the better one on
    # 30 of 36 seeds (docs/benchmarks.md, "The two trials on six seeds ...").
    restart_class_init: float = _setting(
        0.0, _OPT, "When restarts > 1: the starts after the first begin from the letters' contextual classes "
        "(as class_init, this much), where the classes say anything; the first start is the paper's. 0 = "
        "every start from the paper's random start.", OURS, ge=0, le=10)
    polish_moves: int = _setting(
        0, _OPT, "After the last step: at most this many swaps of two letters' values (with signs = "
        "syllables, of two signs' onsets or vowels), each kept only where it lowers the run's objective "
        "over the whole corpus (engine/training/polish.py). 0 = none, the paper's run.", OURS, ge=0, le=100)
    reference_null: ReferenceNull = _setting(
        "auto", _OPT, "After the last step, train the run once more against invented words with the known "
        "list's sounds, stem lengths and sound transitions (a phonotactic null, as closeness makes its nulls) "
        "and call the reading probably wrong (diagnosis 'chance') when the real list fits the text hardly "
        "better (engine/training/reference.py). auto = for letters runs (where its margin was set), on = "
        "every run, off = never, the paper's run. Doubles a run's time.", OURS,
        choices=typing.get_args(ReferenceNull))
    device: str = _setting(
        "auto", _OPT, "auto = CUDA when torch sees a GPU, else the CPU; or cpu, cuda, cuda:N.", OURS,
        choices=("auto", "cpu", "cuda"), note="or cuda:N")
    # Issue 28 item 4: a run's memory grows with its corpus's letters (benchmarks/experiments/memory_scaling.py);
    # a corpus that would exhaust the machine is refused before anything is built, in one line.
    memory_limit_gb: float = _setting(
        0.0, _OPT, "The most memory a run may expect to take (GB), estimated from its corpus's letters "
        "before training; a larger corpus is refused in one line. 0 = half of this machine's memory.", OURS,
        ge=0, le=1_000_000)
    eval_interval: int = _setting(
        250, _OPT, "Evaluate the whole corpus (matches, P@K, closeness) every this many steps "
        "(0 = only at the end).", CODE, ge=0, le=MAX_STEPS)

    # --- evaluation and reports ---
    top_k: int = _setting(
        10, _EVAL, "How many ranked stems each match keeps (the paper reports P@10).", PAPER, ge=1, le=1000)
    score_normalisation: ScoreNormalisation = _setting(
        "span", _EVAL, 'Length that divides log P(span|stem) when ranking stems (P@K, alternatives): '
        '"span" (the paper\'s phi = P(x|y)^(1/|x|)) or "stem" (the authors\' offline dumps divided by |y|).',
        PAPER, choices=typing.get_args(ScoreNormalisation))

    def __post_init__(self) -> None:
        problems = self.problems()
        if problems:
            raise SettingError(problems[0][0], "; ".join(
                p if i == 0 else f"setting {k}: {p}" for i, (k, p) in enumerate(problems)))

    def problems(self) -> list[tuple[str, str]]:
        """(key, problem) for every value out of its range and every broken cross-field rule."""
        out = []
        for name in _INFO:
            try:
                check_value(name, getattr(self, name))
            except SettingError as e:
                out.append((name, e.detail))
        bad = {k for k, _ in out}
        if not bad & {"min_span", "max_span"} and self.min_span > self.max_span:
            out.append(("min_span", f"must be at most max_span ({self.max_span}), got {self.min_span}"))
        if not bad & {"max_chunk", "max_span"} and self.max_chunk < self.max_span:
            out.append(("max_chunk", f"must be at least max_span ({self.max_span}), got {self.max_chunk}"))
        if not bad & {"chars_per_batch", "max_span"} and self.chars_per_batch < self.max_span:
            out.append(("chars_per_batch",
                        f"must be at least max_span ({self.max_span}), got {self.chars_per_batch}"))
        if not bad & {"curriculum_min_span", "min_span", "max_span"} and self.curriculum_min_span and \
                not self.min_span <= self.curriculum_min_span <= self.max_span:
            out.append(("curriculum_min_span", f"must be 0 (off) or within min_span..max_span "
                        f"({self.min_span}..{self.max_span}), got {self.curriculum_min_span}"))
        return out

    # ---- schedules ----
    def _anneal(self, step: int, start: float, end: float) -> float:
        if self.anneal_steps <= 0:
            return end
        t = min(max(step, 0), self.anneal_steps) / self.anneal_steps
        return start + (end - start) * t

    def insertion_cost(self, step: int) -> float:
        return self._anneal(step, self.insertion_cost_start, self.insertion_cost_end)

    def coverage_target(self, step: int) -> float:
        return self._anneal(step, self.coverage_start, self.coverage_end)

    def span_floor(self, step: int) -> int:
        """The shortest span trained at ``step`` (counted from 0): curriculum_min_span during the
        curriculum (settings curriculum_min_span, curriculum_fraction), min_span after it and when off."""
        if self.curriculum_min_span and step < round(self.curriculum_fraction * self.anneal_steps):
            return max(self.min_span, self.curriculum_min_span)
        return self.min_span

    def learning_rate(self, step: int) -> float:
        """The learning rate of the step taken at ``step`` (counted from 0): lr until the end of annealing,
        then linear towards lr x lr_end_fraction at the run's last step (setting steps)."""
        if self.lr_end_fraction == 1.0 or step < self.anneal_steps or self.steps <= self.anneal_steps:
            return self.lr
        t = min(step - self.anneal_steps, self.steps - self.anneal_steps) / (self.steps - self.anneal_steps)
        return self.lr * (1.0 - t * (1.0 - self.lr_end_fraction))

    @property
    def resolved_sampling(self) -> str:
        if self.sampling == "auto":
            return "sequential" if self.segmented else "ngram"
        return self.sampling

    # ---- construction ----
    def replace(self, **changes: Any) -> "Config":
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def identity(self) -> dict[str, Any]:
        """The settings that make a run what it is, for the keys of stored runs (a comparison's run
        folders, an app seed group's folder): all but the seed, and without the settings added since
        runs were first stored while they hold the value that is the behaviour from before
        (``ADDED_SETTINGS``), so that runs stored before a setting existed still count as the same, and
        without the settings of what is checked after the run (``AFTER_THE_RUN``)."""
        return {k: v for k, v in self.to_dict().items()
                if k != "seed" and k not in AFTER_THE_RUN and not (k in ADDED_SETTINGS and v == ADDED_SETTINGS[k])}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, path: str | Path | None = None) -> "Config":
        """Settings from a dict (a file, a project, a checkpoint): unknown keys, wrong types and
        out-of-range values are errors naming the key (and ``path`` when given).

        Stored configs go through here too, so one that holds a value later ranges refuse fails to
        load with that one line; the stored dict itself is never changed (see ``from_stored``)."""
        unknown = sorted(set(data) - set(_INFO))
        if unknown:
            raise InputError(f"unknown setting(s): {', '.join(map(str, unknown))}", path=path)
        try:
            clean = {key: check_value(key, value) for key, value in data.items()}
            return cls(**clean)
        except SettingError as e:
            raise SettingError(e.key, e.detail, path=path) from None

    @classmethod
    def from_stored(cls, data: Mapping[str, Any]) -> "tuple[Config, list[str]]":
        """A stored config, keeping every value that is still allowed: a key that is unknown or
        refused falls back to its default, and each such change is one line in the list returned
        (for a front end to show: "project default lr=inf is no longer allowed, using 0.2")."""
        notes: list[str] = []
        clean: dict[str, Any] = {}
        for key, value in data.items():
            if key not in _INFO:
                notes.append(f"unknown setting {key} ignored")
                continue
            try:
                clean[key] = check_value(key, value)
            except SettingError as e:
                notes.append(f"{e.problem}; using the default {_INFO[key].default!r}")
        try:
            return cls(**clean), notes
        except SettingError as e:
            return cls(), notes + [f"{e.problem}; using the default settings"]

    @classmethod
    def from_toml(cls, path: str | Path, **overrides: Any) -> "Config":
        """Read a TOML file of settings (top level or a [config] table); unknown keys are errors.
        A missing, unreadable, non-UTF-8 or non-TOML file is one InputError naming it."""
        from engine.io.text import read_input

        if Path(path).is_dir():
            raise InputError("is a folder, not a TOML file of settings", path=path)
        try:
            data = tomllib.loads(read_input(path, limit=16 * 2**20).decode("utf-8"))
        except FileNotFoundError:
            raise InputError("file not found", path=path) from None
        except IsADirectoryError:
            raise InputError("is a folder, not a TOML file of settings", path=path) from None
        except PermissionError:
            raise InputError("permission denied", path=path) from None
        except OSError as e:
            raise InputError(f"cannot read: {e.strerror or e}", path=path) from None
        except UnicodeDecodeError as e:
            raise InputError(f"not UTF-8 text (byte {e.start}: {e.object[e.start:e.start + 1]!r}); "
                             "save the settings as UTF-8 TOML", path=path) from None
        except tomllib.TOMLDecodeError as e:
            raise InputError(f"not valid TOML: {' '.join(str(e).split())}", path=path) from None
        except RecursionError:
            raise InputError("the TOML nests tables or arrays too deeply to be a file of settings",
                             path=path) from None
        if "config" in data and isinstance(data["config"], dict):
            data = data["config"]
        data.update({k: v for k, v in overrides.items() if v is not None})
        return cls.from_dict(data, path=path)

    def summary(self) -> str:
        """A short human-readable digest of the settings that differ from the defaults."""
        default = Config()
        diffs = [f"{f.name}={getattr(self, f.name)}" for f in fields(self)
                 if getattr(self, f.name) != getattr(default, f.name)]
        return ", ".join(diffs) if diffs else "paper defaults"


# ---------------------------------------------------------------------------------------------
# the metadata table and the one parser / checker


#: Settings added after runs were first stored, and the value each has when it changes nothing (the
#: behaviour from before it existed). A stored run that does not name one ran with that value
#: (Config.identity; engine.inputs_digest.changes). Add every new setting here with its neutral value.
ADDED_SETTINGS: dict[str, Any] = {"onsets_first": 0.0, "dp_precision": "double", "restart_steps": 0,
                                  "restart_class_init": 0.0, "coda_insertion": 1.0, "echo_vowel_p": 0.1,
                                  "words_first": 0, "words_spans": "whole", "feature_modifiers": False,
                                  "words_min_count": 3, "words_min_count_pair": 9, "restart_after_words": False,
                                  "words_types": False, "sign_offsets": 0.0,
                                  # the reading is the same with or without a reference run: a stored run
                                  # without the key is the run this default would make
                                  "reference_null": "auto"}
#: Settings that change what is checked after a run, not what it reads: never part of its identity (a
#: run with a reference and one without are the same run).
AFTER_THE_RUN: tuple[str, ...] = ("reference_null",)


@dataclass(frozen=True)
class SettingInfo:
    """One Config field with everything a front end shows: name, kind, default and its Setting."""

    name: str
    kind: str                 # "int", "float", "bool" or "str"
    default: Any
    setting: Setting

    @property
    def section(self) -> str:
        return self.setting.section

    @property
    def help(self) -> str:
        return self.setting.help

    @property
    def source(self) -> str:
        return self.setting.source

    @property
    def choices(self) -> tuple[str, ...]:
        return self.setting.choices

    @property
    def minimum(self) -> float | None:
        return self.setting.minimum

    @property
    def maximum(self) -> float | None:
        return self.setting.maximum

    @property
    def label(self) -> str:
        return self.name.replace("_", " ")

    @property
    def allowed(self) -> str:
        """The allowed values in words, e.g. "a finite number > 0 and <= 10"."""
        s = self.setting
        if self.kind == "bool":
            text = "true or false"
        elif self.kind == "str":
            text = "one of " + ", ".join(s.choices) if s.choices else "text"
        else:
            what = "a whole number" if self.kind == "int" else "a finite number"
            lo = hi = ""
            if s.minimum is not None:
                lo = f"{'>' if s.min_open else '>='} {_num(s.minimum)}"
            if s.maximum is not None:
                hi = f"{'<' if s.max_open else '<='} {_num(s.maximum)}"
            if self.kind == "int" and s.minimum is not None and s.maximum is not None:
                text = f"{what} from {_num(s.minimum)} to {_num(s.maximum)}"
            else:
                text = " ".join(x for x in (what, " and ".join(b for b in (lo, hi) if b)) if x)
        return f"{text} ({s.note})" if s.note else text


def _num(x: float) -> str:
    if float(x).is_integer() and abs(x) < 1e15:
        return f"{int(x):_}".replace("_", ",") if abs(x) >= 100_000 else str(int(x))
    return repr(float(x))


def _build_info() -> dict[str, SettingInfo]:
    hints = typing.get_type_hints(Config)
    out = {}
    for f in fields(Config):
        meta = f.metadata.get("setting")
        if not isinstance(meta, Setting):  # every field must say its section, help and range
            raise TypeError(f"Config.{f.name} has no Setting metadata: declare it with _setting(...)")
        hint = hints[f.name]
        kind = "str" if typing.get_origin(hint) is Literal else hint.__name__
        out[f.name] = SettingInfo(f.name, kind, f.default, meta)
    return out


_INFO: dict[str, SettingInfo] = _build_info()


def settings_info() -> tuple[SettingInfo, ...]:
    """Every Config field's metadata, in the order of the class (grouped by SECTIONS)."""
    return tuple(_INFO.values())


def setting_info(key: str) -> SettingInfo:
    """One field's metadata; SettingError naming the known keys' closest match for a typo."""
    try:
        return _INFO[key]
    except KeyError:
        import difflib
        near = difflib.get_close_matches(key, list(_INFO), n=1)
        hint = f" (did you mean {near[0]}?)" if near else ""
        raise SettingError(key, f"no such setting{hint}") from None


_DEVICE = re.compile(r"(auto|cpu|cuda(:\d{1,3})?)")


def check_value(key: str, value: Any, *, shown: str | None = None) -> Any:
    """``value`` for setting ``key`` if its type and range are allowed (ints widen to floats for
    float settings), else SettingError: ``setting KEY: must be ALLOWED, got VALUE`` (VALUE is
    ``shown`` when given: the text the user wrote)."""
    info = setting_info(key)
    s = info.setting

    def refuse() -> SettingError:
        return SettingError(key, f"must be {info.allowed}, got {shown if shown is not None else _shown(value)}")

    if info.kind == "bool":
        if not isinstance(value, bool):
            raise refuse()
        return value
    if info.kind == "str":
        if not isinstance(value, str):
            raise refuse()
        ok = _DEVICE.fullmatch(value) if key == "device" else (not s.choices or value in s.choices)
        if not ok:
            raise refuse()
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise refuse()
    if info.kind == "int":
        if isinstance(value, float):
            if not value.is_integer():
                raise refuse()
            value = int(value)
    else:
        try:
            value = float(value)
        except OverflowError:
            raise refuse() from None
        if not math.isfinite(value):
            raise refuse()
    if s.minimum is not None and (value <= s.minimum if s.min_open else value < s.minimum):
        raise refuse()
    if s.maximum is not None and (value >= s.maximum if s.max_open else value > s.maximum):
        raise refuse()
    return value


def _shown(value: Any) -> str:
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 60 else text[:57] + "..."


_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")


def parse_value(key: str, text: str) -> Any:
    """The value of setting ``key`` written as ``text`` (a ``--set`` value, a form field, a
    report's settings column), checked against its range; SettingError otherwise."""
    info = setting_info(key)
    raw = unicodedata.normalize("NFC", str(text)).strip()
    value: Any = raw
    if info.kind == "bool":
        if raw.lower() in _TRUE:
            value = True
        elif raw.lower() in _FALSE:
            value = False
    elif info.kind == "int":
        try:
            value = int(raw)
        except ValueError:
            try:  # "1e4", "3000.0": whole numbers written as floats
                f = float(raw)
                value = int(f) if math.isfinite(f) and f.is_integer() else raw
            except ValueError:
                pass
    elif info.kind == "float":
        try:
            value = float(raw)
        except ValueError:
            pass
    return check_value(key, value, shown=_shown(raw) if value is raw else raw[:60])


def parse_assignments(pairs: Iterable[str], *, what: str = "--set") -> dict[str, Any]:
    """``KEY=VALUE`` strings -> checked settings; each problem is one SettingError/InputError line."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or not key.strip():
            raise InputError(f"{what} needs KEY=VALUE, got {pair!r}")
        key = key.strip()
        out[key] = parse_value(key, text)
    return out


# ---------------------------------------------------------------------------------------------
# presets


@dataclass(frozen=True)
class Preset:
    """A named set of settings of a paper experiment, for ``--preset``, the form and new projects."""

    name: str
    title: str
    description: str
    settings: Mapping[str, Any]
    fitted_on: str
    """which gold its values were chosen against (its figures on that gold are not held-out estimates;
    docs/deviations-from-paper.md, "Choices made after seeing test numbers")"""

    def config(self, **overrides: Any) -> Config:
        return Config.from_dict({**self.settings, **overrides})


#: Settings of the paper's Ugaritic–Hebrew comparison (code: FinalUgaReal).
UGARITIC = dict(feature_dim=35, min_span=3, max_span=10, insertion_cost_start=10.0, segmented=True)

#: Settings of the Iberian runs (code: FinalXib): coverage target annealed to 0.1.
IBERIAN = dict(min_span=3, coverage_end=0.1)

#: Linear B and other syllabaries with whole words (docs/settings.md, "Presets", says why each value).
LINEAR_B = dict(signs="syllables", segmented=True, min_span=1, max_span=8, band=4, feature_dim=35,
                insertion_cost_start=10.0, onsets_first=0.5, steps=8000, lr=0.5, restarts=4,
                restart_steps=500)

#: Any syllabary, written with or without word dividers (issue 49; docs/settings.md, "Presets", says where
#: each value comes from). Whole words (``segmented``) describe the data, not the script: a word list adds
#: ``--set segmented=true``.
SYLLABARY = dict(signs="syllables", min_span=2, max_span=8, band=4, feature_dim=35, coda_insertion=0.0,
                 echo_vowel_p=1.0, onsets_first=0.5, lr=0.5, vowel_slot="joint", restarts=4, restart_steps=500,
                 restart_after_words=True, words_first=1500, words_types=True, sound_loss_weight=30.0,
                 sign_offsets=0.01)

PRESET_INFO: dict[str, Preset] = {p.name: p for p in (
    Preset("paper", "Paper defaults (Gothic)",
           "The paper's settings for Gothic and most experiments: spans of 4 to 10 letters, insertion "
           "penalty annealed 0 -> 3.5, coverage target 1.0 -> 0.5.", {},
           "no gold here: the paper's and the authors' values; the default ranking of stems (score_normalisation "
           "span, every preset's) was chosen on the Ugaritic–Hebrew small set's gold"),
    Preset("ugaritic", "Ugaritic–Hebrew",
           "The paper's Ugaritic comparison (code: FinalUgaReal): whole words as spans (segmented), "
           "3 to 10 letters, 35-d feature embeddings, insertion penalty annealed 10 -> 3.5.", UGARITIC,
           "no gold here: the authors' FinalUgaReal values; its Ugaritic–Hebrew figures use the ranking of stems "
           "chosen on that gold (small set), and candidate_stems 1 and restarts 2 for the full set were chosen on "
           "the full set's gold (neither is in the preset)"),
    Preset("iberian", "Iberian",
           "The Iberian runs (code: FinalXib): spans of 3 to 10 letters, coverage target annealed "
           "1.0 -> 0.1 (Iberian words are rarely cognates).", IBERIAN,
           "no gold: the authors' FinalXib values (Iberian has no gold to fit on)"),
    Preset("linear-b", "Linear B (syllabary)",
           "A syllabary written in whole words (Linear B and its kind): each sign an onset and a vowel "
           "(signs = syllables); words of 1 to 8 signs (the longest Linear B word of the NeuroCipher list "
           "has 8); band 4, because the spelling leaves out codas and final consonants (a Greek word is "
           "up to 4 units longer than its two slots a sign); the Ugaritic run's 35-d embeddings and "
           "insertion penalty 10 -> 3.5; the signs' onsets learned alone for the first 1,000 of the 2,000 "
           "annealing steps, then onsets and vowels (onsets_first 0.5: from scratch, without it, the search "
           "stayed at chance); 8,000 steps, because the vowels are still being learned at 3,000 (on Linear B "
           "the seeds that have not found the whole grid by then go on gaining; docs/benchmarks.md); learning "
           "rate 0.5 (the paper's 0.2): in the onset phase 27 of 30 starts find the signs' onsets at 0.5, 2 of "
           "31 at 0.2; 4 starts of 500 steps (restarts 4, restart_steps 500, whatever the run's steps), the one with the lowest "
           "objective over the corpus kept and continued: a start that finds the onsets stands apart in that "
           "objective at step 500, and 4 starts miss them all about once in 10,000 runs at the rate measured "
           "(once in 230 at the low end of its 95 % interval; docs/benchmarks.md, \"Linear B read from its "
           "signs\").",
           LINEAR_B,
           "the NeuroCipher Linear B–Greek cognates' gold: band, spans, onsets_first, steps, lr 0.5 (raised after "
           "seed 0 of the 64-start preset missed) and the starts were chosen on it, so its Linear B figures are "
           "in-sample; for another syllabary use the preset syllabary"),
    Preset("syllabary", "Syllabary (any)",
           "Any syllabary, with or without word dividers: each sign an onset and a vowel (signs = syllables); "
           "spans of 2 to 8 signs (a word of one sign would match everywhere in a text with few dividers); a "
           "sign scored as P(sign | onset, vowel), normalised over the signs as the paper's P(lost | known) is "
           "over the letters (vowel_slot joint: the other scoring preferred wrong readings rich in rare vowels "
           "on the invented syllabaries); band 4 (the spelling leaves out codas); a coda written with a sign of "
           "its own (an echo or a dummy vowel, as Linear B's ko-no-so) costs what its onset costs, no insertion "
           "penalty and no price on its vowel (coda_insertion 0, echo_vowel_p 1), and the insertion penalty "
           "rises from 0 to 3.5 (the paper's default): with either price the search stayed far from the reading "
           "of every invented syllabary that writes a coda so; the Ugaritic run's 35-d "
           "embeddings; the onsets learned before the vowels for the first "
           "half of annealing (onsets_first 0.5); learning rate 0.5; 4 starts, the one with the lowest "
           "objective over the corpus kept and continued; a text with few or no dividers is trained on "
           "its pseudo-words whole for the first 1,500 steps (words_first: the recurring pieces a unigram model "
           "cuts it into; with free spans from the first step the search matched pairs of signs to anything), "
           "each distinct pseudo-word once (words_types: trained on every place the text has them, its few common "
           "words set the mapping and the starts missed the reading), "
           "then on free spans, and its starts are screened where the word phase ends, on the text "
           "(restart_after_words: the objective over the pseudo-words at step 500 kept a start hardly better "
           "than one drawn at random); a word list's starts are screened at step 500; Omega_loss weighed 30, "
           "not the paper's 100: a known "
           "language with more vowels than the script writes (Hungarian's nine on five) has more (onset, vowel) "
           "pairs than signs, the right reading gives a sign several of them, and at 100 the search did not find "
           "it even on the word list; each sign's onset and vowel scores with a free offset of their own, paid "
           "for at 0.01 (sign_offsets: through the features alone k, kʰ and kʷ are one embedding, and the rare "
           "signs fell back to their common neighbours). A word list (one word an inscription) adds "
           "segmented = true (words_first then does nothing).",
           SYLLABARY,
           "the invented syllabaries' dev ciphers (issue 49) for vowel_slot joint, the spans (the right "
           "reading, pinned then released, scores better than the unpinned run on 8 of the 10 of them) and the "
           "written codas' prices with the insertion penalty from 0 (their word lists), and words_first 1500 with its "
           "pieces kept (3 signs or more seen 3 times, pairs 9 times: dev-s-latin-1 and dev-s-spanish-1's pseudo-words "
           "against their gold words; 1,500 steps, because the gold's own words read latin-1's running text after "
           "1,500 steps and not after 500), and sound_loss_weight 30 (one value tried against the paper's 100, on "
           "the Hungarian and Turkish dev word lists and the ten dev texts), and restart_after_words (16 single "
           "starts of each of eight dev texts, then the ten dev texts over two seeds), and words_types (40 single "
           "starts of the ten dev texts, then the ten dev texts over two seeds), and sign_offsets 0.01 (three weights on "
           "four dev texts at one seed, then the ten dev texts over two seeds); "
           "band, onsets_first, lr 0.5 and the 4 starts of 500 steps are the linear-b preset's, chosen on the "
           "Linear B gold, so its Linear B figures are not held-out either; the dev syllabaries' word lists that were "
           "tried are read with it, their running text in part (docs/benchmarks.md, \"Invented ciphers\")"),
)}

PRESETS = {name: dict(p.settings) for name, p in PRESET_INFO.items()}


def presets_help(what: str = "settings of a paper experiment") -> str:
    """``--preset``'s help: each preset with the gold its values were fitted on."""
    return what + ": " + "; ".join(f"{p.name} (fitted on {p.fitted_on})" for p in PRESET_INFO.values())


def settings_markdown() -> str:
    """docs/settings.md: every setting with its default, allowed values, source and help, by section,
    then the presets (``python -m engine.config > docs/settings.md``)."""
    lines = ["# Run settings", "",
             "Generated from the field metadata of `engine/config.py` by `python -m engine.config`; "
             "`--set KEY=VALUE`, `--config FILE.toml` and the app's run form all accept exactly these "
             "values. Source: where the default comes from (the paper, the authors' code, or ours).", ""]
    for section in SECTIONS:
        lines += [f"## {section}", "", "| setting | default | allowed | source | meaning |",
                  "|---|---|---|---|---|"]
        for info in settings_info():
            if info.section == section:
                cells = [f"`{info.name}`", f"`{info.default!r}`" if info.kind == "str" else f"`{info.default}`",
                         info.allowed, info.source, info.help]
                lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
        lines.append("")
    lines += ["## Ranges and stored settings", "",
              "* Numbers must be finite. Upper bounds are generous multiples of the paper's values, set "
              "where a larger value cannot train: `lr` <= 10 (50 x the paper's 0.2; with gradients clipped "
              "to norm 1 one step then moves the parameters 200 x their initial range), `temperature` >= 0.01 "
              "(below it the softmax is one-hot from the first step). A value inside a range that still makes "
              "the loss or the parameters non-finite is stopped by the training loop.",
              "* `min_span <= max_span <= max_chunk`, and `chars_per_batch >= max_span`.",
              "* Seeds are 0 to 2**32 - 1 (what numpy, torch and Python's random all accept).",
              "* Settings stored in a project or a checkpoint are checked when they are loaded; one that "
              "holds a value these ranges refuse is kept as stored, listed with a note naming the key, and "
              "cannot be resumed until the value is changed (`Config.from_stored` gives the app the usable "
              "rest, with a note per value that fell back to its default).", ""]
    lines += ["## Presets (`--preset NAME`)", "", "| preset | settings | description |", "|---|---|---|"]
    for p in PRESET_INFO.values():
        settings = ", ".join(f"`{k}={v}`" for k, v in p.settings.items()) or "(the defaults)"
        lines.append(f"| `{p.name}` ({p.title}) | {settings} | {p.description} Fitted on: {p.fitted_on}. |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(settings_markdown(), end="")


# ---- settings from a front end's options ------------------------------------------------------

FLAG_SETTINGS = ("steps", "seed", "device", "segmented")
"""Settings that the command line also takes as their own flags (``--steps 500``)."""


def config_from_options(*, preset: str | None = None, config_file: Path | str | None = None,
                        assignments: Iterable[str] = (), stored: Mapping[str, Any] | None = None,
                        **flags: Any) -> Config:
    """The settings of a run from a front end's options: the preset, then the TOML file (the
    preset wins over it), then ``KEY=VALUE`` assignments, then the flags (``steps``, ``seed``,
    ``device``, ``segmented``; None means not given). ``stored``: a project's run settings, the
    base instead of the paper's defaults when neither a preset nor a TOML file is given (as the
    app's Run panel starts from them). Every value is checked; errors name the key (and the file)."""
    base: dict = dict(PRESETS.get(preset or "paper", {}))
    if stored and not preset and not config_file:
        base = dict(stored)
    if config_file:
        base.update(Config.from_toml(config_file).to_dict())
        base.update(PRESETS.get(preset, {}) if preset else {})
    base.update(parse_assignments(assignments))
    base.update(_given_flags(flags))
    return Config.from_dict(base)


def resume_overrides(*, preset: str | None = None, config_file: Path | str | None = None,
                     assignments: Iterable[str] = (), **flags: Any) -> dict[str, Any]:
    """For a resumed run, the settings the user gave explicitly (the run keeps its own for the
    rest, its target number of steps included). A TOML file or a preset counts as every setting."""
    if config_file or preset:
        return config_from_options(preset=preset, config_file=config_file, assignments=assignments,
                                   **flags).to_dict()
    return {**parse_assignments(assignments), **_given_flags(flags)}


def _given_flags(flags: dict[str, Any]) -> dict[str, Any]:
    unknown = set(flags) - set(FLAG_SETTINGS)
    if unknown:
        raise TypeError(f"not a flag setting: {', '.join(sorted(unknown))}")
    return {k: v for k, v in flags.items() if v is not None}
