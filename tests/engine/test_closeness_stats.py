"""Issue 26, items 3, 4 and 6 without training: the phonotactic null (what it keeps, that no real
stem survives), the statistics of the verdict on fixed numbers (the margin's standard error, the t
test, Holm's correction) and the answer in words."""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest

from engine.closeness.comparison import (ALPHA, CLOSER, NO_EVIDENCE, TOO_FEW, UNTESTED, PlanItem, ScoredRun, CandidateRun,
                               answer_lines, caveats, holm, holm_verdict, margin_se, plan_comparison, restart_seed,
                               summarise, t_quantile, t_sf)
from engine.config import Config
from engine.corpus import Corpus, Inscription, Stem, Vocabulary
from engine.errors import DecipherError
from engine.closeness.nulls import DEFAULT_NULL_MODE, END, START, bigram_counts, null_vocabularies, null_vocabulary
from engine.model.phonology import ipa_units

LOST = Corpus("lost", (Inscription("1", "abcabc", raw="abcabc"),))


def _shaped(n: int, seed: int, name: str = "shaped") -> Vocabulary:
    """Stems of strict shapes: p/t/k first, then vowel + (m n l r + vowel)*, s or n last at odd lengths."""
    rng = random.Random(seed)
    forms: dict[str, None] = {}
    while len(forms) < n:
        k = rng.randint(4, 7)
        units = [rng.choice("ptk"), rng.choice("aiu")]
        while len(units) < k - k % 2:
            units += [rng.choice("mnlr"), rng.choice("aiu")]
        if k % 2:
            units.append(rng.choice("sn"))
        forms.setdefault("".join(units), None)
    return Vocabulary(name, tuple(Stem(f, f, "g") for f in forms))


def _units(vocab: Vocabulary) -> list[tuple[str, ...]]:
    return [tuple(ipa_units(s.ipa)) for s in vocab.stems]


# ---- the phonotactic null ----------------------------------------------------------------------

def test_the_phonotactic_null_is_the_default_and_removes_every_stem():
    vocab = _shaped(60, 1)
    assert DEFAULT_NULL_MODE == "phonotactic"
    real = set(_units(vocab))
    for null in null_vocabularies(vocab, 5, seed=3, mode="phonotactic"):
        units = _units(null)
        assert [len(u) for u in units] == [len(u) for u in _units(vocab)]  # every stem's length kept
        assert not set(units) & real                                     # no real stem survives
        assert len(set(units)) == len(units)                             # and no null stem twice
        assert {s.gloss for s in null.stems} == {""}


def test_the_phonotactic_null_keeps_starts_ends_and_which_sound_follows_which():
    vocab = _shaped(80, 2)
    real = bigram_counts(_units(vocab))
    nulls = null_vocabularies(vocab, 20, seed=0, mode="phonotactic")
    pooled = bigram_counts([u for n in nulls for u in _units(n)])
    # nothing the candidate lacks: every start, end and transition of a null is one of the candidate's
    assert set(pooled) <= set(real)

    def dist(counts: Counter, first: str) -> dict[str, float]:
        row = {b: n for (a, b), n in counts.items() if a == first}
        total = sum(row.values())
        return {b: n / total for b, n in row.items()}

    # the distributions themselves: which sounds start words, which end them, what follows a vowel
    starts_r, starts_n = dist(real, START), dist(pooled, START)
    assert set(starts_n) == {"p", "t", "k"}
    assert all(abs(starts_n[u] - starts_r[u]) < 0.05 for u in starts_r)
    for unit in ("a", "m", "l"):
        r, n = dist(real, unit), dist(pooled, unit)
        assert all(abs(n.get(b, 0) - p) < 0.07 for b, p in r.items()), unit
    ends_r = Counter(u[-1] for u in _units(vocab))
    ends_n = Counter(u[-1] for n in nulls for u in _units(n))
    assert set(ends_n) <= set(ends_r)
    assert all(abs(ends_n[u] / sum(ends_n.values()) - c / len(vocab.stems)) < 0.05 for u, c in ends_r.items())


def test_the_skeleton_null_breaks_what_the_phonotactic_null_keeps():
    """The reason for the new null: a skeleton null puts medial consonants at a word's start."""
    vocab = _shaped(60, 4)
    skeleton = null_vocabulary(vocab, 0, 0, mode="skeleton")
    phonotactic = null_vocabulary(vocab, 0, 0, mode="phonotactic")
    assert {u[0] for u in _units(skeleton)} - {"p", "t", "k"}
    assert {u[0] for u in _units(phonotactic)} <= {"p", "t", "k"}


def test_the_phonotactic_null_is_deterministic_and_differs_by_index():
    vocab = _shaped(40, 5)
    assert null_vocabulary(vocab, 1, 2, mode="phonotactic") == null_vocabulary(vocab, 1, 2, mode="phonotactic")
    assert null_vocabulary(vocab, 1, 2, mode="phonotactic") != null_vocabulary(vocab, 1, 3, mode="phonotactic")


def _within_one(a: tuple, b: tuple) -> bool:
    """One unit replaced, added or left out (or none): written out plainly, unlike the null's index."""
    if a == b:
        return True
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b)) == 1
    short, long_ = sorted((a, b), key=len)
    return len(long_) - len(short) == 1 and any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


def test_the_distant_null_has_no_word_within_one_sound_of_a_real_stem_where_the_phonotactic_one_does():
    vocab = _shaped(80, 6)
    real = _units(vocab)
    def near(null, least=0):
        return sum(any(_within_one(u, r) for r in real) for u in _units(null) if len(u) >= least)

    phonotactic = null_vocabulary(vocab, 0, 0, mode="phonotactic")
    distant = null_vocabulary(vocab, 0, 0, mode="distant")
    assert near(phonotactic, 5) > 5       # strict shapes make near-words, which the phonotactic null keeps
    assert near(distant, 5) == 0
    # of 4 units these shapes allow 108 words, and every new one is near one of the 20 real ones: kept
    assert 0 < near(distant) < near(phonotactic)
    # what the phonotactic null keeps, the distant one keeps too
    assert [len(u) for u in _units(distant)] == [len(u) for u in real]
    assert set(bigram_counts(_units(distant))) <= set(bigram_counts(real))
    assert len(set(_units(distant))) == len(real)
    assert null_vocabulary(vocab, 0, 0, mode="distant") == distant


def test_where_only_near_words_are_new_the_distant_null_keeps_one_never_a_real_stem():
    # of 2 units only "ti" is new, and it is one sound from "pi" and "ta": kept, as nothing distant exists
    vocab = Vocabulary("few", tuple(Stem(f, f) for f in ("pa", "pi", "ta", "tin")))
    null = null_vocabulary(vocab, 0, 0, mode="distant")
    assert "ti" in [s.ipa for s in null.stems]
    assert not {s.ipa for s in null.stems} & {"pa", "pi", "ta", "tin"}


def test_a_vocabulary_whose_patterns_allow_no_new_word_is_one_clear_error():
    # START->p/a, p->a, a->p, p/a->END: the only words of 2 units are pa and ap, both real
    vocab = Vocabulary("tiny", (Stem("pa", "pa"), Stem("ap", "ap")))
    with pytest.raises(DecipherError, match="tiny: no phonotactic null stem of 2 units"):
        null_vocabulary(vocab, 0, 0, mode="phonotactic")


def test_too_few_new_words_repeat_a_null_stem_never_a_real_one():
    # of 2 units only "ti" is new (t->i from tin, i->END from pi); of 3 units only "pin"
    vocab = Vocabulary("few", tuple(Stem(f, f) for f in ("pa", "pi", "ta", "tin")))
    null = null_vocabulary(vocab, 0, 0, mode="phonotactic")
    assert [s.ipa for s in null.stems] == ["ti", "ti", "ti", "pin"]
    assert END not in "".join(s.ipa for s in null_vocabulary(_shaped(30, 6), 0, 0, mode="phonotactic").stems)


# ---- the statistics on fixed numbers -----------------------------------------------------------

def test_t_distribution_against_tabled_values():
    assert t_sf(0.0, 5) == pytest.approx(0.5)
    assert t_sf(1.0, 1) == pytest.approx(0.25)                 # Cauchy: 1/2 - atan(1)/pi
    assert t_sf(2.0, 4) == pytest.approx(0.05806, abs=1e-5)
    assert t_sf(-2.0, 4) == pytest.approx(1 - 0.05806, abs=1e-5)
    assert t_quantile(0.975, 4) == pytest.approx(2.7764, abs=1e-4)
    assert t_quantile(0.975, 1) == pytest.approx(12.7062, abs=1e-3)
    assert t_quantile(0.95, 10) == pytest.approx(1.8125, abs=1e-4)
    assert math.isnan(t_sf(math.nan, 3)) and t_sf(math.inf, 3) == 0.0


def test_the_margin_standard_error_counts_both_means():
    assert margin_se(0.03, 3, 3) == pytest.approx(0.03 * math.sqrt(2 / 3))
    assert margin_se(0.02, 4, 1) == pytest.approx(0.02 * math.sqrt(1.25))
    assert math.isnan(margin_se(0.02, 3, 0)) and math.isnan(margin_se(math.nan, 3, 3))


def test_holm_on_fixed_p_values():
    # sorted 0.01, 0.03, 0.04 of m = 3: 3 x 0.01, max(0.03, 2 x 0.03), max(0.06, 1 x 0.04)
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    adjusted = holm([0.02, math.nan, 0.5])  # an untested candidate does not count
    assert adjusted[0] == pytest.approx(0.04) and math.isnan(adjusted[1]) and adjusted[2] == pytest.approx(0.5)
    assert holm([0.4, 0.3]) == pytest.approx([0.6, 0.6])  # monotone: 0.4 is not adjusted below 0.6
    assert holm([0.9, 0.8]) == [1.0, 1.0]  # never above 1
    assert holm([]) == []


def test_holm_verdict():
    assert holm_verdict(ALPHA, 9) == CLOSER and holm_verdict(0.051, 9) == NO_EVIDENCE
    assert holm_verdict(math.nan, 0) == UNTESTED and holm_verdict(0.01, 1) == TOO_FEW


def _vocab(name: str, seed: int) -> Vocabulary:
    return _shaped(20, seed, name)


def _rec(known, null, seed, score, steps=10, anneal=5):
    item = PlanItem(known, seed, null, LOST, _vocab(known, 1), Config(seed=restart_seed(seed, 0), anneal_steps=anneal))
    curve = tuple((1 - p / 40, 2 * score * (p / 40)) for p in range(41))
    return ScoredRun(item, CandidateRun(curve, 0.5, steps, 1.0), score)


#: 3 candidates x 3 seeds x 3 nulls, fixed scores (each null: one score per seed)
SCORES = {"a": ([0.40, 0.42, 0.41], [[0.20, 0.21, 0.22], [0.19, 0.20, 0.21], [0.21, 0.22, 0.20]]),
          "b": ([0.235, 0.245, 0.255], [[0.20, 0.22, 0.21], [0.21, 0.23, 0.22], [0.19, 0.24, 0.20]]),
          "c": ([0.22, 0.19, 0.21], [[0.20, 0.22, 0.21], [0.18, 0.23, 0.21], [0.21, 0.19, 0.20]])}


def _comparison(scores=SCORES, seeds=(0, 1, 2), n_null=3, steps=10, anneal=5):
    plan = plan_comparison(LOST, {k: _vocab(k, i + 1) for i, k in enumerate(scores)}, seeds=seeds, n_null=n_null,
                           config=Config(min_span=3, max_span=8))
    records = []
    for k, (own, nulls) in scores.items():
        records += [_rec(k, None, s, v, steps, anneal) for s, v in zip(seeds, own)]
        records += [_rec(k, i, s, v, steps, anneal) for i, vals in enumerate(nulls) for s, v in zip(seeds, vals)]
    return summarise(plan, records)


def test_the_verdict_on_fixed_numbers():
    import statistics

    c = _comparison()
    by = {s.known: s for s in c.summaries}
    # by hand for b: s = the larger of its null sd (own vs pooled) and its seeds' sd
    b = by["b"]
    own_nulls = [v for vals in SCORES["b"][1] for v in vals]
    assert b.margin == pytest.approx(0.245 - statistics.fmean(own_nulls))
    s = max(b.null_sd, statistics.stdev(SCORES["b"][0]))
    assert b.margin_se == pytest.approx(s * math.sqrt(1 / 3 + 1 / 3))
    assert b.df == 4 and b.n_null == 3 and b.n_seeds == 3 and b.n_null_runs == 9
    assert b.t == pytest.approx(b.margin / b.margin_se)
    assert b.p_t == pytest.approx(t_sf(b.t, 4))
    lo, hi = b.margin_interval
    assert (lo + hi) / 2 == pytest.approx(b.margin)
    assert hi - lo == pytest.approx(2 * t_quantile(0.95, 4) * b.margin_se)  # 90 %: the lower end is one-sided 95 %
    assert 0 < lo and b.p_t < ALPHA  # the interval is not corrected for the number of candidates ...
    # Holm over the three candidates decides
    assert [s.p_holm for s in c.summaries] == pytest.approx(holm([s.p_t for s in c.summaries]))
    assert by["a"].verdict == CLOSER and by["c"].verdict == NO_EVIDENCE
    # b: p_t below 0.05, but not after the correction for 3 candidates
    assert b.p_t < ALPHA < b.p_holm and b.verdict == NO_EVIDENCE
    # ... but "closer than chance" always has its interval above 0 (Holm only raises a p)
    assert all(s.margin_interval[0] > 0 for s in c.summaries if s.verdict == CLOSER)


def test_the_summary_csv_has_the_margin_its_interval_and_holm(tmp_path):
    import csv

    from engine.closeness.comparison import write_comparison

    c = _comparison()
    write_comparison(tmp_path, c, plot=False)
    with open(tmp_path / "summary.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [r["known"] for r in rows] == ["a", "b", "c"]
    a = rows[0]
    assert float(a["margin_lo"]) < float(a["margin"]) < float(a["margin_hi"])
    assert float(a["p_holm"]) <= ALPHA and a["verdict"] == CLOSER and a["df"] == "4"
    answer = (tmp_path / "answer.txt").read_text(encoding="utf-8")
    assert "1. a: closer than chance" in answer and "3. c: no evidence" in answer


def test_the_answer_in_words():
    lines = answer_lines(_comparison())
    assert "ranked by margin over their own" in lines[0] and "Holm-corrected over 3 candidates" in lines[0]
    assert lines[1].startswith("1. a: closer than chance — score 0.410, margin +0.")
    assert lines[2].startswith("2. b: no evidence") and "[" in lines[2] and ", p " in lines[2]
    assert lines[3].startswith("3. c: no evidence")
    meaning = lines[4]
    assert meaning.startswith("What it means:") and "does not prove a relation" in meaning
    assert not [line for line in lines if line.startswith("Caveat")]  # 10 steps past annealing's 5, 3 x 3


def test_candidates_rank_by_their_margin_over_their_own_null_not_by_score():
    """A list whose form covers the text well scores high whatever its words, and so do its nulls (issue 26 item 5): the
    answer ranks by the margin, so a higher score over a higher null comes second."""
    short = ([0.300, 0.302, 0.298], [[0.290, 0.292, 0.289]] * 3)     # score 0.300, null 0.290: margin 0.010
    related = ([0.250, 0.252, 0.249], [[0.180, 0.182, 0.179]] * 3)   # score 0.250, null 0.180: margin 0.070
    c = _comparison({"short": short, "related": related})
    assert [s.known for s in c.summaries] == ["related", "short"]
    assert c.summaries[1].score_mean > c.summaries[0].score_mean
    lines = answer_lines(c)
    assert lines[1].startswith("1. related:") and lines[2].startswith("2. short:")
    no_null = _comparison({"short": (short[0], []), "related": (related[0], [])}, n_null=0)
    assert [s.known for s in no_null.summaries] == ["short", "related"]   # no null: by score, and said so
    assert "ranked by score against" in answer_lines(no_null)[0]
    # nothing tested: no "Holm-corrected over 0 candidates" (the app's caption said so), but why there is no p
    assert "Holm" not in answer_lines(no_null)[0] and "no candidate has the null runs a test needs" in answer_lines(no_null)[0]


def test_caveats_for_short_runs_and_too_few_nulls():
    short = _comparison(steps=10, anneal=2000)
    assert any("before the model’s annealing schedule ended (2000 steps)" in c for c in caveats(short))
    few = {k: (own[:2], nulls[:2]) for k, (own, nulls) in SCORES.items()}
    c = _comparison(few, seeds=(0, 1), n_null=2)
    assert any("only 2 seeds × 2 nulls" in x for x in caveats(c))
    assert any(line.startswith("Caveat: only 2 seeds") for line in answer_lines(c))


def test_an_old_null_mode_says_what_its_verdict_cannot_mean():
    plan = plan_comparison(LOST, {"a": _vocab("a", 1), "b": _vocab("b", 2)}, seeds=(0,), n_null=0,
                           config=Config(min_span=3, max_span=8), null_mode="skeleton")
    c = summarise(plan, [_rec("a", None, 0, 0.3), _rec("b", None, 0, 0.2)])
    lines = answer_lines(c)
    assert "skeleton null" in lines[-2] and "without being related" in lines[-2]
    assert [s.verdict for s in c.summaries] == [UNTESTED, UNTESTED]
    assert "no null vocabularies" in lines[-1]


def test_lists_of_different_sizes_say_to_read_margins_not_scores():
    """--cap-stems keeps a shorter list whole: the answer then says that the scores of lists of
    different sizes are not comparable with each other, only each one's margin over its own nulls."""
    vocabs = {"long": _shaped(30, 1, "long"), "short": _shaped(12, 2, "short")}
    plan = plan_comparison(LOST, vocabs, seeds=(0,), n_null=1, config=Config(min_span=3, max_span=8), cap_stems=25)
    assert [len(v.stems) for v in plan.matching.vocabularies.values()] == [25, 12]
    c = summarise(plan, [_rec("long", None, 0, 0.3), _rec("short", None, 0, 0.2)])
    said = [x for x in caveats(c) if "differ in size" in x]
    assert said == ["the candidates\u2019 lists differ in size (long 25, short 12 stems): a longer list covers the "
                    "text differently at each confidence, so read each candidate\u2019s margin over its own nulls "
                    "(the ranking), not its score against another\u2019s"]
    same = plan_comparison(LOST, vocabs, seeds=(0,), n_null=1, config=Config(min_span=3, max_span=8))
    assert not [x for x in caveats(summarise(same, [])) if "differ in size" in x]   # one size: nothing to say


def test_a_pinned_sound_that_a_candidates_list_lacks_is_named():
    """Gothic's partial oracle pins p -> /p/, and Arabic's list has no /p/: the command says so per candidate."""
    from engine.closeness.comparison import pins_without_stems
    from engine.corpus import PinnedValue

    shaped = _shaped(20, 1, "shaped")                       # starts with p, t or k
    no_p = Vocabulary("no_p", tuple(s for s in _shaped(60, 2, "no_p").stems if "p" not in s.ipa))
    plan = plan_comparison(LOST, {"shaped": shaped, "no_p": no_p}, seeds=(0,), n_null=0,
                           config=Config(min_span=3, max_span=8))
    pins = [PinnedValue("b", "p"), PinnedValue("c", "t")]
    assert pins_without_stems(plan, pins) == [
        "note: candidate no_p: no stem uses the pinned sound of b -> /p/; its runs and its nulls' add the unit "
        "for the pin"]
    assert pins_without_stems(plan, [PinnedValue("c", "t")]) == [] and pins_without_stems(plan, []) == []
