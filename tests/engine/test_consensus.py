"""Seed consensus on hand-made readings: agreement counts, corroborated coverage, the gold-free
choice (a bad seed with more coverage is not chosen), and the oracle kept apart."""

from __future__ import annotations

import pytest

from engine.runs.consensus import (Reading, choose_seed, consensus, consensus_table, read_readings,
                              readings_of, summary, support)
from engine.results import Alternative, Match


def R(ins, start, end, stem, span="x"):
    return Reading(ins, start, end, span, stem)


# three seeds over a corpus of 20 letters; seeds 1 and 2 agree, seed 0 covers more but alone
READINGS = {
    0: (R("A", 0, 4, "casa"), R("A", 4, 8, "perro"), R("B", 0, 6, "gato"), R("B", 6, 10, "mesa")),
    1: (R("A", 0, 4, "casa"), R("B", 0, 6, "tierra")),
    2: (R("A", 0, 4, "casa"), R("B", 0, 6, "tierra"), R("B", 6, 9, "sol")),
}


def test_agreement_counted_per_span_and_top_stem():
    rows = {(c.reading.inscription, c.reading.start, c.reading.end, c.reading.stem): c for c in consensus(READINGS)}
    assert len(rows) == 6
    assert rows[("A", 0, 4, "casa")].agreement == 3 and rows[("A", 0, 4, "casa")].k_of_n == "3/3"
    assert rows[("A", 0, 4, "casa")].seeds == (0, 1, 2)
    # the same span with another stem is another reading, not agreement
    assert rows[("B", 0, 6, "tierra")].agreement == 2 and rows[("B", 0, 6, "tierra")].seeds == (1, 2)
    assert rows[("B", 0, 6, "gato")].agreement == 1 and rows[("B", 0, 6, "gato")].k_of_n == "1/3"
    # the same stem on another span is not agreement either
    assert rows[("B", 6, 9, "sol")].agreement == 1 and rows[("B", 6, 10, "mesa")].agreement == 1
    table = consensus_table(consensus(READINGS))
    assert table[0][:4] == ("A", 0, 4, "x") and table[0][6:] == (3, "3/3", "0 1 2")
    # inscription order as first seen, then start, then most agreement first
    assert [(r[0], r[1], r[6]) for r in table] == [("A", 0, 3), ("A", 4, 1), ("B", 0, 2), ("B", 0, 1),
                                                   ("B", 6, 1), ("B", 6, 1)]


def test_a_seed_counts_a_reading_once():
    twice = {0: (R("A", 0, 4, "casa"), R("A", 0, 4, "casa")), 1: (R("A", 0, 4, "casa"),)}
    [row] = consensus(twice)
    assert row.agreement == 2 and row.seeds == (0, 1)


def test_support_is_corroborated_coverage():
    s = support(READINGS, total_letters=20)
    # seed 0: casa 4 letters x 2/2 others; the rest alone -> 4/20
    assert s[0] == pytest.approx(4 / 20)
    # seed 1: casa 4 x 2/2 + tierra 6 x 1/2 -> 7/20; seed 2 the same plus an uncorroborated sol
    assert s[1] == pytest.approx(7 / 20) and s[2] == pytest.approx(7 / 20)
    assert support({5: READINGS[0]}, total_letters=20) == {5: pytest.approx(18 / 20)}  # alone: its coverage


def test_choice_prefers_corroborated_seed_over_coverage_then_objective():
    s = support(READINGS, total_letters=20)
    choice = choose_seed(s, {0: -9.0, 1: -1.0, 2: -2.0})
    # seed 0 covers most and has the best objective, but nobody corroborates it; 1 and 2 tie:
    # the lower final objective (seed 2) wins
    assert choice.seed == 2 and "objective" in choice.reason
    assert choose_seed(s, {}).seed == 1  # no objectives: the lowest seed of the tie
    with pytest.raises(ValueError):
        choose_seed({})


def test_summary_keeps_oracle_apart_and_spread():
    results = {0: {"coverage": 0.9, "objective": -9.0, "p_at_1": 0.1, "p_at_10": 0.5},
               1: {"coverage": 0.35, "objective": -1.0, "p_at_1": 1.0, "p_at_10": 1.0},
               2: {"coverage": 0.45, "objective": -2.0, "p_at_1": 0.9, "p_at_10": 1.0}}
    m = summary(results, READINGS, 20)
    assert m["seeds"] == [0, 1, 2] and m["chosen_seed"] == 2
    assert m["p_at_1"] == 0.9 and m["p_at_10"] == 1.0
    assert (m["oracle_seed"], m["oracle_p_at_1"], m["oracle_p_at_10"]) == (1, 1.0, 1.0)
    assert m["p_at_1_over_seeds"]["mean"] == pytest.approx(2.0 / 3)
    assert m["p_at_1_over_seeds"]["std"] == pytest.approx(0.4932882862316247)
    assert m["chosen_disagrees_with_most"] is False and m["seeds_agreeing_with_chosen"] == 1
    no_gold = summary({s: {"coverage": r["coverage"], "objective": r["objective"]} for s, r in results.items()},
                      READINGS, 20)
    assert "p_at_1" not in no_gold and "oracle_seed" not in no_gold and no_gold["chosen_seed"] == 2


def test_readings_from_matches_and_matches_csv(tmp_path):
    from engine.io.reports import write_matches_csv

    m = Match("A", 0, 4, "abcd", (Alternative(1, "casa", "kasa", -1.0), Alternative(2, "cosa", "kosa", -2.0)))
    assert readings_of([m]) == (Reading("A", 0, 4, "abcd", "casa", "kasa"),)
    write_matches_csv(tmp_path / "matches.csv", [m])
    assert read_readings(tmp_path / "matches.csv") == (Reading("A", 0, 4, "abcd", "casa", "kasa"),)


def test_spanish_cipher_gold_free_choice_picks_a_good_seed():
    """Five real runs on the issue's Spanish cipher (tests/data/spanish_cipher/README.md): four good
    seeds (P@1 0.87-0.92) and one bad solution (P@1 0.07). The choice reads no gold."""
    import csv
    from pathlib import Path

    from engine.io.tables import read_lost

    folder = Path(__file__).resolve().parents[1] / "data" / "spanish_cipher"
    with open(folder / "seeds" / "seeds.csv", encoding="utf-8", newline="") as f:
        results = {int(r["seed"]): {k: float(v) for k, v in r.items() if k != "seed"} for r in csv.DictReader(f)}
    readings = {s: read_readings(folder / "seeds" / f"seed-{s}" / "matches.csv") for s in results}
    assert all(len(r) > 30 for r in readings.values())
    total = sum(len(i.text.replace(" ", "")) for i in read_lost(folder / "lost.csv"))
    no_gold = {s: {"coverage": r["coverage"], "objective": r["objective"]} for s, r in results.items()}
    m = summary(no_gold, readings, total)
    assert results[m["chosen_seed"]]["p_at_1"] >= 0.85
    assert m["chosen_seed"] != 4 and not m["chosen_disagrees_with_most"]
    # the bad seed is corroborated by nobody: its support is far below every good seed's
    assert float(m["support"]["4"]) < 0.2 < min(float(m["support"][str(s)]) for s in (0, 1, 2, 3))
    with_gold = summary(results, readings, total)
    assert with_gold["chosen_seed"] == m["chosen_seed"]  # gold changes nothing in the choice
    assert with_gold["oracle_p_at_1"] - with_gold["p_at_1"] <= 0.05
