"""``decipher closeness`` (issue 12, item 4): the three files with their columns and order, resuming,
a bad candidate reported while the others finish, bad numbers in one line with exit status 2, and
appending to the benchmark's results file."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pytest

pytest.importorskip("torch")

from engine.cli import closeness as closeness_cli  # noqa: E402
from engine.cli.main import main  # noqa: E402
from engine.closeness.runs import RESULTS_COLUMNS, run_folder  # noqa: E402
from engine.closeness.comparison import RUNS_COLUMNS, RUNS_EXTRA, SUMMARY_COLUMNS, plan_comparison  # noqa: E402
from engine.config import Config  # noqa: E402
from engine.runs.sweep import InlinePool  # noqa: E402
from engine.runs.workers import LocalPool, run_task  # noqa: E402

TINY = ["--steps", "10", "--device", "cpu", "--set", "eval_interval=0", "--set", "feature_dim=8",
        "--set", "min_span=3", "--set", "max_span=6", "--set", "chars_per_batch=80"]


class CountingPool(InlinePool):
    """Runs each task here (no worker process to start) and counts the runs."""

    def __init__(self):
        self.ran: list[str] = []
        super().__init__(self._run)

    def _run(self, task):
        self.ran += [str(item.run_dir) for item in task]
        return run_task(task)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    from engine.io.tables import write_known, write_lost
    from engine.datasets.synthetic import make_cipher
    from engine.datasets.synthetic_relatives import unrelated_vocabulary

    d = tmp_path_factory.mktemp("closeness")
    c = make_cipher(n_stems=10, n_inscriptions=12, seed=2)
    write_lost(d / "lost.csv", c.corpus.inscriptions)
    write_known(d / "source.csv", c.vocabulary.stems)
    write_known(d / "unrelated.csv", unrelated_vocabulary(10, seed=2, avoid=c.vocabulary.stems).stems)
    (d / "bad.csv").write_text("form,ipa\nbaka,ba\x00ka\n", encoding="utf-8")
    return d


def run_cli(argv, pool=None, monkeypatch=None):
    if pool is not None:
        monkeypatch.setattr(closeness_cli, "make_pool", lambda workers, ray, gpus=0.0: (pool, 1, 1))
    return main(["closeness", *argv])


def args(files: Path, out: Path, *, seeds=("0", "1"), known=("source", "unrelated", "bad")) -> list[str]:
    return ["--lost", str(files / "lost.csv"), "--known", *[f"{k}={files / (k + '.csv')}" for k in known],
            "--seeds", *seeds, "--null", "1", *TINY, "--out", str(out)]


def read(path: Path) -> tuple[list[str], list[dict]]:
    with open(path, encoding="utf-8", newline="") as f:
        r = csv.DictReader(f)
        return list(r.fieldnames or ()), list(r)


@pytest.fixture(scope="module")
def first(files, tmp_path_factory):
    out = tmp_path_factory.mktemp("cmp") / "out"
    mp = pytest.MonkeyPatch()
    pool = CountingPool()
    try:
        import io
        import contextlib

        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            code = run_cli(args(files, out), pool, mp)
    finally:
        mp.undo()
    return out, code, err.getvalue(), pool


def own_copy(first, tmp_path: Path) -> Path:
    """A copy of the module's comparison folder for a test that runs into it again: a rerun rewrites
    runs.csv, summary.csv and answer.txt, which the other tests of ``first`` read (in another order
    of the tests, a wider rerun made 12 runs of the 8 and the answer lost its "bad" line)."""
    import shutil

    out = tmp_path / "out"
    shutil.copytree(first[0], out)
    return out


def test_writes_runs_summary_and_figure_best_first(first):
    out, code, err, pool = first
    assert len(pool.ran) == 2 * 2 * 2  # 2 usable candidates x (own + 1 null) x 2 seeds
    cols, runs = read(out / "runs.csv")
    assert tuple(cols) == RUNS_COLUMNS + RUNS_EXTRA  # the columns first, then the restart's
    assert len(runs) == 8
    assert {(r["restart"], r["restarts"]) for r in runs} == {("0", "1")}
    assert all(math.isfinite(float(r["objective"])) for r in runs)  # the worker's final objective, read back
    assert {(r["known"], r["seed"], r["null"]) for r in runs} == {
        (k, s, n) for k in ("source", "unrelated") for s in ("0", "1") for n in ("", "0")}
    assert all(0 <= float(r["score"]) <= 1 and int(r["steps"]) == 10 for r in runs)
    cols, summary = read(out / "summary.csv")
    assert tuple(cols[:7]) == SUMMARY_COLUMNS
    ranked = [r for r in summary if r["score_mean"]]
    assert [r["known"] for r in ranked] == [r["known"] for r in
                                            sorted(ranked, key=lambda r: -float(r["score_mean"]))]
    assert {r["known"] for r in ranked} == {"source", "unrelated"}
    for r in ranked:  # the summary is the mean of the candidate's own runs in runs.csv
        own = [float(x["score"]) for x in runs if x["known"] == r["known"] and x["null"] == ""]
        assert float(r["score_mean"]) == pytest.approx(sum(own) / len(own), abs=1e-5)
        assert r["verdict"] in ("closer than chance", "no evidence")
    png = (out / "closeness.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"


def test_every_run_keeps_its_best_spans_and_they_read_as_its_matches_rank_one(first, tmp_path):
    """spans.csv (the decoding-agreement input) holds the rank-1 rows of the run's matches.csv; a run
    without one (finished before it was written) reads them from matches.csv, the same spans."""
    import shutil

    from engine.closeness.runs import SPANS, read_run

    out = first[0]
    folders = sorted(p.parent for p in out.glob("*/*/seed-*/metrics.json"))
    assert len(folders) == 8 and all((d / SPANS).is_file() for d in folders)
    some = 0
    for d in folders:
        with open(d / "matches.csv", encoding="utf-8", newline="") as f:
            rank_one = {(r["inscription_id"], int(r["start"]), int(r["end"]), r["stem_ipa"])
                        for r in csv.DictReader(f) if r["rank"] == "1"}
        got = read_run(d).spans
        assert set(got) == rank_one and len(got) == len(rank_one)
        old = tmp_path / d.relative_to(out)
        shutil.copytree(d, old)
        (old / SPANS).unlink()
        assert read_run(old).spans == got
        some += bool(got)
    assert some        # the tiny runs decode something, so the comparison above is not of empty sets


def test_a_damaged_spans_file_is_one_line_naming_it(first, tmp_path):
    import shutil

    from engine.closeness.runs import SPANS, read_run
    from engine.errors import DecipherError

    d = sorted(p.parent for p in first[0].glob("source/own-*/seed-0/metrics.json"))[0]
    copy = tmp_path / "run"
    shutil.copytree(d, copy)
    (copy / SPANS).write_text("inscription_id,start,end,stem_ipa\r\ns1,two,4,aba\r\n", encoding="utf-8")
    with pytest.raises(DecipherError, match=r"spans.csv, line 2: not a span row"):
        read_run(copy)
    (copy / SPANS).write_text("a,b\r\n", encoding="utf-8")
    with pytest.raises(DecipherError, match="not a comparison run's spans file"):
        read_run(copy)


def test_the_answer_in_words_on_stderr_and_in_answer_txt(first):
    out, code, err, _ = first
    _, summary = read(out / "summary.csv")
    best = summary[0]
    # the margin over the null with its interval, in summary.csv
    assert float(best["margin_lo"]) <= float(best["margin"]) <= float(best["margin_hi"])
    assert float(best["margin"]) == pytest.approx(float(best["score_mean"]) - float(best["null_mean"]), abs=1e-5)
    answer = (out / "answer.txt").read_text(encoding="utf-8").splitlines()
    assert answer[0].startswith("Which language is closest to lost: the candidates ranked by margin over")
    assert "phonotactic null" in answer[0]  # the default null mode
    assert answer[1].startswith(f"1. {best['known']}: {best['verdict']} — score ")
    assert answer[3] == "– bad: " + summary[-1]["verdict"]
    assert any(line.startswith("What it means:") for line in answer)
    assert "Caveat: only 2 seeds × 1 null per candidate" in "\n".join(answer)
    for line in answer:  # the same words on stderr
        assert line in err


def test_the_defaults_are_three_seeds_three_phonotactic_nulls():
    import argparse

    from engine.cli.closeness import add_closeness_parser

    parser = argparse.ArgumentParser()
    add_closeness_parser(parser.add_subparsers())
    a = parser.parse_args(["closeness", "--lost", "l.csv", "--known", "a=a.csv", "b=b.csv", "--out", "o"])
    assert (a.seeds, a.null, a.null_mode) == ([0, 1, 2], 3, "phonotactic")
    a = parser.parse_args(["closeness", "--lost", "l.csv", "--known", "a=a.csv", "b=b.csv", "--out", "o",
                           "--null-mode", "skeleton"])
    assert a.null_mode == "skeleton"  # the old modes stay for comparison


def test_a_bad_candidate_is_reported_and_the_others_finish(first):
    out, code, err, _ = first
    assert code == 1  # finished, with something to report
    _, summary = read(out / "summary.csv")
    bad = [r for r in summary if r["known"] == "bad"]
    assert len(bad) == 1 and summary[-1]["known"] == "bad"
    assert bad[0]["score_mean"] == "" and bad[0]["verdict"].startswith("not compared:")
    assert "bad.csv, line 2" in bad[0]["verdict"]
    assert "error: candidate bad:" in err and "bad.csv, line 2" in err


def test_a_rerun_redoes_nothing_and_a_wider_one_only_the_new_runs(first, files, monkeypatch, tmp_path):
    out = own_copy(first, tmp_path)
    before = (out / "runs.csv").read_text(encoding="utf-8")
    pool = CountingPool()
    assert run_cli(args(files, out), pool, monkeypatch) == 1
    assert pool.ran == []
    assert (out / "runs.csv").read_text(encoding="utf-8") == before
    pool = CountingPool()
    assert run_cli(args(files, out, seeds=("0", "1", "2"), known=("source", "unrelated")), pool, monkeypatch) == 0
    assert sorted(Path(p).name for p in pool.ran) == ["seed-2"] * 4
    _, runs = read(out / "runs.csv")
    assert len(runs) == 12


def test_a_changed_plan_gets_new_run_folders(files):
    from engine.corpus import Corpus, Vocabulary
    from engine.io.tables import read_known, read_lost

    lost = Corpus("lost", tuple(read_lost(files / "lost.csv")))
    cands = {k: Vocabulary(k, tuple(read_known(files / f"{k}.csv"))) for k in ("source", "unrelated")}
    cfg = Config(feature_dim=8, min_span=3, max_span=6)
    a = plan_comparison(lost, cands, seeds=(0,), n_null=1, steps=10, config=cfg)
    b = plan_comparison(lost, cands, seeds=(0,), n_null=1, steps=11, config=cfg)
    c = plan_comparison(lost, cands, seeds=(0,), n_null=1, stems=9, steps=10, config=cfg)
    folders = [{run_folder(i) for i in p.items} for p in (a, b, c)]
    assert folders[0] == {run_folder(i) for i in plan_comparison(lost, cands, seeds=(0,), n_null=1, steps=10,
                                                                  config=cfg).items}
    assert not folders[0] & folders[1] and not folders[0] & folders[2]


@pytest.mark.parametrize("extra, message", [
    (["--known", "only=X"], "at least two candidate languages (got 1)"),
    (["--workers", "0"], "--workers must be at least 1"),
    (["--null", "-1"], "--null must be 0 or more"),
    (["--stems", "0"], "--stems must be a positive number"),
    (["--cap-stems", "0"], "--cap-stems must be a positive number"),
    (["--cap-stems", "5", "--stems", "5"], "cannot both be given"),
    (["--steps", "0"], "--steps must be a positive number"),
    (["--seeds", "1", "1"], "a seed is given twice"),
    (["--restarts", "0"], "--restarts must be from 1 to 50"),
    (["--restarts", "51"], "--restarts must be from 1 to 50"),
    (["--known", "a=X", "a=Y"], "the name 'a' is given twice"),
    (["--known", "noequals", "b=Y"], "give NAME=PATH"),
    (["--score", "objective", "--early-stop", "0.1"], "--early-stop cannot be used with --score objective"),
    (["--score", "objective", "--append-results", "r.csv"], "--append-results keeps area scores"),
])
def test_bad_input_is_one_line_and_exit_2(files, tmp_path, capsys, extra, message):
    base = ["--lost", str(files / "lost.csv"), "--known", f"a={files / 'source.csv'}",
            f"b={files / 'unrelated.csv'}", "--out", str(tmp_path / "out")]
    # a later --known replaces the earlier one (argparse), so each case sets its own candidates
    assert main(["closeness", *base, *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and message in err[0]
    assert not (tmp_path / "out").exists()  # nothing written


def test_two_unreadable_candidates_of_three_are_an_error(files, tmp_path, capsys):
    code = main(["closeness", "--lost", str(files / "lost.csv"), "--known", f"a={files / 'source.csv'}",
                 f"b={files / 'bad.csv'}", f"c={tmp_path / 'missing.csv'}", "--out", str(tmp_path / "out")])
    assert code == 2
    assert "at least two usable candidates" in capsys.readouterr().err


def test_restarts_are_runs_of_the_plan_and_added_restarts_reuse_the_first(files, tmp_path, monkeypatch):
    """--restarts R: every (candidate or null, seed) is trained R times, each a resumable run of its own;
    restart 0 is the run a comparison without restarts makes, so going from 1 to 2 restarts trains only
    the second restarts, and runs.csv keeps one row per seed: the restart with the lowest objective."""
    out = tmp_path / "out"
    base = args(files, out, seeds=("0",), known=("source", "unrelated"))
    pool = CountingPool()
    assert run_cli(base, pool, monkeypatch) == 0
    assert sorted(Path(p).name for p in pool.ran) == ["seed-0"] * 4
    pool = CountingPool()
    assert run_cli(base + ["--restarts", "2"], pool, monkeypatch) == 0
    assert sorted(Path(p).name for p in pool.ran) == ["seed-0-restart-1"] * 4  # only the new restarts
    _, runs = read(out / "runs.csv")
    _, trainings = read(out / "restarts.csv")
    assert len(runs) == 4 and {r["restarts"] for r in runs} == {"2"}
    assert len(trainings) == 8 and {r["restart"] for r in trainings} == {"0", "1"}
    for r in runs:  # the kept run is the lower objective of its two restarts, nulls alike
        mine = [t for t in trainings if (t["known"], t["seed"], t["null"]) == (r["known"], r["seed"], r["null"])]
        best = min(mine, key=lambda t: float(t["objective"]))
        assert (r["restart"], r["score"]) == (best["restart"], best["score"]) and best["kept"] == "1"
    assert {t["train_seed"] for t in trainings if t["restart"] == "0"} == {"0"}
    _, results = read(out / "results.csv")
    assert {r["settings"] for r in results} == {"", "restart=1", "null=0", "null=0 restart=1"}
    pool = CountingPool()
    assert run_cli(base + ["--restarts", "2"], pool, monkeypatch) == 0
    assert pool.ran == []  # resumed: nothing redone


def test_workers_and_ray_pick_the_sweeps_pools():
    pool, in_flight, n = closeness_cli.make_pool(2, None)
    assert isinstance(pool, LocalPool) and pool.workers == 2 and in_flight == 2
    pool.close()


def test_append_results_adds_each_run_once(first, files, tmp_path, monkeypatch, capsys):
    out = own_copy(first, tmp_path)
    results = tmp_path / "closeness.csv"
    extra = ["--append-results", str(results), "--lost-name", "ugaritic"]
    for expected in (8, 0):  # the second append finds every run already there
        pool = CountingPool()
        assert run_cli(args(files, out, known=("source", "unrelated")) + extra, pool, monkeypatch) == 0
        assert pool.ran == []
        assert f"{expected} new rows in {results}" in capsys.readouterr().err
    cols, rows = read(results)
    # --lost-name names the text in the answer too (runs are reused: it is no part of their fingerprint)
    assert (out / "answer.txt").read_text(encoding="utf-8").startswith("Which language is closest to ugaritic:")
    assert tuple(cols) == RESULTS_COLUMNS
    assert len(rows) == 8 and {r["lost"] for r in rows} == {"ugaritic"}
    assert {r["null_mode"] for r in rows} == {"phonotactic"}
    assert {(r["known"], r["seed"], r["null"]) for r in rows} == {
        (k, s, n) for k in ("source", "unrelated") for s in ("0", "1") for n in ("", "0")}
    assert all(0 <= float(r["coverage_at_default"]) <= 1 for r in rows)
    (tmp_path / "other.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    assert run_cli(args(files, out, known=("source", "unrelated")) + ["--append-results", str(tmp_path / "other.csv")],
                   CountingPool(), monkeypatch) == 2
    assert "not a closeness results file" in capsys.readouterr().err


def test_the_paper_comparisons_commands_name_every_candidate_and_the_results_file(tmp_path, capsys):
    from benchmarks.closeness_paper import COMPARISONS, candidates, command, staging_path

    for protocol in ("paper", "fair"):
        for lost, (_, preset, _) in COMPARISONS.items():
            if protocol == "fair" and lost == "gothic":
                continue
            names = [c.name for c in candidates(lost, protocol)]
            argv = command(lost, protocol, workers=2, build=tmp_path, runs=tmp_path / "runs")
            known = argv[argv.index("--known") + 1:argv.index("--preset")]
            assert [k.split("=", 1)[0] for k in known] == names
            assert all(k.endswith(f"{protocol}/{lost}/{k.split('=', 1)[0]}.csv") for k in known)
            assert argv[argv.index("--preset") + 1] == preset
            assert argv[argv.index("--lost-name") + 1] == lost and argv[argv.index("--append-results") + 1] == str(
                staging_path(lost, protocol, tmp_path))
            assert argv[argv.index("--out") + 1] == str(tmp_path / "runs" / f"closeness-{lost}-{protocol}")
            # the arguments are the command's own: they parse
            from engine.cli.main import build_parser
            args = build_parser().parse_args(argv)
            assert args.seeds == [0, 1, 2] and args.null == 3 and args.workers == 2
    names = {p: {lost: [c.name for c in candidates(lost, p)] for lost in ("ugaritic", "iberian")}
             for p in ("paper", "fair")}
    assert set(names["paper"]["ugaritic"]) == {"hebrew", "arabic", "latin", "spanish", "hungarian", "turkish",
                                               "basque"} and names["paper"] == names["fair"]
    assert set(names["paper"]["iberian"]) == {"basque", "latin", "spanish", "hungarian", "turkish", "arabic"}
    gothic = [c.name for c in candidates("gothic", "paper")]
    assert gothic[:3] == ["proto-germanic", "old-norse", "old-english"] and len(gothic) == 9


@pytest.mark.slow
def test_ray_local_runs_a_tiny_comparison(files, tmp_path, monkeypatch):
    pytest.importorskip("ray", reason="Ray is the optional [cluster] extra; not installed")
    import os

    root = str(Path(__file__).resolve().parents[2])  # the Ray workers import this checkout's engine
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("RAY_DISABLE_USAGE_STATS", "1")
    out = tmp_path / "out"
    code = main(["closeness", "--lost", str(files / "lost.csv"), "--known", f"source={files / 'source.csv'}",
                 f"unrelated={files / 'unrelated.csv'}", "--seeds", "0", "--null", "1", *TINY,
                 "--ray", "local", "--workers", "2", "--out", str(out)])
    assert code == 0
    _, runs = read(out / "runs.csv")
    assert len(runs) == 4 and {r["known"] for r in runs} == {"source", "unrelated"}


def test_an_unreachable_ray_address_is_one_line_and_writes_nothing(files, tmp_path, capsys):
    import socket

    pytest.importorskip("ray", reason="Ray is the optional [cluster] extra; not installed")
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code = main(["closeness", "--lost", str(files / "lost.csv"), "--known", f"a={files / 'source.csv'}",
                 f"b={files / 'unrelated.csv'}", "--ray", f"127.0.0.1:{port}", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "no Ray cluster answers there" in err[0]
    assert not (tmp_path / "out").exists()


def test_a_prior_reaches_every_run_and_is_part_of_the_fingerprint(files, tmp_path, monkeypatch):
    from engine.corpus import PinnedValue

    (tmp_path / "prior.csv").write_text("lost,known_ipa\nb,b\n", encoding="utf-8")
    pool = CountingPool()
    seen = []
    real = pool._run

    def spy(task):
        seen.extend(item.inputs.pins for item in task)
        return real(task)

    pool.run = spy
    out = tmp_path / "out"
    code = run_cli(args(files, out, seeds=("0",), known=("source", "unrelated")) + ["--prior", str(tmp_path / "prior.csv")],
                   pool, monkeypatch)
    assert code == 0 and len(seen) == 4
    assert all([(x.lost, x.known_ipa) for x in p] == [("b", "b")] for p in seen)  # candidates and nulls alike
    from engine.corpus import Corpus, Vocabulary
    from engine.io.tables import read_known, read_lost

    plan = plan_comparison(Corpus("lost", tuple(read_lost(files / "lost.csv"))),
                           {k: Vocabulary(k, tuple(read_known(files / f"{k}.csv"))) for k in ("source", "unrelated")},
                           seeds=(0,), n_null=0)
    item = plan.items[0]
    assert run_folder(item) != run_folder(item, (PinnedValue("b", "b"),))


def _result_rows(lost, known, real, nulls, steps=3000):
    rows = [{"lost": lost, "known": known, "seed": str(s), "null": "", "score": str(v), "steps": str(steps)}
            for s, v in enumerate(real)]
    rows += [{"lost": lost, "known": known, "seed": "0", "null": str(i), "score": str(v), "steps": str(steps)}
             for i, v in enumerate(nulls)]
    return rows


def test_the_paper_comparisons_summary_from_closeness_csv(tmp_path, capsys):
    """`closeness_paper summary` recomputes a comparison's table from closeness.csv alone, with the
    engine's verdict rule (z over the larger of the own and the pooled null sd)."""
    from benchmarks.closeness_paper import main as paper_main, summary_rows

    rows = (_result_rows("iberian", "basque", [0.230], [0.1933, 0.1936])
            + _result_rows("iberian", "latin", [0.134], [0.1604, 0.1349])
            + _result_rows("iberian", "latin", [0.9], [0.1], steps=100)          # another length: left out
            + _result_rows("gothic", "basque", [0.5], [0.1, 0.2]))                # another comparison
    table = summary_rows(rows, "iberian")
    assert [d["known"] for d in table] == ["basque", "latin"]
    pooled = math.sqrt(((0.1933 - 0.19345) ** 2 * 2 + (0.1604 - 0.14765) ** 2 * 2) / 2)
    assert table[0]["null_sd_pooled"] == pytest.approx(pooled)
    assert table[0]["z"] == pytest.approx((0.230 - 0.19345) / pooled)      # not over its own sd 0.0002
    assert table[0]["verdict"] == "closer than chance" and table[1]["verdict"] == "no evidence"
    assert table[0]["steps"] == 3000 and table[0]["n_null_runs"] == 2
    path = tmp_path / "closeness.csv"
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    assert paper_main(["summary", "iberian", "--results", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("known,n_seeds,score_mean") and out[1].startswith("basque,1,0.2300")
    assert paper_main(["summary", "ugaritic", "--results", str(path)]) == 2
    assert "no finished ugaritic run" in capsys.readouterr().err
    assert paper_main(["summary", "iberian", "--results", str(tmp_path / "none.csv")]) == 2


def test_the_paper_comparisons_curve_readings(tmp_path, capsys):
    """`closeness_paper curves DIR`: coverage at a confidence and the area from a confidence on, per run."""
    from benchmarks.closeness_paper import main as paper_main

    (tmp_path / "curves.csv").write_text(
        "known,seed,null,confidence,coverage\n" + "".join(
            f"pg,0,,{c / 40},{max(0.0, 0.8 - c / 40):.4f}\n" for c in range(41)), encoding="utf-8")
    assert paper_main(["curves", str(tmp_path), "--at", "0.7", "--from", "0.4"]) == 0
    head, row = capsys.readouterr().out.splitlines()
    assert head == "known,seed,null,coverage_at_0.7,area_from_0.4"
    # coverage 0.8 - c: 0.1 at 0.7; points 0.4 .. 0.8 (0.4, 0.375, …, 0) summed times 0.025
    assert row == f"pg,0,,0.1,{round(sum(0.8 - c / 40 for c in range(16, 33)) * 0.025, 4)}"
    assert paper_main(["curves", str(tmp_path / "none")]) == 2


def test_the_users_files_in_out_are_refused_unless_force_and_a_comparison_is_continued(first, files, tmp_path,
                                                                                       capsys, monkeypatch):
    """Issue 52: files of the comparison's names in an --out that holds no comparison are the user's:
    refused in one line before anything runs (--force replaces them); an earlier comparison's folder
    (its results.csv) is continued as docs/closeness.md says, and a link is refused even then."""
    out = tmp_path / "mine"
    out.mkdir()
    (out / "answer.txt").write_text("my notes\n", encoding="utf-8")
    pool = CountingPool()
    assert run_cli(args(files, out, known=("source", "unrelated")), pool, monkeypatch) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "answer.txt: already there" in err[0] and "--force" in err[0]
    assert pool.ran == [] and sorted(p.name for p in out.iterdir()) == ["answer.txt"]
    assert run_cli(args(files, out, known=("source", "unrelated")) + ["--force"], pool, monkeypatch) == 0
    assert (out / "answer.txt").read_text(encoding="utf-8") != "my notes\n" and pool.ran
    capsys.readouterr()
    again = own_copy(first, tmp_path)          # an earlier comparison: continued without --force
    (again / "summary.csv").unlink()
    (again / "summary.csv").symlink_to(tmp_path / "victim.csv")
    assert run_cli(args(files, again), CountingPool(), monkeypatch) == 2
    assert "symbolic link" in capsys.readouterr().err and not (tmp_path / "victim.csv").exists()
