"""The closeness comparisons' two protocols (issue 26 items 1, 2): how benchmarks/closeness_paper.py builds
the candidate vocabularies, sizes them, and keeps every run in closeness.csv with its protocol and null
mode."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from benchmarks.closeness_paper import (COMPARISONS, MAX_STEMS, RESULT_COLUMNS, candidates, cut_to, matched_size,
                                        merge_results, prepare)

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"


def test_the_paper_protocol_gives_the_relative_its_matched_stems_and_the_others_genesis():
    uga = {c.name: c for c in candidates("ugaritic", "paper")}
    assert uga["hebrew"].matched and uga["hebrew"].source.endswith("uga-heb.small.no_spe.cog")
    assert not any(c.matched for n, c in uga.items() if n != "hebrew")
    assert uga["basque"].language == "basque"              # Trask's dictionary, as the paper
    assert {uga[n].language for n in ("arabic", "latin", "spanish", "hungarian", "turkish")} == {
        "arabic", "latin", "spanish", "hungarian", "turkish"}
    gothic = [c.language for c in candidates("gothic", "paper")]
    assert gothic[:3] == ["proto-germanic", "old-norse", "old-english"]


def test_the_fair_protocol_builds_every_list_from_a_running_text():
    uga = {c.name: c.language for c in candidates("ugaritic", "fair")}
    assert uga["hebrew"] == "hebrew-genesis" and uga["basque"] == "basque-nt"
    assert not any(c.matched or c.source for c in candidates("ugaritic", "fair"))
    assert {c.name: c.language for c in candidates("iberian", "fair")}["basque"] == "basque-nt"
    with pytest.raises(SystemExit, match="Gothic has no fair protocol"):
        candidates("gothic", "fair")
    with pytest.raises(SystemExit, match="unknown protocol"):
        candidates("ugaritic", "nice")


def test_running_gothic_under_the_fair_protocol_says_why_not(tmp_path, capsys):
    from benchmarks.closeness_paper import main

    assert main(["run", "gothic", "--protocol", "fair", "--results", str(tmp_path / "c.csv")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: Gothic has no fair protocol") and err.count("\n") == 1
    assert not (tmp_path / "c.csv").exists()
    assert main(["commands", "--protocol", "fair"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and not any("gothic" in line for line in out)


def test_the_600_stem_gothic_follow_up_keeps_proto_germanic_and_one_genesis_list_only(tmp_path, capsys):
    """Without Trask's Basque (307 stems) and Old Norse (413) the lists reach the paper's 600; the protocol
    has no other comparison, and asking for one is one line (exit 2), nothing built."""
    from benchmarks.closeness_paper import main

    got = candidates("gothic", "paper-600")
    assert [(c.name, c.language, c.matched, c.source) for c in got] == [
        ("proto-germanic", "proto-germanic", False, None), ("spanish", "spanish", False, None)]
    with pytest.raises(SystemExit, match="Gothic's only"):
        candidates("ugaritic", "paper-600")
    for argv in (["run", "iberian"], ["prepare", "ugaritic"]):
        assert main([*argv, "--protocol", "paper-600", "--data", str(tmp_path / "none")]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: the paper-600 protocol is Gothic's only") and err.count("\n") == 1
    assert main(["commands", "--protocol", "paper-600"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1 and "closeness-gothic-paper-600" in out[0] and "proto-germanic=" in out[0]
    assert "spanish=" in out[0] and "basque=" not in out[0]


def test_one_size_the_smallest_list_at_most_the_papers():
    assert matched_size({"a": list(range(900)), "b": list(range(293)), "c": list(range(4000))}) == 293
    assert matched_size({"a": list(range(900)), "b": list(range(1518))}) == MAX_STEMS == 600


def test_a_ranked_list_keeps_its_most_frequent_and_a_word_list_a_seeded_sample_in_order():
    stems = [f"s{i}" for i in range(50)]
    assert cut_to(stems, 10, True, "k") == stems[:10]
    sample = cut_to(stems, 10, False, "k")
    assert len(set(sample)) == 10 and sample == sorted(sample, key=stems.index) and sample != stems[:10]
    assert cut_to(stems, 10, False, "k") == sample and cut_to(stems, 10, False, "other") != sample
    assert cut_to(stems, 80, False, "k") == stems


def _write(path: Path, header, rows):
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


def test_merged_rows_carry_their_protocol_once(tmp_path):
    from engine.closeness.runs import RESULTS_COLUMNS

    staged, results = tmp_path / "staged.csv", tmp_path / "closeness.csv"
    _write(results, RESULT_COLUMNS, [["ugaritic", "hebrew", "0", "", "0.06", "0.0", "3000", "226.2", "skeleton",
                                      "before"]])
    _write(staged, RESULTS_COLUMNS, [["ugaritic", "hebrew", "0", "", "0.31", "0.2", "3000", "200.0", "phonotactic"],
                                     ["ugaritic", "hebrew", "0", "1", "0.12", "0.0", "3000", "201.0", "phonotactic"]])
    assert merge_results(staged, "paper", results) == 2
    assert merge_results(staged, "paper", results) == 0          # a resumed comparison adds nothing twice
    assert merge_results(staged, "fair", results) == 2           # the same runs of another protocol are others
    with open(results, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [(r["protocol"], r["null_mode"], r["score"]) for r in rows] == [
        ("before", "skeleton", "0.06"), ("paper", "phonotactic", "0.31"), ("paper", "phonotactic", "0.12"),
        ("fair", "phonotactic", "0.31"), ("fair", "phonotactic", "0.12")]
    assert merge_results(tmp_path / "none.csv", "paper", results) == 0
    _write(tmp_path / "other.csv", ["a", "b"], [["1", "2"]])
    with pytest.raises(SystemExit, match="not the closeness results file"):
        merge_results(staged, "paper", tmp_path / "other.csv")


def test_a_results_file_from_before_the_null_mode_column_still_takes_rows(tmp_path):
    """append_results reads a file with the eight columns of before (its rows' null_mode left empty) and
    adds the new runs with theirs."""
    from engine.closeness.comparison import compare
    from engine.closeness.runs import RESULTS_COLUMNS, append_results
    from engine.config import Config
    from tests.engine.test_closeness import LOST, _candidates, _objective_run

    path = tmp_path / "closeness.csv"
    _write(path, RESULTS_COLUMNS[:-1], [["lost", "a", "0", "", "0.5", "0.1", "100", "1.0"]])
    comparison = compare(LOST, _candidates(), seeds=(0,), n_null=1, config=Config(min_span=3, max_span=8),
                         run_fn=_objective_run, null_mode="skeleton")
    assert append_results(path, "lost", comparison) == len(comparison.records)
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        rows = list(reader)
    assert tuple(reader.fieldnames) == RESULTS_COLUMNS
    assert rows[0]["null_mode"] == "" and {r["null_mode"] for r in rows[1:]} == {"skeleton"}


@pytest.mark.skipif(not (DATA / "ugaritic_hebrew" / "uga-heb.small.no_spe.cog").exists()
                    or not (DATA / "genesis").is_dir(), reason="needs ../shared/data (the cognate file and Genesis)")
def test_the_paper_protocol_on_ugaritic_builds_lists_of_one_size_hebrew_all_cognates(tmp_path):
    from engine.io.cog import read_cog
    from engine.io.tables import read_known

    folder = prepare("ugaritic", "paper", build=tmp_path, data=DATA)
    lists = {c.name: read_known(folder / f"{c.name}.csv") for c in candidates("ugaritic", "paper")}
    sizes = {len(v) for v in lists.values()}
    assert len(sizes) == 1
    gold = {f for g in read_cog(DATA / "ugaritic_hebrew" / "uga-heb.small.no_spe.cog",
                                on_unknown="skip").gold for f in g.known}
    assert {s.form for s in lists["hebrew"]} <= gold      # every Hebrew stem is a lost word's cognate
    assert "293" in (folder / "sizes.txt").read_text(encoding="utf-8").splitlines()[0]
    # the committed list sizes are what prepare writes (docs quote them from closeness-list-sizes.csv)
    from benchmarks.closeness_paper import SIZES, record_sizes

    with open(folder / "sizes.csv", encoding="utf-8", newline="") as f:
        built = list(csv.DictReader(f))
    assert {r["kept"] for r in built} == {"293"} and len(built) == len(lists)
    dest = tmp_path / "sizes-record.csv"
    dest.write_text("protocol,lost,known,usable,kept\npaper,ugaritic,hebrew,1,1\nfair,ugaritic,hebrew,600,600\n",
                    encoding="utf-8")
    record_sizes(folder / "sizes.csv", dest)
    with open(dest, encoding="utf-8", newline="") as f:
        merged = list(csv.DictReader(f))
    def sizes_of(rows):
        return [{k: r[k] for k in built[0]} for r in rows]

    assert sizes_of(r for r in merged if r["protocol"] == "paper") == built     # its own rows replaced, not added to
    assert [r["kept"] for r in merged if r["protocol"] == "fair"] == ["600"]
    # every row says which commit and command wrote it (the older rows': unknown)
    assert all(r["commit"] and r["command"].startswith("python -m benchmarks.closeness_paper") for r in merged
               if r["protocol"] == "paper")
    assert [r["commit"] for r in merged if r["protocol"] == "fair"] == ["unknown"]
    with open(SIZES, encoding="utf-8", newline="") as f:
        committed = [r for r in csv.DictReader(f) if (r["protocol"], r["lost"]) == ("paper", "ugaritic")]
    assert sizes_of(committed) == built and all(r["commit"] for r in committed)


def test_a_comparisons_cost_counts_the_time_some_run_trained_and_the_segments():
    from benchmarks.closeness_paper import comparison_cost

    # two workers: runs 0-100 and 10-120, then 120-200; a later session resumes at 1000 for 50 s
    cost = comparison_cost([(0.0, 100.0), (10.0, 120.0), (120.0, 200.0), (1000.0, 1050.0)])
    assert cost["busy_s"] == 250.0 and cost["segments"] == 2 and cost["concurrency_max"] == 2
    assert cost["run_s_sum"] == 340.0 and cost["run_s_median"] == 90.0 and cost["runs"] == 4
    assert (cost["first_start"], cost["last_end"]) == (0.0, 1050.0)
    # a short pause between runs (the next run's set-up) is the same segment
    assert comparison_cost([(0.0, 100.0), (130.0, 200.0)])["segments"] == 1


def test_a_comparisons_cost_is_read_from_its_run_folders(tmp_path, monkeypatch, capsys):
    import json
    import os

    from benchmarks import closeness_paper as cp

    folder = tmp_path / "runs" / "closeness-gothic-paper"
    (folder).mkdir(parents=True)
    (folder / "runs.csv").write_text("known,seed,null,score\nlatin,0,,0.1\nlatin,1,,0.2\n")
    for seed, (end, wall) in enumerate(((1000.0, 100.0), (1150.0, 200.0))):
        d = folder / "latin" / "own-x" / f"seed-{seed}"
        d.mkdir(parents=True)
        (d / "metrics.json").write_text(json.dumps({"wall_time_s": wall}))
        os.utime(d / "metrics.json", (end, end))
    monkeypatch.setattr(cp, "RUNS", tmp_path / "runs")
    monkeypatch.setattr(cp, "COST", tmp_path / "cost.jsonl")
    assert cp.main(["cost", "gothic", "--commit", "abc", "--note", "alone"]) == 0
    assert cp.main(["cost", "gothic", "--commit", "abd"]) == 0      # replaces the row
    [row] = [json.loads(x) for x in (tmp_path / "cost.jsonl").read_text().splitlines()]
    assert row["busy_s"] == 250.0 and row["concurrency_max"] == 2 and row["commit"] == "abd"
    assert "summary_s" not in row                                   # no summary.csv: the comparison did not end
    (folder / "summary.csv").write_text("known\n")
    os.utime(folder / "summary.csv", (1180.0, 1180.0))
    assert cp.main(["cost", "gothic", "--commit", "abd"]) == 0
    [row] = [json.loads(x) for x in (tmp_path / "cost.jsonl").read_text().splitlines()]
    assert row["summary_s"] == 30.0 and row["total_s"] == 280.0     # the summary's work after the last run
    # a run folder of another plan in the same folder (not in its results.csv) is not this comparison's
    (folder / "results.csv").write_text("known,seed,status,run_dir\nlatin,1,completed,latin/own-x/seed-1\n")
    (folder / "runs.csv").write_text("known,seed,null,score\nlatin,1,,0.2\n")
    assert cp.comparison_cost(cp.run_intervals(folder))["busy_s"] == 200.0
    (folder / "runs.csv").write_text("known,seed,null,score\n" + "latin,0,,0.1\n" * 3)
    assert cp.main(["cost", "gothic", "--commit", "abc"]) == 2
    assert "3 runs in runs.csv but 1 run folders" in capsys.readouterr().err


def test_the_cognate_overlap_counts_the_texts_cognates_in_the_fair_hebrew_list(tmp_path):
    from benchmarks.closeness_paper import candidate_path, candidates, cognate_overlap

    def write(path, ipas):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("form,ipa,gloss,source\n" + "".join(f"f{i},{x},,t\n" for i, x in enumerate(ipas)))

    write(candidate_path("ugaritic", "hebrew", "paper", tmp_path), ["ktb", "mlk", "ʃlm", "bjt"])
    for c in candidates("ugaritic", "fair"):
        write(candidate_path("ugaritic", c.name, "fair", tmp_path),
              {"hebrew": ["mlk", "bjt", "ʔrṣ"], "arabic": ["ktb", "qaːl"]}.get(c.name, ["est"]))
    got = cognate_overlap(tmp_path)
    assert (got["cognates"], got["genesis_hebrew"], got["cognates_in_genesis_hebrew"]) == (4, 3, 2)
    assert got["share"] == 0.5 and got["shared_by_chance"]["arabic"] == 1 and got["shared_by_chance"]["latin"] == 0


def test_the_docs_table_of_a_comparison_is_rendered_from_its_committed_summary():
    """The Ugaritic fair table in docs/benchmarks.md and its record entries are what `table` renders from
    the committed summary, so the Gothic and Iberian tables can be made the same way."""
    import tomllib

    from benchmarks.closeness_paper import ROOT, summary_path, table_lines

    lines, record = table_lines("ugaritic", "fair", summary_path("ugaritic", "fair"))
    docs = [ln for ln in (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8").splitlines()
            if ln.startswith("| ") and "<!--r:cmp-uga-fair-" in ln]
    assert lines[2:] == docs and len(docs) == 7
    assert lines[2].startswith("| 1 | Hungarian | 0.059<!--r:cmp-uga-fair-hun-score--> |")
    kept = {e["id"]: e for e in tomllib.loads((ROOT / "benchmarks" / "record.toml").read_text(encoding="utf-8"))["n"]}
    mine = tomllib.loads("\n".join(record))["n"]
    assert len(mine) == 7 * 6 and all(kept[e["id"]] == e for e in mine)


def test_a_tables_p_keeps_two_significant_digits_and_a_bad_summary_is_one_line(tmp_path, capsys, monkeypatch):
    import benchmarks.closeness_paper as cp
    from benchmarks.closeness_paper import main, p_digits, table_lines

    assert [p_digits(p) for p in (1.0, 0.996, 0.10246, 0.03, 0.0002)] == [0, 0, 2, 3, 4]
    bad = tmp_path / "summary.csv"
    bad.write_text("known,score\nlatin,0.1\n", encoding="utf-8")
    with pytest.raises(ValueError, match="not a comparison's summary.csv"):
        table_lines("gothic", "paper", bad)
    monkeypatch.setattr(cp, "summary_path", lambda lost, protocol: tmp_path / "none.csv")
    assert main(["table", "iberian", "--protocol", "fair"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "none.csv" in err[0]


def test_reading_a_comparisons_mappings_without_its_folder_is_one_line(tmp_path, monkeypatch, capsys):
    from benchmarks import closeness_paper as cp

    monkeypatch.setattr(cp, "RUNS", tmp_path / "runs")
    assert cp.main(["mappings", "--protocol", "paper"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "closeness-gothic-paper" in err[0] and "runs.csv" in err[0]


def test_the_authors_gothic_protocol_runs_the_nine_candidates_as_their_code_did(capsys):
    """The authors' Gothic closeness configuration (xib cfg.py FinalContrast*): the text with every
    divider, the partial oracle on every run, the insertion cost annealed from 10; the paper protocol's
    nine candidates. Gothic's only: asking for another comparison is one line (exit 2)."""
    from benchmarks.closeness_paper import GOTHIC_PRIOR, lost_path, main, run_options

    assert [c.name for c in candidates("gothic", "authors")] == [c.name for c in candidates("gothic", "paper")]
    assert lost_path("gothic", "authors") == "gothic-wr100/lost.csv" != lost_path("gothic", "paper")
    assert run_options("gothic", "authors") == ["--prior", str(GOTHIC_PRIOR), "--set", "insertion_cost_start=10",
                                                "--cap-stems", "600"]
    assert run_options("gothic", "paper") == [] and run_options("gothic", "paper-600") == []
    with pytest.raises(SystemExit, match="Gothic's only"):
        candidates("iberian", "authors")
    assert main(["commands", "--protocol", "authors"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1 and "gothic-wr100/lost.csv" in out[0] and "closeness-gothic-authors" in out[0]
    assert "--prior" in out[0] and "gothic-partial.csv" in out[0] and "insertion_cost_start=10" in out[0]
    assert "basque=" in out[0] and "old-norse=" in out[0]


@pytest.mark.skipif(not (DATA / "germanic_etymology").exists(), reason="needs ../shared/data/germanic_etymology")
def test_the_authors_protocol_cuts_each_list_to_600_on_its_own(tmp_path):
    """Not one size for all: a list with more than 600 usable stems keeps 600, a shorter one all of its own."""
    from engine.io.tables import read_known

    folder = prepare("gothic", "authors", build=tmp_path, data=DATA)
    sizes = {c.name: len(read_known(folder / f"{c.name}.csv")) for c in candidates("gothic", "authors")}
    assert sizes["proto-germanic"] == sizes["latin"] == sizes["spanish"] == MAX_STEMS
    assert sizes["old-norse"] < MAX_STEMS and sizes["basque"] < MAX_STEMS and sizes["old-norse"] != sizes["basque"]
    assert "at most 600" in (folder / "sizes.txt").read_text(encoding="utf-8").splitlines()[0]


@pytest.mark.skipif(not (DATA / "germanic_etymology").exists(), reason="needs ../shared/data/germanic_etymology")
def test_a_relatives_own_gold_is_its_gothic_dataset_on_the_same_text_and_a_different_text_is_refused(tmp_path):
    """The Old Norse runs of the Gothic comparison are read against the Gothic–ON gold (the letter counts
    and the PG gold understated them); the gold applies only when its dataset's text is the comparison's."""
    from benchmarks.closeness_paper import AUTHORS_LOST, prepare_lost, relative_gold
    from engine.io.tables import read_lost

    prepare_lost(build=tmp_path, data=DATA, protocol="authors")
    inscriptions = read_lost(tmp_path / AUTHORS_LOST)
    gold = relative_gold("non", AUTHORS_LOST, inscriptions, wr="100", build=tmp_path, data=DATA)
    assert gold and (tmp_path / "gothic-wr100-non" / "lost.csv").read_bytes() == (tmp_path / AUTHORS_LOST).read_bytes()
    assert {g.inscription_id for g in gold} <= {i.id for i in inscriptions}
    text = (tmp_path / "gothic-wr100-non" / "lost.csv")
    text.write_text(text.read_text(encoding="utf-8") + "\n", encoding="utf-8")  # no longer the comparison's text
    with pytest.raises(ValueError, match="not the comparison's lost text"):
        relative_gold("non", AUTHORS_LOST, inscriptions, wr="100", build=tmp_path, data=DATA)
