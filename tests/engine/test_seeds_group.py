"""A seed group in a project as the app drives it (issue 11, item 1): progress per finished seed,
Stop keeps the finished seeds and the group resumes in the same folder, the group stored for the
app, its agreement read back from the project's runs, and the seeds a user types."""

from __future__ import annotations

import json
import threading
from concurrent.futures import Future

import pytest

pytest.importorskip("torch")

from engine.config import Config  # noqa: E402
from engine.errors import DecipherError  # noqa: E402
from engine.results import Alternative, Match  # noqa: E402
from engine.runs.seeds import (StopRequest, group_agreement, group_folder, group_of_run, parse_seed_list,  # noqa: E402
                          run_seeds_in_project, seed_groups)
from engine.runs.sweep import InlinePool, read_results  # noqa: E402
from engine.runs.workers import run_task  # noqa: E402

TINY = Config(steps=2, eval_interval=0, feature_dim=8, chars_per_batch=60, device="cpu")


@pytest.fixture()
def project_path(tmp_path):
    from engine.io.tables import write_gold, write_known, write_lost
    from engine.project import Project, import_gold, import_known, import_lost
    from engine.datasets.synthetic import make_cipher

    c = make_cipher(n_stems=10, n_inscriptions=8, seed=3)
    files = {name: tmp_path / f"{name}.csv" for name in ("lost", "known", "gold")}
    write_lost(files["lost"], c.corpus.inscriptions)
    write_known(files["known"], c.vocabulary.stems)
    write_gold(files["gold"], c.gold)
    path = tmp_path / "p.decipher"
    with Project.create(path) as project:
        import_lost(project, files["lost"], name="cipher")
        import_known(project, files["known"], name="synthetic")
        import_gold(project, files["gold"])
    return path


class FirstOnlyPool:
    """Trains the first task it is given (in this process); the others never finish, as seeds
    still training in worker processes would not when the user presses Stop."""

    kind = "test"
    workers = 3

    def __init__(self):
        self.submitted = 0
        self.closed_with_kill = None

    def submit(self, task) -> Future:
        self.submitted += 1
        fut: Future = Future()
        if self.submitted == 1:
            fut.set_result(run_task(task))
        return fut

    def reset(self) -> None:
        pass

    def close(self, *, kill: bool = False) -> None:
        self.closed_with_kill = kill


def test_stop_keeps_finished_seeds_and_the_same_group_resumes(project_path, tmp_path):
    from engine.project import Project

    out = tmp_path / "group"
    stop = StopRequest()
    seen = []

    def progress(done, total):
        seen.append((done, total))
        if done == 1:      # the first seed finished: the user presses Stop
            threading.Timer(0.05, stop.set).start()

    pool = FirstOnlyPool()
    outcome = run_seeds_in_project(project_path, TINY, [0, 1, 2], out, pool=pool, stop=stop, progress=progress)
    assert outcome.stopped and pool.closed_with_kill is True
    assert seen[0] == (0, 3) and (1, 3) in seen
    assert outcome.metrics["seeds"] == [0] and set(outcome.failed) == {1, 2}
    rows = read_results(out / "results.csv")
    assert rows["seed-0"].status == "completed"
    assert rows["seed-1"].status == rows["seed-2"].status == "stopped"
    with Project.open(project_path) as p:
        [group] = seed_groups(p)
        first_runs = [r.id for r in p.runs()]
    assert group["complete"] is False and group["stopped"] is True and group["seeds"] == [0, 1, 2]
    assert list(group["runs"]) == ["0"] and group["chosen_seed"] == 0
    # the same group again: only seeds 1 and 2 are trained; seed 0 is not redone
    seen.clear()
    outcome = run_seeds_in_project(project_path, TINY, [0, 1, 2], out, pool=InlinePool(),
                                   progress=lambda d, t: seen.append((d, t)))
    assert not outcome.stopped and outcome.metrics["seeds"] == [0, 1, 2]
    assert seen[0] == (1, 3) and seen[-1] == (3, 3)
    with Project.open(project_path) as p:
        runs = p.runs()
        [group] = seed_groups(p)       # replaced, not added: the same folder is the same group
    assert len(runs) == len(first_runs) + 2
    assert group["complete"] is True and group["runs"]["0"] == first_runs[0]
    assert set(group["runs"]) == {"0", "1", "2"}
    metrics = json.loads((out / "metrics.json").read_text())
    assert group["chosen_run"] == group["runs"][str(metrics["chosen_seed"])]
    assert group["chosen_disagrees_with_most"] == metrics["chosen_disagrees_with_most"]


def test_stop_before_any_seed_finished_records_nothing(project_path, tmp_path):
    from engine.project import Project

    class NeverPool(FirstOnlyPool):
        def submit(self, task):
            return Future()

    stop = StopRequest()
    threading.Timer(0.2, stop.set).start()
    outcome = run_seeds_in_project(project_path, TINY, [0, 1], tmp_path / "g", pool=NeverPool(), stop=stop)
    assert outcome.stopped and outcome.metrics == {}
    with Project.open(project_path) as p:
        assert seed_groups(p) == []


def M(ins, start, end, stem):
    return Match(ins, start, end, "abcdefgh"[start:end], (Alternative(1, stem, stem, -1.0),), confidence=0.5)


class FakeProject:
    def __init__(self, matches):
        self._matches = matches

    def matches(self, run_id):
        if run_id not in self._matches:
            raise DecipherError(f"no run {run_id}")
        return self._matches[run_id]


def test_group_agreement_counts_seeds_from_the_stored_runs():
    project = FakeProject({10: [M("A", 0, 3, "casa"), M("A", 3, 6, "sol")],
                           11: [M("A", 0, 3, "casa"), M("A", 3, 6, "mar")],
                           12: [M("A", 0, 3, "casa"), M("A", 3, 6, "sol")]})
    group = {"runs": {"0": 10, "1": 11, "2": 12, "3": 99}}   # run 99 is gone from the project
    agreement = group_agreement(project, group)
    assert agreement == {("A", 0, 3, "casa"): (3, 3), ("A", 3, 6, "sol"): (2, 3), ("A", 3, 6, "mar"): (1, 3)}
    groups = [{"runs": {"0": 1, "1": 2}}, group]
    assert group_of_run(groups, 11) == (2, group) and group_of_run(groups, 2)[0] == 1
    assert group_of_run(groups, 5) is None and group_of_run(groups, None) is None


@pytest.mark.parametrize("text, seeds", [("", []), ("7", [7]), ("0 1 2", [0, 1, 2]), ("0, 2,4", [0, 2, 4]),
                                         ("0-3", [0, 1, 2, 3]), ("0-1 9", [0, 1, 9])])
def test_seed_list_parses(text, seeds):
    assert parse_seed_list(text) == seeds


@pytest.mark.parametrize("text, message", [
    ("0 x", "'x' is not a whole number"), ("1 1", "a seed is given twice"), ("-2", "from 0 to 4294967295"),
    ("4294967296", "from 0 to 4294967295"), ("5-2", "runs backwards"), ("0-99", "at most 64 seeds"),
    (" ".join(map(str, range(65))), "at most 64 seeds")])
def test_seed_list_refuses_in_one_line(text, message):
    with pytest.raises(DecipherError) as e:
        parse_seed_list(text)
    assert message in str(e.value) and "\n" not in str(e.value) and str(e.value).startswith("seeds:")


def test_group_folder_is_beside_the_project_and_keyed_by_settings(tmp_path):
    project = tmp_path / "ugarit.decipher"
    a = group_folder(project, "KTU", "Hebrew", TINY)
    assert a.parent == tmp_path / "ugarit.seeds" and a.name.startswith("KTU-Hebrew-")
    assert group_folder(project, "KTU", "Hebrew", TINY.replace(seed=5)) == a   # the seed is the group's
    assert group_folder(project, "KTU", "Hebrew", TINY.replace(steps=3)) != a
    assert group_folder(project, "KTU", "Hebrew", TINY, pins=("x",)) != a


def test_chosen_disagrees_with_most_exactly_when_fewer_than_half_the_others_corroborate():
    from engine.runs.consensus import Reading, corroboration, summary

    def R(start, stem):
        return Reading("A", start, start + 2, "xy", stem)

    chosen = (R(0, "a"), R(2, "b"), R(4, "c"), R(6, "d"))
    half = (R(0, "a"), R(2, "b"), R(4, "z"))          # 2 of the chosen seed's 4 readings: corroborates
    less = (R(0, "a"), R(2, "y"), R(4, "z"))          # 1 of 4: does not
    # 5 seeds: 4 others; 2 corroborating is not "fewer than half", 1 is
    assert corroboration({0: chosen, 1: half, 2: half, 3: less, 4: less}, 0) == (2, False)
    assert corroboration({0: chosen, 1: half, 2: less, 3: less, 4: less}, 0) == (1, True)
    # 2 seeds: the other one decides
    assert corroboration({0: chosen, 1: half}, 0) == (1, False)
    assert corroboration({0: chosen, 1: less}, 0) == (0, True)
    # a chosen seed without readings is corroborated by none
    assert corroboration({0: (), 1: half, 2: half}, 0) == (0, True)
    # summary: the keys only with several seeds
    results = {s: {"coverage": 0.5, "objective": 1.0} for s in (0, 1)}
    assert "chosen_disagrees_with_most" not in summary({0: results[0]}, {0: chosen}, 20)
    m = summary(results, {0: chosen, 1: chosen}, 20)
    assert m["chosen_disagrees_with_most"] is False and m["seeds_agreeing_with_chosen"] == 1


def test_the_bundled_app_lets_spawned_workers_be_workers():
    """A seed group's LocalPool spawns processes from the app's executable; in a PyInstaller
    bundle they must call freeze_support() or each would open another window."""
    import ast
    from pathlib import Path

    entry = Path(__file__).resolve().parents[2] / "packaging" / "entry_gui.py"
    calls = [n for n in ast.walk(ast.parse(entry.read_text(encoding="utf-8"))) if isinstance(n, ast.Call)]
    names = [getattr(c.func, "attr", getattr(c.func, "id", "")) for c in calls]
    assert "freeze_support" in names and names.index("freeze_support") < names.index("main")
