"""The Gothic priors and the grid runner (benchmarks/gothic.py): pins name Gothic letters and valid
IPA units, the runner appends one row per run and skips finished ones, the ablations switch what
they claim."""

from __future__ import annotations

import csv
import shutil

import pytest
import torch

from benchmarks import gothic as grid
from engine.config import Config
from engine.datasets.gothic import GOTHIC_LETTERS
from engine.io.tables import read_lost, read_prior
from engine.model.mapping import CharMapping
from engine.model.objective import batch_objective, pin_pairs
from engine.model.phonology import ipa_units, unit_features
from engine.model.prepared import prepare
from engine.model.scoring import make_batch
from engine.datasets.synthetic import make_cipher
from tests.conftest import DATA

PRIORS = grid.PRIORS


# --------------------------------------------------------------------------------------------
# priors


@pytest.mark.parametrize("variant", ["partial", "full"])
def test_priors_name_gothic_letters_and_single_valid_ipa_units(variant):
    pins = read_prior(PRIORS / f"gothic-{variant}.csv")  # the engine's reader: one unit, known symbols
    assert pins
    for p in pins:
        assert p.lost in GOTHIC_LETTERS, p
        assert ipa_units(p.known_ipa) == (p.known_ipa,)
        unit_features(p.known_ipa)  # the model can embed it
        assert p.note, f"{p.lost} -> {p.known_ipa} has no source note"


def test_partial_prior_is_the_papers_seven_letters():
    pins = read_prior(PRIORS / "gothic-partial.csv")
    assert sorted((p.lost, p.known_ipa) for p in pins) == [(c, c) for c in "klmnpst"]


def test_full_prior_pins_every_letter_the_dataset_writes():
    pinned = {p.lost for p in read_prior(PRIORS / "gothic-full.csv")}
    assert pinned == set(GOTHIC_LETTERS)
    text_letters = {c for i in read_lost(DATA / "gothic" / "lost.csv") for c in i.text if c != " "}
    assert text_letters <= pinned
    values = {(p.lost, p.known_ipa) for p in read_prior(PRIORS / "gothic-full.csv")}
    assert {("þ", "θ"), ("q", "kʷ"), ("ƕ", "hʷ"), ("e", "e"), ("o", "o")} <= values


def test_prior_files_per_variant():
    assert grid.prior_path("base") is None
    assert grid.prior_path("partial").name == "gothic-partial.csv"
    assert grid.prior_path("full").exists()


# --------------------------------------------------------------------------------------------
# the grid


def test_plan_has_the_issues_seed_counts_and_the_ablation():
    cells = grid.plan()
    assert len(cells) == len({c.key() for c in cells})
    pg0 = grid.select(cells, known=["pg"], wr=["0"], variant=["base"], schedule=["0-3.5"])
    assert [c.seed for c in pg0] == [0, 1, 2]
    assert len(grid.select(cells, known=["oe"], wr=["0.5"], variant=["full"])) == 2  # 1 seed x 2 schedules
    abl = grid.select(cells, ablation=["no_ipa", "no_loss"])
    assert len(abl) == 2 * 2 * 3 and {(c.known, c.wr, c.variant) for c in abl} == {("on", "0.75", "base")}
    assert len(grid.select(cells, known=["on"], wr=["0.75"], variant=["base"], ablation=["none"])) == 6
    # the search trials only when asked for: base, WR 0 and 100 %, one schedule, the main seeds
    trials = grid.select(grid.plan(trials=True), ablation=["class_init"])
    assert not grid.select(cells, ablation=["class_init"]) and len(trials) == 3 * 2 * 3 + 3 * 2
    assert {(c.variant, c.schedule) for c in trials if c.seed > 0} == {("base", "0-3.5")}
    assert {c.variant for c in trials} == {"base", "partial", "full"}
    assert grid.cell_settings(trials[0])["class_init"] > 0


def test_cell_settings_schedule_ablations_and_wr100_spans_inside_words():
    s = grid.cell_settings(grid.Cell("pg", "0", "base", "10-3.5", 2), steps=7)
    assert (s["insertion_cost_start"], s["insertion_cost_end"], s["seed"], s["steps"]) == (10.0, 3.5, 2, 7)
    assert "segmented" not in s
    # WR 100 %: spans inside each word (a stem is the word minus its ending), not whole-word spans
    assert "segmented" not in grid.cell_settings(grid.Cell("pg", "1", "base", "0-3.5", 0))
    assert Config.from_dict(grid.cell_settings(grid.Cell("on", "0.75", "base", "0-3.5", 0, "no_ipa"))
                            ).use_ipa_features is False
    assert Config.from_dict(grid.cell_settings(grid.Cell("on", "0.75", "base", "0-3.5", 0, "no_loss"))
                            ).sound_loss_weight == 0.0


def _fixture_cache(tmp_path):
    """The bundled Gothic-PG sample as the runner's dataset cache for pg at WR 0."""
    cache = tmp_path / "cache"
    shutil.copytree(DATA / "gothic", grid.dataset_dir("pg", "0", cache), ignore=shutil.ignore_patterns("mini"))
    return cache


def test_runner_appends_one_row_per_run_and_skips_finished_rows(tmp_path):
    calls = []

    def fake_run(lost, known, gold, prior, settings):
        calls.append((prior, settings["seed"], settings["insertion_cost_start"]))
        return {"p_at_10": 0.5 + settings["seed"] / 10, "p_at_10_strict": 0.25, "steps": settings["steps"],
                "wall_s": 1.0, "device": "cpu"}

    results = tmp_path / "gothic.csv"
    cells = grid.select(grid.plan(), known=["pg"], wr=["0"], variant=["base", "partial"], schedule=["0-3.5"])
    assert len(cells) == 6
    made = grid.run_grid(cells[:4], results=results, steps=5, workers=0, run_fn=fake_run, build=False,
                         cache=tmp_path, log=lambda s: None)
    assert made == 4
    made = grid.run_grid(cells, results=results, steps=5, workers=0, run_fn=fake_run, build=False, cache=tmp_path,
                         log=lambda s: None)
    assert made == 2 and len(calls) == 6  # the first four were not run again
    with open(results, newline="") as f:
        rows = list(csv.DictReader(f))
    assert tuple(rows[0]) == grid.COLUMNS
    assert [(r["variant"], r["seed"]) for r in rows] == [(c.variant, str(c.seed)) for c in cells]
    assert rows[3] == {"known": "pg", "wr": "0", "variant": "partial", "schedule": "0-3.5", "seed": "0",
                       "ablation": "none", "p_at_10": "0.5", "p_at_10_strict": "0.25", "steps": "5",
                       "wall_s": "1.0", "device": "cpu"}
    assert calls[3][0].endswith("gothic-partial.csv") and calls[0][0] is None
    # a different number of steps is a different run
    assert grid.run_grid(cells[:1], results=results, steps=6, workers=0, run_fn=fake_run, build=False,
                         cache=tmp_path, log=lambda s: None) == 1


def test_runner_trains_for_real_on_the_sample_and_renders_the_tables(tmp_path):
    cache = _fixture_cache(tmp_path)
    results = tmp_path / "gothic.csv"
    cell = grid.Cell("pg", "0", "partial", "10-3.5", 0)
    assert grid.run_grid([cell], results=results, steps=2, workers=0, cache=cache, build=False,
                         log=lambda s: None) == 1
    (row,) = grid.read_rows(results)
    assert row["steps"] == "2" and row["device"] == "cpu"
    assert 0.0 <= float(row["p_at_10_strict"]) <= 1.0 and 0.0 <= float(row["p_at_10"]) <= 1.0
    doc = tmp_path / "bench.md"
    doc.write_text("# Benchmarks\n\nkept\n", encoding="utf-8")
    grid.write_render(grid.read_rows(results), doc, steps=2)
    grid.write_render(grid.read_rows(results), doc, steps=2)  # rewriting replaces the section
    text = doc.read_text(encoding="utf-8")
    assert text.count(grid.BEGIN) == 1 and "kept" in text
    assert f"0.749 · **{float(row['p_at_10']):.3f}** (mean" in text and "n=1" in text
    assert "0.820 · *not run*" in text


# --------------------------------------------------------------------------------------------
# the ablation switches


@pytest.fixture(scope="module")
def cipher():
    return make_cipher(n_stems=20, n_inscriptions=20, seed=5)


def test_no_ipa_ablation_gives_plain_unit_embeddings(cipher):
    base = Config.from_dict({**grid.cell_settings(grid.Cell("on", "0.75", "base", "0-3.5", 0)), "feature_dim": 4})
    ablated = base.replace(**grid.ABLATIONS["no_ipa"])
    prep = prepare(cipher.corpus, cipher.vocabulary, ablated)
    m = CharMapping(prep.lost_letters, prep.known_units, ablated)
    assert m.feature_emb is None and tuple(m.unit_emb.shape) == (len(prep.known_units), 7 * 4)
    m_ipa = CharMapping(prep.lost_letters, prep.known_units, base)
    assert m_ipa.unit_emb is None and m_ipa.feature_emb is not None
    # units that share features share embedding rows only with IPA features
    names = {p for p, _ in m_ipa.named_parameters()}
    assert "feature_emb" in names and "unit_emb" not in names


def test_no_loss_ablation_drops_omega_loss_from_the_objective(cipher):
    totals = {}
    for ablation in ("none", "no_loss"):
        cfg = Config.from_dict({**grid.cell_settings(grid.Cell("on", "0.75", "base", "0-3.5", 0, ablation)),
                                "feature_dim": 4, "min_span": 3, "max_span": 5})
        prep = prepare(cipher.corpus, cipher.vocabulary, cfg)
        torch.manual_seed(0)
        model = CharMapping(prep.lost_letters, prep.known_units, cfg)
        batch = make_batch(prep, list(range(4)))
        torch.manual_seed(1)
        r = batch_objective(model, prep, batch, 0, pin_pairs(prep, []), prep.stem_units, prep.stem_len)
        p = r.parts
        expected = -cfg.quality_weight * p["quality"] + cfg.coverage_weight * p["coverage"] \
            + cfg.sound_loss_weight * p["sound_loss"]
        assert p["total"] == pytest.approx(expected, rel=1e-5, abs=1e-6)
        assert p["sound_loss"] > 0
        totals[ablation] = (cfg.sound_loss_weight, p)
    assert totals["no_loss"][0] == 0.0 and totals["none"][0] == 100.0


# --------------------------------------------------------------------------------------------
# the Gothic sample project


def test_gothic_sample_project_holds_chunks_stems_gold_and_the_partial_prior(tmp_path):
    from engine.datasets.gothic_sample import GOTHIC_SAMPLE_DIR, create_gothic_sample_project

    assert "NonCommercial-ShareAlike" in (GOTHIC_SAMPLE_DIR / "ATTRIBUTION.md").read_text(encoding="utf-8")
    assert "CC BY-NC-SA" in (GOTHIC_SAMPLE_DIR / "NOTICE.md").read_text(encoding="utf-8")
    project = create_gothic_sample_project(tmp_path / "gothic.decipher")
    try:
        (corpus,) = project.corpora()
        (language,) = project.languages()
        assert len(project.inscriptions(corpus.id)) == 300
        assert len(project.stems(language.id)) == 300
        gold = project.gold(corpus.id)
        forms = {s.form for s in project.stems(language.id)}
        assert len(gold) > 300 and all(set(g.known) <= forms for g in gold)
        assert sorted(p.lost for p in project.pins()) == list("klmnpst")
        assert project.setting("run_config")["steps"] == 600
    finally:
        project.close()


def test_grid_uses_only_pins_whose_unit_the_known_side_has():
    from engine.io.tables import read_known

    stems = read_known(DATA / "gothic" / "known.csv")  # Proto-Germanic: x, not h; ɑ, not a
    pins = grid.usable_pins(read_prior(PRIORS / "gothic-full.csv"), stems)
    values = {(p.lost, p.known_ipa) for p in pins}
    assert ("h", "x") in values and ("h", "h") not in values
    assert ("a", "ɑ") in values and ("a", "a") not in values
    inventory = {u for s in stems for u in ipa_units(s.ipa)}
    assert all(p.known_ipa in inventory for p in pins)
