"""What a run's settings make impossible, said before it trains (issue 25 item 5): each check is one
line, never one line per row, and every front end shows the same lines (``decipher run`` on stderr
before the progress bar, the app in its Run panel). The run itself is not refused: these are
settings a user may choose on purpose.

* a lost script of more than ALPHABET_SIGNS distinct signs trained with ``signs = letters``: it is
  most likely a syllabary (Linear B has ~90 signs), which the letter model cannot read;
* gold rows whose lost word and known stem cannot meet under the span limits (``min_span``,
  ``max_span``) and the DP's ``band``: counted per cause, with the setting to change;
* ``steps`` shorter than ``anneal_steps``: the annealed schedules stop part-way (their last values
  are named).

Gold rows none of whose forms is in the known vocabulary are left out of the count: the gold
reader's check (engine/io/goldcheck.py) already says so.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from engine.config import PRESET_INFO, Config
from engine.corpus import DIVIDER, Corpus, GoldAnnotation, Vocabulary
from engine.model.script import script_of

#: More distinct signs than this and the script is unlikely to be an alphabet (the largest
#: alphabets in use have ~35 letters; syllabaries such as Linear B ~90 signs).
ALPHABET_SIGNS = 40

PREFIX = "warning: "


def run_warnings(corpus: Corpus, vocabulary: Vocabulary | None, gold: Sequence[GoldAnnotation],
                 config: Config) -> list[str]:
    """The warnings of a run on ``corpus`` against ``vocabulary`` with ``gold`` under ``config``:
    one line each, starting ``warning:``; an empty list when there is nothing to say."""
    out = []
    line = alphabet_warning(corpus, config)
    if line:
        out.append(line)
    if gold and vocabulary is not None:
        line = gold_reach_warning(corpus, vocabulary, gold, config)
        if line:
            out.append(line)
    line = schedule_warning(config)
    if line:
        out.append(line)
    return out


# ---- too many signs for an alphabet -----------------------------------------------------------


def lost_signs(corpus: Corpus) -> int:
    """How many distinct signs (units) the corpus's inscriptions use, dividers aside."""
    seen: set[str] = set()
    for ins in corpus.inscriptions:
        seen.update(ins.units)
    seen.discard(DIVIDER)
    return len(seen)


def alphabet_warning(corpus: Corpus, config: Config) -> str | None:
    if not script_of(config).alphabet:
        return None
    n = lost_signs(corpus)
    if n <= ALPHABET_SIGNS:
        return None
    preset = " or the preset syllabary (--preset syllabary)" if "syllabary" in PRESET_INFO else ""
    return (f"{PREFIX}the lost script has {n} distinct signs, more than an alphabet has ({ALPHABET_SIGNS}): "
            f"if each sign writes a syllable, the letter model (signs = letters) cannot read it; train with "
            f"--set signs=syllables{preset}")


# ---- gold rows the span limits rule out ---------------------------------------------------------

#: the causes, in the order the warning names them
SHORT_WORD, LONG_WORD, LONG_STEM, SHORT_STEM = "short word", "long word", "long stem", "short stem"


def _stem_units(vocabulary: Vocabulary) -> dict[str, list[tuple[str, ...]]]:
    """form -> the IPA units of each stem written so (a stem whose IPA does not read is left out:
    the run's preparation refuses it in its own words)."""
    from engine.model.phonology import ipa_units

    out: dict[str, list[tuple[str, ...]]] = {}
    for stem in vocabulary.stems:
        try:
            units = tuple(ipa_units(stem.ipa))
        except Exception:  # noqa: BLE001 - not IPA: said elsewhere, not a span-limit problem
            continue
        out.setdefault(stem.form, []).append(units)
    return out


def gold_reach_causes(corpus: Corpus, vocabulary: Vocabulary, gold: Sequence[GoldAnnotation],
                      config: Config) -> tuple[int, dict[str, list[int]]]:
    """(gold rows with a stem in the vocabulary, cause -> one value per row that cannot meet any of
    its stems under ``config``: for a word too long or too short, its length in signs; for a stem
    too long or too short, the smallest band that reaches it with the same spans, or None when no
    band does). A row is reachable when some span that starts at its start and ends by its word end
    (the whole word when ``segmented``) can be aligned to one of its stems:
    Script.reachable (engine/model/script.py)."""
    script = script_of(config)
    units_of = _stem_units(vocabulary)
    counted = 0
    causes: dict[str, list[int | None]] = {}
    lo_stem, hi_stem = script.stem_length_range(config)
    for g in gold:
        stems = [u for form in g.known for u in units_of.get(form, ())]
        if not stems:
            continue  # not in the vocabulary: the gold check says so
        counted += 1
        word = g.word_end - g.start
        lengths = [word] if config.segmented else list(range(1, word + 1))
        if any(script.reachable(n, u, config) for n in lengths for u in stems):
            continue
        allowed = [n for n in lengths if config.min_span <= n <= config.max_span]
        need: int | None = word
        if not allowed:
            cause = SHORT_WORD if max(lengths) < config.min_span else LONG_WORD
        else:
            lo = script.dp_length(min(allowed)) - config.band
            hi = script.dp_length(max(allowed)) + config.band
            ms = [len(script.stem_dp_units(u)) for u in stems]
            # the stem closest to fitting says which way it misses
            if min(ms) > min(hi, hi_stem):
                cause = LONG_STEM
            elif max(ms) < max(lo, lo_stem):
                cause = SHORT_STEM
            else:
                cause = LONG_STEM if sum(m > hi for m in ms) >= sum(m < lo for m in ms) else SHORT_STEM
            need = _band_needed(allowed, stems, config)
        causes.setdefault(cause, []).append(need)
    return counted, causes


def _band_needed(lengths: Sequence[int], stems: Sequence[tuple[str, ...]], config: Config) -> int | None:
    """The smallest band under which some span length of ``lengths`` (all within the span limits)
    reaches one of ``stems``; None when none up to the largest band allowed does."""
    script = script_of(config)
    best = None
    for units in stems:
        m = len(script.stem_dp_units(units))
        for n in lengths:
            b = script.band_for(m, n, config)
            if b is not None:
                best = b if best is None else min(best, b)
    if best is None or best > 100:
        return None
    wider = config.replace(band=best)
    if not any(script.reachable(n, u, wider) for n in lengths for u in stems):
        return None   # never guess: only a band that is checked to reach the row is named
    return best


def _to(values: Sequence[int | None], pick) -> str:
    """``, to 6 for them all`` when every row names a value, else ''."""
    if not values or any(v is None for v in values):
        return ""
    return f", to {pick(values)} for them all"


def gold_reach_warning(corpus: Corpus, vocabulary: Vocabulary, gold: Sequence[GoldAnnotation],
                       config: Config) -> str | None:
    counted, causes = gold_reach_causes(corpus, vocabulary, gold, config)
    if not causes:
        return None
    unit = script_of(config).unit
    parts = []
    for cause in (LONG_WORD, SHORT_WORD, LONG_STEM, SHORT_STEM):
        words = causes.get(cause)
        if not words:
            continue
        n = len(words)
        have = "has" if n == 1 else "have"
        if cause == LONG_WORD:
            parts.append(f"{n} {have} lost words longer than max_span = {config.max_span} {unit} "
                         f"(raise max_span{_to(words, lambda v: min(max(v), 100))})")
        elif cause == SHORT_WORD:
            parts.append(f"{n} {have} lost words shorter than min_span = {config.min_span} {unit} "
                         f"(lower min_span{_to(words, lambda v: max(min(v), 1))})")
        else:
            other = "max_span" if cause == LONG_STEM else "lower min_span"
            size = "long" if cause == LONG_STEM else "short"
            band = _to(words, max)
            fix = f"raise band{band}" if band else f"raise band or {other}"
            parts.append(f"{n} {have} known stems too {size} for their lost words within band = {config.band} ({fix})")
    total = sum(len(w) for w in causes.values())
    how = f"signs = {config.signs}, min_span = {config.min_span}, max_span = {config.max_span}, band = {config.band}"
    return f"{PREFIX}{total} of {counted} gold rows cannot be matched under these settings ({how}): " + "; ".join(parts)


# ---- a run shorter than its schedule ------------------------------------------------------------


def _schedules(config: Config) -> Iterable[str]:
    last = config.steps
    if config.insertion_cost_start != config.insertion_cost_end:
        yield f"the insertion penalty ends at {config.insertion_cost(last):.3g} instead of {config.insertion_cost_end:g}"
    if config.coverage_start != config.coverage_end:
        yield f"the coverage target ends at {config.coverage_target(last):.3g} instead of {config.coverage_end:g}"


def schedule_warning(config: Config) -> str | None:
    if config.steps >= config.anneal_steps:
        return None
    share = config.steps / config.anneal_steps
    way = f"{share:.0%}" if share == 0 or share >= 0.01 else "less than 1%"
    ends = ", ".join(_schedules(config))
    return (f"{PREFIX}steps = {config.steps} is shorter than anneal_steps = {config.anneal_steps}: the annealing "
            f"stops {way} of the way" + (f": {ends}" if ends else "") +
            f"; raise --steps to {config.anneal_steps} or lower anneal_steps (--set anneal_steps={config.steps})")


__all__ = ["run_warnings", "alphabet_warning", "gold_reach_warning", "gold_reach_causes", "schedule_warning",
           "lost_signs", "ALPHABET_SIGNS"]
