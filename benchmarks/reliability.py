"""Tries every fault of issue 9 against the real command line and prints the outcome table.

    python -m benchmarks.reliability [--only GROUP,...] [--write docs/reliability.md]

Each row is one fault injected into real processes (``python -m engine.cli`` with PYTHONPATH set)
on real temporary files: concurrent writers, SIGKILL points, disk-full points (a file size limit,
RLIMIT_FSIZE with SIGXFSZ ignored, so writes fail with EFBIG as on a full disk), bad files and bad
settings. The table gives how it was injected, what must happen, what did (exit code, first line
of stderr) and PASS/FAIL; the script exits 1 if any row fails. POSIX only (signals, rlimits).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import unicodedata
from dataclasses import astuple, dataclass
from pathlib import Path
from typing import Callable, Sequence

ROOT = Path(__file__).resolve().parents[1]
GROUPS = ("concurrency", "sigkill", "diskfull", "files", "settings")
FAST = ["--quiet", "--device", "cpu", "--set", "feature_dim=8", "--set", "eval_interval=0",
        "--set", "anneal_steps=20"]
HANG_GUARD_S = 600  # a guard against a hang only; every wait below ends on an event


@dataclass(frozen=True)
class Row:
    group: str
    fault: str
    injected: str
    expected: str
    observed: str
    ok: bool


@dataclass(frozen=True)
class Result:
    code: int
    out: str
    err: str

    def lines(self) -> list[str]:
        """stderr's lines, without the run's warnings (engine/runs/warnings.py: said before training,
        they are not the report of the fault)."""
        return [line for line in self.err.strip().splitlines() if line.strip() and not line.startswith("warning: ")]

    @property
    def first(self) -> str:
        lines = self.lines()
        return lines[0] if lines else "(no stderr)"

    @property
    def one_line(self) -> bool:
        return len(self.lines()) == 1

    def brief(self) -> str:
        return f"exit {self.code}; {self.first}"


def env() -> dict:
    return dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
                OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", NUMBA_NUM_THREADS="1")


def cli_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "engine.cli", *map(str, args)]


def cli(*args: str, preexec: Callable[[], None] | None = None) -> Result:
    proc = subprocess.run(cli_argv(*args), capture_output=True, text=True, env=env(), cwd=ROOT,
                          preexec_fn=preexec, timeout=HANG_GUARD_S)
    return Result(proc.returncode, proc.stdout, proc.stderr)


def popen(*args: str, preexec: Callable[[], None] | None = None) -> subprocess.Popen:
    return subprocess.Popen(cli_argv(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env(), cwd=ROOT, preexec_fn=preexec)


def file_size_limit(limit: int) -> Callable[[], None]:
    """A child whose files cannot grow past ``limit`` bytes: writes fail with EFBIG, as on a full disk."""
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def wait_for(predicate: Callable[[], object], proc: subprocess.Popen | None = None,
             poll_s: float = 0.05, guard_s: float = HANG_GUARD_S) -> object:
    """Poll until ``predicate()`` is truthy (or ``proc`` ended); returns the last value."""
    deadline = time.monotonic() + guard_s
    value = predicate()
    while not value and time.monotonic() < deadline and (proc is None or proc.poll() is None):
        time.sleep(poll_s)
        value = predicate()
    return value


def integrity(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def parts(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*.part"))


def write_cipher(folder: Path, *, n_stems: int = 25, n_inscriptions: int = 30) -> dict[str, Path]:
    """A small synthetic cipher (engine/datasets/synthetic.py) as LOST/KNOWN/GOLD CSVs."""
    from engine.io.tables import write_gold, write_known, write_lost
    from engine.datasets.synthetic import make_cipher

    folder.mkdir(parents=True, exist_ok=True)
    c = make_cipher(n_stems=n_stems, n_inscriptions=n_inscriptions, seed=4)
    files = {"lost": folder / "lost.csv", "known": folder / "known.csv", "gold": folder / "gold.csv"}
    write_lost(files["lost"], c.corpus.inscriptions)
    write_known(files["known"], c.vocabulary.stems)
    write_gold(files["gold"], c.gold)
    return files


def new_project(path: Path, files: dict[str, Path]) -> None:
    for argv in (["project", "new", path], ["project", "import", path, "--lost", files["lost"]],
                 ["project", "import", path, "--known", files["known"]],
                 ["project", "import", path, "--gold", files["gold"]]):
        r = cli(*argv)
        if r.code != 0:
            raise RuntimeError(f"setting up {path}: {r.brief()}")


def refused(group: str, fault: str, injected: str, r: Result, needle: str,
            extra: tuple[bool, str] = (True, "")) -> Row:
    """A row for an input that must be refused: exit 2, one line of stderr naming ``needle``."""
    ok = r.code == 2 and r.one_line and needle in r.first and "Traceback" not in r.err and extra[0]
    observed = r.brief() + (f"; {extra[1]}" if extra[1] else "")
    return Row(group, fault, injected, f"exit 2, one line naming {needle!r}", observed, ok)


# --------------------------------------------------------------------------------------------
# concurrent writers


def concurrency(tmp: Path, writers: int = 8, rounds: int = 20, cli_writers: int = 3) -> list[Row]:
    from tests.engine.test_project_concurrency import WORKER  # the test's worker, one logic

    path = tmp / "shared.decipher"
    r = cli("project", "new", path)
    assert r.code == 0, r.brief()
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, str(path), str(rounds), str(i)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env(), cwd=ROOT)
             for i in range(writers)]
    for p in procs:  # all start on one signal
        p.stdin.write("g")
        p.stdin.flush()
    ids, errors, codes = [], [], []
    for p in procs:
        out, err = p.communicate(timeout=HANG_GUARD_S)
        codes.append(p.returncode)
        try:
            result = json.loads(out.strip().splitlines()[-1])
            ids += result["ids"]
            errors += result["errors"]
        except (IndexError, ValueError):
            errors.append(err.strip().splitlines()[-1] if err.strip() else f"exit {p.returncode}")
    conn = sqlite3.connect(path)
    try:
        found = conn.execute("SELECT count(*) FROM run WHERE status = 'completed'").fetchone()[0]
    finally:
        conn.close()
    check = integrity(path)
    expected = writers * rounds
    ok = (not errors and set(codes) == {0} and found == expected == len(set(ids)) and check == "ok")
    rows = [Row("concurrency", f"{writers} writers x {rounds} rounds on one project",
                "real processes started together; each round opens the file, starts a run, records "
                "metrics, finishes, closes", f"{expected} runs, unique ids, integrity ok",
                f"{found} runs found, {len(set(ids))} unique ids, {len(errors)} errors"
                f"{' (' + errors[0] + ')' if errors else ''}, integrity_check {check}", ok)]

    # the reported case itself: several `decipher run --project P` started together
    files = write_cipher(tmp / "cipher")
    project = tmp / "runs.decipher"
    new_project(project, files)
    procs = [popen("run", "--project", project, "--steps", "2", *FAST) for _ in range(cli_writers)]
    results = [(p.wait(timeout=HANG_GUARD_S), p.communicate()[1]) for p in procs]
    from engine.project import Project
    with Project.open(project) as p:
        statuses = sorted(run.status for run in p.runs())
    check = integrity(project)
    ok = ([c for c, _ in results] == [0] * cli_writers and statuses == ["completed"] * cli_writers
          and check == "ok" and not any("Traceback" in e for _, e in results))
    rows.append(Row("concurrency", f"{cli_writers} `decipher run --project P --steps 2` at once",
                    "CLI processes started together on one project", f"{cli_writers} completed runs, integrity ok",
                    f"exit codes {[c for c, _ in results]}; runs {statuses}; integrity_check {check}", ok))
    return rows


# --------------------------------------------------------------------------------------------
# SIGKILL


def _kill(proc: subprocess.Popen) -> int:
    if proc.poll() is None:
        proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=HANG_GUARD_S)
    proc.communicate()
    return proc.returncode


def sigkill(tmp: Path, delays: Sequence[float] = (0.0, 0.5, 2.0)) -> list[Row]:
    from engine.project import Project

    rows = []
    files = write_cipher(tmp / "cipher")
    # during an import: a large corpus, killed once the import is writing its WAL (+ a delay)
    big = tmp / "big.csv"
    with open(big, "w", encoding="utf-8") as f:
        f.write("id,text\n")
        for i in range(60000):
            f.write(f"B.{i},{'abcdefgh'[i % 8]}{'klmnoprs' * 4}\n")
    for delay in delays:
        project = tmp / f"import-{delay}.decipher"
        new_project(project, files)
        before = sha(project)
        wal = Path(f"{project}-wal")
        proc = popen("project", "import", project, "--lost", big, "--name", "big")
        wait_for(lambda: wal.exists() and wal.stat().st_size > 0, proc, poll_s=0.005)
        time.sleep(delay)
        finished_first = proc.poll() is not None
        code = _kill(proc)
        check = integrity(project)
        with Project.open(project) as p:
            corpora = {c.name: len(p.inscriptions(c.id)) for c in p.corpora()}
        whole = corpora.get("lost") == 30 and corpora.get("big") in (None, 60000)
        ok = check == "ok" and whole and (finished_first or code == -signal.SIGKILL)
        when = "finished before the kill" if finished_first else f"killed (exit {code})"
        rows.append(Row("sigkill", f"SIGKILL during an import (+{delay:g} s)",
                        f"`project import --lost` of 60,000 rows; SIGKILL {delay:g} s after its WAL first grew",
                        "file opens, integrity ok, old data intact, new corpus all or nothing",
                        f"{when}; integrity_check {check}; corpora {corpora}; file {'unchanged' if sha(project) == before else 'changed'}",
                        ok))

    # during a run
    project = tmp / "run.decipher"
    new_project(project, files)
    runs_dir = Path(f"{project}.runs")

    def query(sql: str, *params) -> int:
        db = sqlite3.connect(f"file:{project}?mode=ro", uri=True)
        try:
            return db.execute(sql, params).fetchone()[0] or 0
        finally:
            db.close()

    def last_run() -> int:
        return query("SELECT coalesce(max(id), 0) FROM run")

    def max_step(after: int) -> int:  # the newest run's recorded step (runs after ``after``)
        return query("SELECT coalesce(max(step), 0) FROM run_metric WHERE run_id > ?", after)

    def running(after: int) -> bool:
        return query("SELECT count(*) FROM run WHERE status = 'running' AND id > ?", after) > 0

    def part_file() -> bool:
        return runs_dir.exists() and any(p.name.endswith(".part") for p in runs_dir.rglob("*"))

    def long_run() -> subprocess.Popen:
        return popen("run", "--project", project, "--steps", "100000", "--quiet", "--device", "cpu",
                     "--set", "feature_dim=8", "--set", "eval_interval=3")

    def reopened(point: str, injected: str, proc: subprocess.Popen, resume: bool, note: str = "") -> Row:
        code = _kill(proc)
        check = integrity(project)
        try:
            with Project.open(project) as p:
                run = p.runs()[-1]
        except Exception as e:
            return Row("sigkill", point, injected, "file opens, integrity ok, run interrupted", f"exit {code}; "
                       f"{note}integrity_check {check}; reopening: {type(e).__name__}: {e}", False)
        status, ckpt = run.status, run.checkpoint
        observed = f"exit {code}; {note}integrity_check {check}; run {run.id} {status}, checkpoint {ckpt or 'none'}"
        ok = code == -signal.SIGKILL and check == "ok" and status == "interrupted"
        if resume:
            if ckpt:
                target = (run.last_step or 0) + 2
                r = cli("run", "--project", project, "--resume", project.parent / ckpt, "--steps", str(target),
                        "--quiet", "--device", "cpu")
                try:
                    with Project.open(project) as p:
                        last = p.runs()[-1]
                except Exception as e:
                    return Row("sigkill", point, injected, "file opens, integrity ok, run interrupted, checkpoint "
                               "resumable", f"{observed}; resume exit {r.code}; reopening after it: "
                               f"{type(e).__name__}: {e}", False)
                resumed = r.code == 0 and last.status == "completed" and last.last_step == target
                observed += f"; resumed to step {target}: exit {r.code}, run {last.id} {last.status}"
                ok = ok and resumed
            else:
                ok = False
        return Row("sigkill", point, injected,
                   "file opens, integrity ok, run interrupted" + (", checkpoint resumable" if resume else ""),
                   observed, ok)

    before = last_run()
    proc = long_run()
    wait_for(lambda: running(before), proc, poll_s=0.005)
    rows.append(reopened("SIGKILL during a run, before its first step",
                         "`run --project`; SIGKILL as soon as its run row says running", proc, resume=False))
    before = last_run()
    proc = long_run()
    wait_for(lambda: max_step(before) >= 10, proc, poll_s=0.1)
    rows.append(reopened("SIGKILL mid-training", "`run --project`; SIGKILL once step 10 is recorded", proc, True))
    before = last_run()
    proc = long_run()
    # after a first complete checkpoint, so the kill hits a rewrite and the last good one must stay
    wait_for(lambda: query("SELECT count(*) FROM run WHERE id > ? AND checkpoint IS NOT NULL", before) > 0,
             proc, poll_s=0.1)
    caught = wait_for(part_file, proc, poll_s=0.0005, guard_s=20)
    note = "the .part was there at the kill; " if caught else "no .part seen in 20 s of polling (kill between writes); "
    rows.append(reopened("SIGKILL during a checkpoint write",
                         "`run --project` (checkpoint every 3 steps); after its first checkpoint, SIGKILL on seeing "
                         "`.checkpoint.pt.part`",
                         proc, True, note))
    return rows


# --------------------------------------------------------------------------------------------
# disk full


def checkpoint_disk_full(tmp: Path, files: dict[str, Path]) -> Row:
    out = tmp / "ckpt-out"
    r = cli("run", "--lost", files["lost"], "--known", files["known"], "--out", out, "--steps", "2", *FAST,
            preexec=file_size_limit(20000))
    left = sorted(p.name for p in out.iterdir()) if out.exists() else []
    ok = r.code == 2 and r.one_line and "checkpoint.pt" in r.first and not parts(out) and "checkpoint.pt" not in left
    return Row("diskfull", "checkpoint write on a full disk",
               "`run --out`, files limited to 20,000 bytes (RLIMIT_FSIZE; the checkpoint is ~25 kB)",
               "exit 2, one line naming checkpoint.pt, no partial file", f"{r.brief()}; folder holds {left}", ok)


def diskfull(tmp: Path) -> list[Row]:
    files = write_cipher(tmp / "cipher")
    rows = [checkpoint_disk_full(tmp, files)]
    run_args = ["run", "--lost", files["lost"], "--known", files["known"], "--gold", files["gold"]]

    # metrics.json: the limit is lowered on the live process once its first checkpoint is written
    out = tmp / "metrics-out"
    proc = popen(*run_args, "--out", out, "--steps", "1", *FAST, preexec=file_size_limit(resource.RLIM_INFINITY))
    wait_for(lambda: (out / "checkpoint.pt").exists(), proc, poll_s=0.001)
    if proc.poll() is None:
        resource.prlimit(proc.pid, resource.RLIMIT_FSIZE, (1000, 1000))
    _, err = proc.communicate(timeout=HANG_GUARD_S)
    r = Result(proc.returncode, "", err)
    left = sorted(p.name for p in out.iterdir())
    ok = r.code == 2 and r.one_line and "metrics.json" in r.first and not parts(out) and "metrics.json" not in left
    rows.append(Row("diskfull", "metrics.json on a full disk",
                    "`run --out --steps 1`; once checkpoint.pt exists the live process's file size limit drops "
                    "to 1,000 bytes (prlimit)", "exit 2, one line naming metrics.json, no partial file",
                    f"{r.brief()}; folder holds {left}", ok))

    project = tmp / "export.decipher"
    new_project(project, files)
    big = tmp / "big.csv"
    with open(big, "w", encoding="utf-8") as f:
        f.write("id,text\n" + "".join(f"B.{i},{'klmnoprs' * 6}\n" for i in range(5000)))
    assert cli("project", "import", project, "--lost", big, "--name", "big").code == 0
    target = tmp / "exported" / "big.csv"
    target.parent.mkdir()
    r = cli("project", "export", project, "--lost", target, "--corpus", "big", preexec=file_size_limit(100_000))
    left = sorted(p.name for p in target.parent.iterdir())
    ok = r.code == 2 and r.one_line and str(target) in r.first and not left and integrity(project) == "ok"
    rows.append(Row("diskfull", "export on a full disk",
                    "`project export --lost` of 5,000 rows (~270 kB), files limited to 100,000 bytes",
                    "exit 2, one line naming the target, no partial file, project intact",
                    f"{r.brief()}; folder holds {left}", ok))

    # a project run whose checkpoint cannot be written: the run is failed with the reason
    project = tmp / "ckpt.decipher"
    new_project(project, files)
    # feature_dim 1024 makes the checkpoint (~300 kB) larger than the project's WAL and -shm files
    proc = popen("run", "--project", project, "--steps", "50", "--quiet", "--device", "cpu", "--set", "feature_dim=1024",
                 "--set", "eval_interval=0", "--checkpoint-every", "0.001",
                 preexec=file_size_limit(resource.RLIM_INFINITY))
    ckpt = Path(f"{project}.runs") / "run-1" / "checkpoint.pt"
    wait_for(ckpt.exists, proc, poll_s=0.001)
    limit = 0
    if proc.poll() is None:  # the checkpoint cannot be rewritten; the project's WAL may still grow
        limit = ckpt.stat().st_size // 2
        resource.prlimit(proc.pid, resource.RLIMIT_FSIZE, (limit, limit))
    _, err = proc.communicate(timeout=HANG_GUARD_S)
    r = Result(proc.returncode, "", err)
    from engine.project import Project
    with Project.open(project) as p:
        run = p.runs()[-1]
    ok = (r.code == 2 and "checkpoint.pt" in (run.error or "") and run.status == "failed"
          and not parts(Path(f"{project}.runs")) and "Traceback" not in r.err)
    rows.append(Row("diskfull", "project run's checkpoint on a full disk",
                    "`run --project --set feature_dim=1024`, checkpoint every 0.06 s; after the first one the live "
                    "process's file size limit drops to half the checkpoint's size (prlimit)",
                    "exit 2, run failed naming checkpoint.pt, no partial file",
                    f"exit {r.code}; {r.err.strip().splitlines()[-1] if r.err.strip() else ''}; limit {limit:,} B; "
                    f"run {run.status}: {run.error}", ok))
    return rows


# --------------------------------------------------------------------------------------------
# bad files


def main_as_nobody(*args: str) -> Result:
    """``engine.cli.main(args)`` in a forked child that dropped root for ``nobody`` (root ignores
    permissions). No exec: the interpreter lives under root's home, which nobody cannot read, so
    the child runs the modules the parent imported (warm them first); results come back as JSON."""
    import contextlib
    import io
    import pwd
    import traceback

    from engine.cli.main import main as cli_main

    nobody = pwd.getpwnam("nobody") if os.getuid() == 0 else None
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        code, out, err = 1, io.StringIO(), io.StringIO()
        try:
            os.close(read)
            if nobody is not None:
                os.setgid(nobody.pw_gid)
                os.setuid(nobody.pw_uid)
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = cli_main([str(a) for a in args])
        except BaseException:
            err.write(traceback.format_exc())
        with os.fdopen(write, "w") as f:
            f.write(json.dumps([code, out.getvalue(), err.getvalue()]))
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as f:
        data = f.read()
    os.waitpid(pid, 0)
    return Result(*json.loads(data))


def bad_files(tmp: Path) -> list[Row]:
    from engine.project import Project

    rows = []
    files = write_cipher(tmp / "cipher")
    g = "files"

    # NFD gold
    folder = tmp / "nfd"
    folder.mkdir()
    nfc = unicodedata.normalize("NFC", "béta")
    (folder / "lost.csv").write_text("id,text\nA.1,beta\nA.2,betaka\n", encoding="utf-8")
    (folder / "known.csv").write_text(f"form,ipa\n{nfc},beta\nkaro,karo\n", encoding="utf-8")
    (folder / "gold.csv").write_text("inscription_id,start,word_end,known\nA.1,0,4,"
                                     f"{unicodedata.normalize('NFD', nfc)}\n", encoding="utf-8")
    project = folder / "p.decipher"
    new_project(project, {k: folder / f"{k}.csv" for k in ("lost", "known", "gold")})
    with Project.open(project) as p:
        gold = p.gold(p.corpora()[0].id)
    forms = [f for x in gold for f in (x.known if isinstance(x.known, tuple) else (x.known,))]
    rows.append(Row(g, "GOLD saved in NFD", "`project import --gold` whose known form is NFD (e + U+0301)",
                    "stored as NFC (U+00E9), matching its stem", f"stored {[ascii(f) for f in forms]}",
                    forms == [nfc]))

    # control characters
    bad = tmp / "nul.csv"
    bad.write_text("id,text\nA.1,abc\nA.2,ab\x00c\n", encoding="utf-8")
    r = cli("project", "import", project, "--lost", bad, "--name", "nul")
    rows.append(refused(g, "NUL in LOST text", "`project import --lost`, line 3 holds U+0000", r, str(bad),
                        ("line 3" in r.first, "")))

    # long cells round trip
    long_text = "abcdefgh" * 25_000  # 200,000 characters, above the old 131,072 cap
    text = tmp / "long.txt"
    text.write_text(long_text + "\nshort\n", encoding="utf-8")
    a, b = tmp / "long-a.decipher", tmp / "long-b.decipher"
    exported = tmp / "long-export.csv"
    steps = [cli("project", "new", a), cli("project", "import", a, "--text", text, "--name", "long"),
             cli("project", "export", a, "--lost", exported, "--corpus", "long"), cli("project", "new", b),
             cli("project", "import", b, "--lost", exported, "--name", "long")]
    texts = []
    if all(s.code == 0 for s in steps):
        with Project.open(b) as p:
            texts = [i.text for i in p.inscriptions(p.corpora()[0].id)]
    rows.append(Row(g, "200,000-character cell", "`import --text`, `export --lost`, `import --lost` into a new project",
                    "every step exit 0, text unchanged",
                    f"exit codes {[s.code for s in steps]}; round trip {'unchanged' if long_text in texts else 'CHANGED'}",
                    long_text in texts))

    # non-UTF-8
    latin = ROOT / "tests" / "data" / "project" / "bad_latin1.csv"
    r = cli("project", "import", project, "--lost", latin, "--name", "latin")
    rows.append(refused(g, "non-UTF-8 file", "`project import --lost` of a Latin-1 file", r, str(latin)))

    # semicolon CSV
    semi = tmp / "semi.csv"
    semi.write_text("id;text\nS.1;abc\nS.2;bcd\n", encoding="utf-8")
    r = cli("project", "import", project, "--lost", semi, "--name", "semi")
    with Project.open(project) as p:
        got = [c for c in p.corpora() if c.name == "semi"]
        texts = [i.text for i in p.inscriptions(got[0].id)] if got else []
    rows.append(Row(g, "semicolon-separated CSV", "`project import --lost` with header `id;text`",
                    "exit 0, read by its header's delimiter", f"{r.brief()}; texts {texts}",
                    r.code == 0 and texts == ["abc", "bcd"]))

    # crafted pickle checkpoint
    marker = tmp / "PWNED"
    evil = tmp / "evil.pt"
    import pickle
    import zipfile

    class Evil:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))
    with zipfile.ZipFile(evil, "w") as z:  # a torch checkpoint is a zip holding data.pkl
        z.writestr("evil/data.pkl", pickle.dumps({"format": 1, "x": Evil()}, protocol=2))
        z.writestr("evil/version", "3\n")
    r = cli("run", "--lost", files["lost"], "--known", files["known"], "--resume", evil, "--out", tmp / "evil-out",
            "--quiet", "--device", "cpu")
    rows.append(refused(g, "checkpoint with a pickled shell command", "`run --resume` of a .pt whose pickle runs "
                        "`touch PWNED`", r, str(evil), (not marker.exists(), f"marker {'CREATED' if marker.exists() else 'absent'}")))

    # checkpoint missing keys
    import torch
    partial = tmp / "partial.pt"
    torch.save({"format": 1, "config": {}}, partial)
    r = cli("run", "--lost", files["lost"], "--known", files["known"], "--resume", partial, "--out", tmp / "partial-out",
            "--quiet", "--device", "cpu")
    rows.append(refused(g, "checkpoint missing keys", "`run --resume` of a .pt holding only format and config", r,
                        str(partial)))

    # --config non-UTF-8 and a folder
    config = tmp / "latin.toml"
    config.write_bytes("lr = 0.2 # caf\xe9\n".encode("latin-1"))
    for path, what in ((config, "non-UTF-8 file"), (tmp, "folder")):
        r = cli("run", "--lost", files["lost"], "--known", files["known"], "--config", path, "--out", tmp / "c-out",
                "--quiet")
        rows.append(refused(g, f"--config a {what}", f"`run --config` given a {what}", r, str(path)))

    # read-only project (a folder and file the user cannot write)
    folder = tmp / "ro"
    folder.mkdir()
    ro = folder / "p.decipher"
    new_project(ro, files)
    warm = folder / "warm.decipher"  # the same commands once, as this user, so the child has their modules
    new_project(warm, files)
    import contextlib
    import io
    from engine.cli.main import main as cli_main
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        cli_main(["project", "info", str(warm)])
        cli_main(["project", "import", str(warm), "--lost", str(semi), "--name", "semi"])
    warm.unlink()
    drop = os.getuid() == 0
    os.chmod(ro, 0o444)
    os.chmod(folder, 0o555)
    if drop:  # nobody must reach the file through the (root-only) temporary folders
        os.chmod(tmp, 0o755)
        os.chmod(tmp.parent, 0o755)
    before = sha(ro)
    try:
        view = main_as_nobody("project", "info", ro)
        write = main_as_nobody("project", "import", ro, "--lost", semi, "--name", "semi")
    finally:
        os.chmod(folder, 0o755)
        os.chmod(ro, 0o644)
    who = "(CLI main in a forked child, as user nobody)" if drop else "(CLI main in a forked child)"
    unchanged = sha(ro) == before and not list(folder.glob("*-wal")) and not list(folder.glob("*-shm"))
    rows.append(Row(g, "read-only project: view", f"`project info` {who} on a 444 file in a 555 folder",
                    "exit 0", view.brief() if view.code else f"exit 0; {view.out.strip().splitlines()[0]}",
                    view.code == 0 and unchanged))
    rows.append(refused(g, "read-only project: write", f"`project import` {who} on the same file", write, str(ro),
                        (unchanged, "file unchanged, no -wal/-shm left" if unchanged else "FILE CHANGED")))

    # export through a symbolic link (issue 52: never written through; the link's target untouched)
    real = tmp / "real-lost.csv"
    real.write_text("old\n", encoding="utf-8")
    link = tmp / "link-lost.csv"
    link.symlink_to(real)
    r = cli("project", "export", project, "--lost", link, "--corpus", "lost")
    kept = link.is_symlink() and real.read_text(encoding="utf-8") == "old\n"
    rows.append(refused(g, "export through a symbolic link", "`project export --lost LINK` where LINK -> real-lost.csv",
                        r, "symbolic link", (kept, "link and target kept" if kept else "TARGET REWRITTEN")))
    return rows


# --------------------------------------------------------------------------------------------
# bad settings

BAD_SETTINGS = ("lr=inf", "temperature=nan", "reward_scale=inf", "lr=-1", "band=-1", "max_chunk=0",
                "init_interval=inf", "seed=99999999999999999999999", "feature_dim=0", "top_k=0", "clip_norm=nan",
                "lr=1e9", "temperature=1e-30")


def bad_settings(tmp: Path, settings: Sequence[str] = BAD_SETTINGS, prior: bool = True) -> list[Row]:
    rows = []
    files = write_cipher(tmp / "cipher")
    for setting in settings:
        key = setting.split("=")[0]
        r = cli("run", "--lost", files["lost"], "--known", files["known"], "--out", tmp / "out", "--steps", "2",
                "--quiet", "--device", "cpu", "--set", setting)
        rows.append(refused("settings", f"--set {setting}", "`decipher run --set`", r, key))
    if not prior:
        return rows
    prior = tmp / "prior.csv"
    prior.write_text("lost,known_ipa,weight\na,a,inf\n", encoding="utf-8")
    r = cli("run", "--lost", files["lost"], "--known", files["known"], "--prior", prior, "--out", tmp / "out",
            "--steps", "2", "--quiet", "--device", "cpu")
    rows.append(refused("settings", "PRIOR weight=inf", "`decipher run --prior` with weight `inf`", r, str(prior),
                        ("line 2" in r.first, "")))
    return rows


# --------------------------------------------------------------------------------------------

RUNNERS: dict[str, Callable[[Path], list[Row]]] = {
    "concurrency": concurrency, "sigkill": sigkill, "diskfull": diskfull, "files": bad_files,
    "settings": bad_settings}


# --------------------------------------------------------------------------------------------
# round two: exports
# (issue 28 items 5 and 8, issue 29 item 4: every export formula-guarded by default with a switch,
# written through the atomic writer, no .part after a failure; CLDF validates; the run is said)


def _export_project(path: Path, tmp: Path, n: int = 600) -> None:
    """A project whose data start with = - @ (Iberian affixes, a formula, the Ugaritic ASCII ġ):
    run 1 holds ``n`` accepted matches, run 2 (as after a resume) the same, none decided."""
    from engine.config import Config
    from engine.project import Project, import_known, import_lost, import_prior
    from engine.results import Alternative, Match

    lost, known, prior = tmp / "x-lost.csv", tmp / "x-known.csv", tmp / "x-prior.csv"
    lost.write_text("id,text\n" + "".join(f"E.{i},=ku-ke@ba\n" for i in range(n)), encoding="utf-8")
    known.write_text('form,ipa,gloss\n-ke,ke,"he said ""yes"""\n=x,ka,@y\n', encoding="utf-8")
    prior.write_text("lost,known_ipa\n@,ɣ\n-,k\n", encoding="utf-8")
    gloss = "=" + "long gloss " * 20
    project = Project.create(path)
    cid, lid = import_lost(project, lost, name="=iberian"), import_known(project, known, name="-basque")
    import_prior(project, prior)
    matches = [Match(f"E.{i}", 0, 3, "=ku", (Alternative(1, "-ke", "ke", -0.5, gloss if i else 'he said "yes"', -1.5),
                                             Alternative(2, "=x", "ka", -1.0, "@y", -2.0)), confidence=0.5)
               for i in range(n)]
    for decided in (True, False):
        run = project.start_run(Config(), cid, lid, device="cpu", seed=1)
        project.record_matches(run, matches)
        if decided:
            with project.transaction():
                for m in matches:
                    project.decide(run, m.inscription_id, 0, 3, "-ke", "accepted")
        project.finish_run(run, "completed")
    project.close()


def _live(path: Path) -> int:
    """Text cells a spreadsheet would run as formulas (numbers such as -0.5 are not)."""
    from engine.io.atomic import FORMULA_STARTS

    n = 0
    for f in ([path] if path.is_file() else sorted(path.glob("*.csv"))):
        text = f.read_text(encoding="utf-8")
        delimiter = "\t" if f.suffix == ".tsv" else ","
        import csv
        for row in csv.reader(text.splitlines(), delimiter=delimiter, quoting=csv.QUOTE_NONE if delimiter == "\t"
                              else csv.QUOTE_MINIMAL):
            for c in row:
                try:
                    float(c)
                except ValueError:
                    n += c.startswith(FORMULA_STARTS)
    return n


def exports_round_two(tmp: Path) -> list[Row]:
    g = "exports"
    project = tmp / "exports.decipher"
    _export_project(project, tmp)
    rows = []
    for kind, target, what in (("--cldf", tmp / "cldf", "CLDF Wordlist"), ("--edictor", tmp / "e.tsv", "EDICTOR TSV"),
                               ("--matches", tmp / "m.csv", "match report"), ("--sign-values", tmp / "s.csv", "sign values"),
                               ("--lost", tmp / "lost.csv", "LOST.csv")):
        r = cli("project", "export", project, kind, target)
        live = _live(target) if target.exists() else -1
        extra = ""
        ok = r.code == 0 and live == 0
        if kind == "--cldf":
            cldf = Path(sys.executable).with_name("cldf")
            check = subprocess.run([str(cldf), "validate", str(target / "Wordlist-metadata.json")], capture_output=True,
                                   text=True, timeout=HANG_GUARD_S) if cldf.exists() else None
            extra = "; `cldf validate` " + ("not installed" if check is None else f"exit {check.returncode}")
            ok = ok and (check is None or check.returncode == 0)
        rows.append(Row(g, f"{what} export guarded by default", f"`project export {kind}` (no flag) of data starting "
                        "with = - @", "exit 0, no cell a spreadsheet runs as a formula" + (", validates" if extra else ""),
                        f"exit {r.code}; {live} live formula cells{extra}", ok))
        if kind == "--edictor":
            said = r.out.strip()
            ok = r.code == 0 and "of run 1 (the newest run with accepted decisions; run 2 is newer" in said
            rows.append(Row(g, "export without --run after a resume", "`project export --edictor`: accepted decisions "
                            "on run 1, run 2 newer with none", "run 1 exported, and said", said[:120], ok))
            text = target.read_text(encoding="utf-8")
            ok = '\the said "yes"\t' in text and '""' not in text
            rows.append(Row(g, "EDICTOR cells unquoted", 'a gloss `he said "yes"`', "written as is, no CSV quotes",
                            "as is" if ok else "QUOTED", ok))
    raw = tmp / "raw.tsv"
    r = cli("project", "export", project, "--edictor", raw, "--no-guard-formulas")
    live = _live(raw) if raw.exists() else -1
    rows.append(Row(g, "the guard's switch", "`project export --edictor --no-guard-formulas`",
                    "exit 0, the data unchanged", f"exit {r.code}; {live} live formula cells", r.code == 0 and live > 0))
    folder = tmp / "folder.tsv"
    folder.mkdir()
    r = cli("project", "export", project, "--edictor", folder)
    rows.append(refused(g, "EDICTOR export into a folder", "`project export --edictor DIR`", r, str(folder),
                        (not parts(tmp), f"{len(parts(tmp))} .part files left")))
    full = tmp / "full" / "e.tsv"
    full.parent.mkdir()
    full.write_text("old\n", encoding="utf-8")
    r = cli("project", "export", project, "--edictor", full, preexec=file_size_limit(100_000))
    kept = full.read_text(encoding="utf-8") == "old\n"
    rows.append(refused(g, "EDICTOR export on a full disk", "`project export --edictor` of ~300 kB, files limited to "
                        "100,000 bytes", r, str(full), (kept and not parts(tmp) and integrity(project) == "ok",
                                                        f"old file {'kept' if kept else 'CHANGED'}, "
                                                        f"{len(parts(tmp))} .part files left")))
    return rows


GROUPS = GROUPS + ("exports",)
RUNNERS["exports"] = exports_round_two


# --------------------------------------------------------------------------------------------
# round two: project store (issue 28, items 2, 3 and 6: a received project file is data, not
# code; every stored value is checked when read; CLDF urls stay in their folder; non-UTF-8 names)

STORE_BOUND_S = 2.0  # a refused project file is refused within this (the open, timed in-process)

ENDLESS_VIEW = ("CREATE VIEW corpus AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                "SELECT x AS id, 'n' AS name, '' AS source, '' AS format, '' AS imported_at FROM c")
FOREIGN_OBJECTS = (  # (fault, statements, the name the refusal must say)
    ("foreign trigger on `run` (deletes every stem)",
     ("CREATE TRIGGER wipe AFTER INSERT ON run BEGIN DELETE FROM stem; END",), "trigger 'wipe'"),
    ("foreign trigger on `decision` (stores accepted as rejected)",
     ("CREATE TRIGGER flip AFTER INSERT ON decision BEGIN UPDATE decision SET status = 'rejected'; END",),
     "trigger 'flip'"),
    ("recursive trigger on `run_metric`",
     ("CREATE TRIGGER again AFTER INSERT ON run_metric BEGIN INSERT INTO run_metric (run_id, name, restart, "
      "step, value) VALUES (new.run_id, new.name, new.restart, new.step + 1, 0); END",), "trigger 'again'"),
    ("endless view named `corpus`", ("DROP TABLE corpus", ENDLESS_VIEW), "view 'corpus'"),
)
BAD_CELLS = (  # (fault, statement, the cell the message must name)
    ("bad JSON in `inscription.meta`", "UPDATE inscription SET meta = '{oops' WHERE rowid = 1",
     "table inscription, row 1, column meta"),
    ("bad JSON in `run.config`", "INSERT INTO run (id, status, config, started_at) VALUES (7, 'completed', "
     "'steps=5', 'x')", "table run, row 7, column config"),
    ("a pin of the wrong shape in `run.pins`", "INSERT INTO run (id, status, pins, started_at) VALUES "
     "(7, 'completed', '[[\"a\"]]', 'x')", "table run, row 7, column pins"),
    ("bad JSON in `gold.known`", "UPDATE gold SET known = 'nope' WHERE rowid = 1", "table gold, row 1, column known"),
    ("bad JSON in a setting", "INSERT INTO setting (key, value) VALUES ('gui.x', '{')",
     "table setting, row 'gui.x', column value"),
    ("non-numeric metric", "INSERT INTO run (id, status, started_at) VALUES (7, 'completed', 'x'); "
     "INSERT INTO run_metric (run_id, name, restart, step, value) VALUES (7, 'loss', 0, 1, 'abc')",
     "table run_metric, row run 7 'loss' step 1, column value"),
    ("pin weight 1e9 (PRIOR refuses > 1000)", "INSERT INTO pin VALUES ('a', 'b', 1e9, 1, '', 'x', 'x')",
     "column weight"),
)
APP_PROBE = r"""
import json, sys, time
from pathlib import Path
from decipher_gui.app import make_application, open_at_launch
from decipher_gui.mainwindow import MainWindow
app = make_application()
window = MainWindow(restore_state=False)
started = time.monotonic()
opened = open_at_launch(window, Path(sys.argv[1]))
seconds = time.monotonic() - started
print(json.dumps({"opened": opened, "seconds": seconds, "error": list(window.last_error or ())}))
window.close()
"""


def plant(path: Path, *statements: str) -> None:
    """Change a project file behind the program's back, as a crafted file arrives."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA ignore_check_constraints=ON")
        conn.execute("PRAGMA foreign_keys=OFF")
        for statement in statements:
            conn.executescript(statement)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


def refusal_seconds(path: Path) -> tuple[float, str]:
    """How long ``Project.open`` takes to refuse ``path`` (in this process), and its message."""
    from engine.errors import DecipherError
    from engine.project import Project

    started = time.monotonic()
    try:
        Project.open(path).close()
    except DecipherError as e:
        return time.monotonic() - started, str(e)
    return time.monotonic() - started, "OPENED"


def app_at_launch(path: Path) -> tuple[dict, Result]:
    """The app's launch path (``open_at_launch``, headless) on ``path``, in a child process."""
    proc = subprocess.run([sys.executable, "-c", APP_PROBE, str(path)], capture_output=True, text=True, cwd=ROOT,
                          env=dict(env(), QT_QPA_PLATFORM="offscreen"), timeout=HANG_GUARD_S)
    lines = [x for x in proc.stdout.splitlines() if x.startswith("{")]
    return (json.loads(lines[-1]) if lines else {}), Result(proc.returncode, proc.stdout, proc.stderr)


def store_untrusted(tmp: Path) -> list[Row]:
    g = "store"
    rows: list[Row] = []
    files = write_cipher(tmp / "cipher")
    master = tmp / "master.decipher"
    new_project(master, files)
    r = cli("run", "--project", master, "--steps", "2", *FAST)  # a run with metrics and matches
    if r.code != 0:
        raise RuntimeError(f"setting up {master}: {r.brief()}")
    count = 0

    def copy(label: str) -> Path:
        nonlocal count
        count += 1
        path = tmp / f"{count:02d}-{label}.decipher"
        path.write_bytes(master.read_bytes())
        return path

    for fault, statements, name in FOREIGN_OBJECTS:
        path = copy("foreign")
        plant(path, *statements)
        before = sha(path)
        seconds, message = refusal_seconds(path)
        quick = (seconds <= STORE_BOUND_S and name in message, f"open refused in {seconds:.2f} s")
        r = cli("project", "info", path)
        rows.append(refused(g, f"{fault}: `project info`", "sqlite3 adds it to a copy of a good project", r, name, quick))
        r = cli("run", "--project", path, "--steps", "2", *FAST)
        same = sha(path) == before
        rows.append(refused(g, f"{fault}: `run --project`", "the same file", r, name,
                            (same, "file unchanged" if same else "FILE CHANGED")))
    path = copy("app")
    plant(path, FOREIGN_OBJECTS[0][1][0])
    seen, r = app_at_launch(path)
    ok = (r.code == 0 and seen.get("opened") is False and "trigger 'wipe'" in " ".join(seen.get("error", []))
          and seen.get("seconds", 99) <= STORE_BOUND_S and "Traceback" not in r.err)
    rows.append(Row(g, "foreign trigger: the app at launch", "`open_at_launch` (headless) on the file",
                    f"a dialog naming trigger 'wipe' within {STORE_BOUND_S:g} s, a cleaned copy offered, no traceback",
                    f"exit {r.code}; opened {seen.get('opened')}; {seen.get('seconds', 0):.2f} s; "
                    f"{' '.join(seen.get('error', []))[:160] or r.first}", ok))

    for fault, statement, name in BAD_CELLS:
        path = copy("cell")
        plant(path, statement)
        results = [cli("project", *verb) for verb in
                   (("info", path), ("runs", "--json", path), ("export", path, "--lost", tmp / f"x{count}.csv"))]
        named = [x for x in results if x.code == 2 and name in x.first]
        clean = all(x.code in (0, 2) and "Traceback" not in x.err and (x.code == 0 or x.one_line) for x in results)
        rows.append(Row(g, fault, "sqlite3 writes it into a copy of a good project; `project info`, "
                        "`project runs --json`, `project export --lost`", f"one line naming {name!r}, no traceback",
                        f"exit codes {[x.code for x in results]}; {named[0].first if named else results[0].first}",
                        bool(named) and clean))
    path = copy("app-cell")
    plant(path, BAD_CELLS[1][1])
    seen, r = app_at_launch(path)
    message = " ".join(seen.get("error", []))
    rows.append(Row(g, "bad JSON in `run.config`: the app at launch", "`open_at_launch` (headless) on the file",
                    "a dialog naming the cell, no traceback, no exit 1",
                    f"exit {r.code}; opened {seen.get('opened')}; {message[:160] or r.first}",
                    r.code == 0 and seen.get("opened") is False and BAD_CELLS[1][2] in message
                    and "Traceback" not in r.err))

    # CLDF table urls that lead out of the dataset's folder
    for url in ("/etc/passwd", "../../x.csv"):
        ds = tmp / f"cldf-{count}" / "cldf"
        count += 1
        ds.mkdir(parents=True)
        (ds / "forms.csv").write_text("ID,Language_ID,Parameter_ID,Form,Segments\n1,l,p,ab,a b\n", encoding="utf-8")
        meta = ds / "Wordlist-metadata.json"
        meta.write_text(json.dumps({"dc:conformsTo": "http://cldf.clld.org/v1.0/terms.rdf#Wordlist", "tables": [
            {"url": url, "dc:conformsTo": "http://cldf.clld.org/v1.0/terms.rdf#FormTable"}]}), encoding="utf-8")
        path = copy("cldf")
        r = cli("project", "import", path, "--cldf", meta, "--name", "stolen")
        rows.append(refused(g, f"CLDF table url `{url}`", "`project import --cldf` of metadata naming it", r, url))

    # file names that are not UTF-8
    odd = tmp / "p\udcff.decipher"
    lost = tmp / "l\udcfe.csv"
    lost.write_bytes(files["lost"].read_bytes())
    def cli_odd(*args) -> Result:  # the names come back as the bytes they are: decoded leniently here
        proc = subprocess.run(cli_argv(*args), capture_output=True, text=True, errors="backslashreplace", env=env(),
                              cwd=ROOT, timeout=HANG_GUARD_S)
        return Result(proc.returncode, proc.stdout, proc.stderr)

    results = [cli_odd("project", "new", odd), cli_odd("project", "import", odd, "--lost", lost, "--name", "odd"),
               cli_odd("project", "info", odd)]
    ok = all(x.code == 0 and "Traceback" not in x.err for x in results)
    rows.append(Row(g, "non-UTF-8 file names", "`project new`, `import --lost`, `info` with bytes 0xFF/0xFE in the names",
                    "exit 0, no traceback (names shown as \\xNN)",
                    f"exit codes {[x.code for x in results]}; {results[-1].out.strip().splitlines()[0] if results[-1].out.strip() else results[-1].first}",
                    ok))
    return rows


GROUPS += ("store",)
RUNNERS["store"] = store_untrusted

# round two: runs (issue 28: results bound to their inputs, one process per --out, workers that
# end with their parent, no planted link followed in the program's folders, checkpoints refused)

SWEEP_FAST = ["--device", "cpu", "--set", "feature_dim=8", "--set", "eval_interval=0", "--set", "chars_per_batch=60"]


def _children(pid: int) -> list[int]:
    """The live processes whose parent is ``pid`` (from /proc; Linux)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid and fields[0] not in ("Z", "X"):
            out.append(int(stat.parent.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def _metrics(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def runs_round_two(tmp: Path) -> list[Row]:
    import torch

    g = "runs"
    rows: list[Row] = []
    files = write_cipher(tmp / "cipher", n_stems=10, n_inscriptions=8)
    lost, known = files["lost"], files["known"]

    # 1. the two sweeps into one folder
    out = tmp / "X"
    sweep = ["sweep", "--lost", lost, "--known", known, "--seeds", "0", "1", "--workers", "1", "--out", out,
             *SWEEP_FAST]
    first = cli(*sweep, "--set", "lr=0.1", "--steps", "5")
    second = cli(*sweep, "--set", "lr=0.3", "--steps", "50")
    m = _metrics(out / "known" / "default" / "seed-0" / "metrics.json")
    said = "lr: 0.1 -> 0.3" in second.err and "steps: 5 -> 50" in second.err
    ok = first.code == 0 and second.code == 0 and said and m.get("steps") == 50 and m.get("config", {}).get("lr") == 0.3
    rows.append(Row(g, "sweep resumed with other settings", "`sweep --set lr=0.1 --steps 5 --out X`, then "
                    "`--set lr=0.3 --steps 50` into the same X", "says lr and steps changed, retrains; "
                    "metrics.json steps 50, lr 0.3",
                    f"exit {first.code}, {second.code}; {'says lr: 0.1 -> 0.3, steps: 5 -> 50' if said else 'no change said'}"
                    f"; metrics.json steps {m.get('steps')}, lr {m.get('config', {}).get('lr')}", ok))

    # 2. the lost file edited in place
    text = lost.read_text(encoding="utf-8").splitlines(keepends=True)
    ident, body = text[1].rstrip("\r\n").split(",", 1)
    text[1] = f"{ident},{body}{body}\n"
    lost.write_text("".join(text), encoding="utf-8")
    r = cli(*sweep, "--set", "lr=0.3", "--steps", "50")
    said = r.err.count("lost file changed; run again")
    rows.append(Row(g, "sweep resumed after the LOST file was edited", "one inscription of LOST.csv doubled in "
                    "place, the same sweep again", "both runs say the lost file changed and are redone",
                    f"exit {r.code}; {said} runs say 'lost file changed'; "
                    f"{'(2 now, 0 before)' if '(2 now, 0 before)' in r.err else r.first}",
                    r.code == 0 and said == 2 and "(2 now, 0 before)" in r.err))

    # 3. run --seeds into the same --out with another --set
    y = tmp / "Y"
    seeds = ["run", "--lost", lost, "--known", known, "--seeds", "0", "1", "--steps", "3", "--out", y, "--quiet",
             *SWEEP_FAST]
    a = cli(*seeds)
    b = cli(*seeds, "--set", "lr=0.3")
    c = cli(*seeds, "--set", "lr=0.3")
    m = _metrics(y / "seed-1" / "metrics.json")
    said = sum(1 for line in b.err.splitlines() if "lr: " in line and "-> 0.3" in line and "run again" in line)
    ok = (a.code == b.code == c.code == 0 and said == 2
          and "2 of 2 runs already finished" in c.err and m.get("config", {}).get("lr") == 0.3)
    rows.append(Row(g, "`run --seeds` resumed with another --set", "`run --seeds 0 1 --out Y`, then with "
                    "`--set lr=0.3`, then the same again", "second: both seeds say lr changed and rerun; third: "
                    "nothing redone", f"exit {a.code}, {b.code}, {c.code}; second says "
                    f"{[line.split(': ', 1)[1] for line in b.err.splitlines() if 'run again' in line][:1]}; "
                    f"third: {'2 of 2 already finished' if '2 of 2 runs already finished' in c.err else c.first}; "
                    f"seed-1 lr {m.get('config', {}).get('lr')}", ok))

    # 4. two sweeps on one --out at once; 5. SIGKILL of the first leaves no worker; 6. its lock is stale
    z = tmp / "Z"
    long = popen("sweep", "--lost", lost, "--known", known, "--seeds", "0", "1", "--workers", "2", "--out", z,
                 "--steps", "100000", *SWEEP_FAST)
    try:
        wait_for(lambda: (z / ".decipher.lock").exists() and len(_children(long.pid)) >= 3, long)
        wait_for(lambda: list(z.rglob("checkpoint.pt")), long)   # the workers are training
        other = cli("sweep", "--lost", lost, "--known", known, "--seeds", "0", "--workers", "1", "--out", z,
                    "--steps", "2", *SWEEP_FAST)
        rows.append(refused(g, "two sweeps on one --out at once", "a second `sweep --out Z` while the first trains "
                            "there", other, f"pid {long.pid}"))
        workers = _children(long.pid)
    finally:
        code = _kill(long)
    wait_for(lambda: not any(_alive(p) for p in workers))
    left = [p for p in workers if _alive(p)]
    for p in left:
        os.kill(p, signal.SIGKILL)
    rows.append(Row(g, "SIGKILL of a sweep's main process", "`sweep --workers 2` training; SIGKILL of the main "
                    "process", "every worker process ends", f"exit {code}; {len(workers)} child processes, "
                    f"{len(left)} left running", code == -9 and workers and not left))
    again = cli("sweep", "--lost", lost, "--known", known, "--seeds", "0", "1", "--workers", "1", "--out", z,
                "--steps", "2", *SWEEP_FAST)
    took = f"stale lock of process {long.pid}" in again.err
    rows.append(Row(g, "a killed sweep's lock", "the same `sweep --out Z` after the SIGKILL above",
                    "the stale lock is taken over with a line, the sweep completes",
                    f"exit {again.code}; {'says stale lock taken over' if took else again.first}; "
                    f"lock {'left' if (z / '.decipher.lock').exists() else 'removed'} at the end",
                    again.code == 0 and took and not (z / ".decipher.lock").exists()))

    # 7. a planted symlink in a project's run folder; 8. a sweep's run folder linked outside
    project = tmp / "P.decipher"
    new_project(project, files)
    victim = tmp / "victim"
    victim.write_bytes(b"precious")
    planted = tmp / "P.decipher.runs" / "run-1"
    planted.mkdir(parents=True)
    (planted / "checkpoint.pt").symlink_to(victim)
    r = cli("run", "--project", project, "--steps", "2", "--quiet", *SWEEP_FAST)
    errors = [line for line in r.err.splitlines() if line.startswith("error:")]
    kept = victim.read_bytes() == b"precious"
    rows.append(Row(g, "planted symlink P.decipher.runs/run-1/checkpoint.pt -> victim", "`run --project P` whose "
                    "next run folder holds the link", "exit 2, one error line naming the link, victim unchanged",
                    f"exit {r.code}; {errors[0] if errors else r.first}; "
                    f"{'victim unchanged' if kept else 'VICTIM OVERWRITTEN'}",
                    r.code == 2 and len(errors) == 1 and "symbolic link" in errors[0] and "Traceback" not in r.err
                    and kept))
    outside = tmp / "outside"
    outside.mkdir()
    w = tmp / "W"
    (w / "known" / "default").mkdir(parents=True)
    (w / "known" / "default" / "seed-0").symlink_to(outside, target_is_directory=True)
    r = cli("sweep", "--lost", lost, "--known", known, "--seeds", "0", "--workers", "1", "--out", w, "--steps", "2",
            *SWEEP_FAST)
    said = "symbolic link" in r.err
    rows.append(Row(g, "a sweep's run folder linked outside", "W/known/default/seed-0 -> a folder outside W, "
                    "then `sweep --out W`", "that run refused in one line (failed row), nothing written outside",
                    f"exit {r.code}; {'refused: symbolic link' if said else r.first}; outside holds "
                    f"{sorted(p.name for p in outside.iterdir())}", r.code != 0 and said and not list(outside.iterdir())))

    # 9-15. checkpoints: malformed fields, impossible steps, another corpus, a deflate bomb
    ck_out = tmp / "ck"
    made = cli("run", "--lost", lost, "--known", known, "--steps", "3", "--out", ck_out, "--quiet", *SWEEP_FAST)
    if made.code != 0:
        raise RuntimeError(f"making a checkpoint: {made.brief()}")
    state = torch.load(ck_out / "checkpoint.pt", weights_only=True)
    for field, value, needle in (("rng", "xyz", "'rng'"), ("step", "7", "'step'"), ("elapsed", "soon", "'elapsed'"),
                                 ("sampler_order", "abc", "'sampler_order'"), ("step", -100, "negative"),
                                 ("step", 10**15, "outside this run's")):
        bad = tmp / f"bad-{field}-{str(value).replace('-', 'minus')}.pt"
        torch.save({**state, field: value}, bad)
        r = cli("run", "--lost", lost, "--known", known, "--resume", bad, "--out", tmp / "bad-out", "--quiet")
        rows.append(refused(g, f"checkpoint {field} = {value!r}", f"`run --resume` of a real checkpoint with "
                            f"{field} replaced", r, needle))
    from engine.io.tables import read_lost, write_lost

    inscriptions = read_lost(lost)
    from engine.corpus import Inscription

    other_lost = tmp / "other-lost.csv"
    write_lost(other_lost, list(inscriptions) + [Inscription(f"{i.id}-copy", i.text) for i in inscriptions])
    r = cli("run", "--lost", other_lost, "--known", known, "--resume", ck_out / "checkpoint.pt", "--out",
            tmp / "other-out", "--quiet")
    rows.append(refused(g, "resume on another corpus with the same letters", "`run --resume` of the checkpoint "
                        "with a LOST file of the same letters, other inscriptions", r, "another corpus"))
    import zipfile

    bomb = tmp / "bomb.pt"
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        with zf.open("archive/data.pkl", "w", force_zip64=True) as f:
            chunk = bytes(1 << 20)
            for _ in range(1300):
                f.write(chunk)
    code = ("import resource, sys; from engine.cli.main import main; c = main(sys.argv[1:]); "
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024); sys.exit(c)")
    proc = subprocess.run([sys.executable, "-c", code, "run", "--lost", str(lost), "--known", str(known), "--resume",
                           str(bomb), "--out", str(tmp / "bomb-out"), "--quiet"], capture_output=True, text=True,
                          env=env(), cwd=ROOT, timeout=HANG_GUARD_S)
    r = Result(proc.returncode, proc.stdout, proc.stderr)
    peak = int(proc.stdout.strip() or 0)
    rows.append(refused(g, f"deflate-bomb checkpoint ({bomb.stat().st_size / 2**20:.1f} MiB declaring 1,300 MiB)",
                        "`run --resume` of a zip whose one entry unpacks to 1,300 MiB of zeros", r, "refused",
                        (peak < 1000, f"peak memory {peak} MiB (the process, torch imported)")))
    return rows


GROUPS = (*GROUPS, "runs")
RUNNERS["runs"] = runs_round_two


# --------------------------------------------------------------------------------------------
# round two: sizes (issue 28 item 4: a corpus too large for the machine is refused before training,
# in one line naming the limit and how to change it; a large one is told its memory first)

def sizes_round_two(tmp: Path) -> list[Row]:
    import time

    g = "sizes"
    known = tmp / "known.csv"
    known.write_text("form,ipa\nbaka,baka\ndala,dala\ngama,gama\n", encoding="utf-8")
    huge = tmp / "huge.csv"
    letters = 15 * 2**20                  # one 15 MB inscription: under the 16 MiB cell limit
    huge.write_text("id,text\nA," + "bakadalagama" * (letters // 12) + "\n", encoding="utf-8")
    t0 = time.perf_counter()
    r = cli("run", "--lost", huge, "--known", known, "--set", "memory_limit_gb=8", "--steps", "1", "--quiet",
            "--out", tmp / "huge-run")
    took = time.perf_counter() - t0
    rows = [refused(g, "one 15 MB inscription", "`decipher run` on a corpus of one 15 MB inscription "
                    "(memory_limit_gb=8)", r, "memory_limit_gb", (took < 60, f"{took:.0f} s"))]
    small = tmp / "small.csv"
    small.write_text("id,text\nA,bakadalagama\n", encoding="utf-8")
    r = cli("run", "--lost", small, "--known", known, "--set", "memory_limit_gb=0.1", "--steps", "1", "--quiet",
            "--out", tmp / "tiny-limit")
    rows.append(refused(g, "a limit below the run's base", "`--set memory_limit_gb=0.1` on a 12-letter corpus", r,
                        "0.1 GB allowed"))
    return rows


GROUPS = (*GROUPS, "sizes")
RUNNERS["sizes"] = sizes_round_two


# --------------------------------------------------------------------------------------------
# round three (issue 52): nothing outside what the user named is touched, no run lost to a concurrent
# command, every output guarded

#: Four of these race for one folder's lock until each has held it ``rounds`` times, each leaving it
#: stale (naming a dead pid) every time; each counts the times it found another inside. (tests/engine/test_reliability_runs.py runs it too.)
LOCK_RACER = """
import os, sys, time
from engine.errors import DecipherError
from engine.runs import sweep
folder, dead, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
alive = sweep._pid_alive
sweep._pid_alive = lambda pid: (time.sleep(0.005), alive(pid))[1]   # a slow look at the owner: a wider window
while not os.path.exists(os.path.join(folder, "go")):
    time.sleep(0.001)
held = overlaps = 0
while held < rounds:
    try:
        with sweep.FolderLock(folder):
            held += 1
            try:
                fd = os.open(os.path.join(folder, "inside"), os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                overlaps += 1
            else:
                time.sleep(0.002)
                os.close(fd)
                os.unlink(os.path.join(folder, "inside"))
            # leave the lock as a killed owner would: naming a dead process, not removed
            stale = f"{dead}\\n{os.uname().nodename}\\n".encode()
            lock = getattr(sweep, "_fds", {}).get(os.path.realpath(folder))
            if lock is None:  # a program without the descriptor (before issue 52): through the path
                with open(os.path.join(folder, sweep.LOCK_FILE), "wb") as f:
                    f.write(stale)
            else:
                os.ftruncate(lock, 0)
                os.pwrite(lock, stale, 0)
    except DecipherError:   # another holds it now: try again
        time.sleep(0.001)
print(held, overlaps)
"""


def lock_race(folder: Path, racers: int = 4, rounds: int = 60) -> tuple[int, int]:
    """(times the lock was held, times two were inside at once) over ``racers`` processes."""
    from engine.runs.sweep import LOCK_FILE

    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / LOCK_FILE).write_text(f"{gone.pid}\n{os.uname().nodename}\n")
    procs = [subprocess.Popen([sys.executable, "-c", LOCK_RACER, str(folder), str(gone.pid), str(rounds)], cwd=ROOT,
                              stdout=subprocess.PIPE, text=True, env=env()) for _ in range(racers)]
    (folder / "go").write_text("")
    results = [tuple(map(int, p.communicate(timeout=HANG_GUARD_S)[0].split() or (0, 0))) for p in procs]
    return sum(h for h, _ in results), sum(o for _, o in results)


def _victim(path: Path, text: str = "precious\n") -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def outputs_round_three(tmp: Path) -> list[Row]:
    import stat

    import torch

    from engine.config import Config
    from engine.io.tables import read_known
    from engine.project import Project

    g = "outputs"
    rows: list[Row] = []
    files = write_cipher(tmp / "cipher", n_stems=10, n_inscriptions=8)
    sample = ROOT / "resources" / "sample"

    # 1. a planted -shm/-wal link: never chmod'ed through, the project refused
    for side in ("-shm", "-wal"):
        project = tmp / f"p{side}.decipher"
        new_project(project, files)
        key = _victim(tmp / f"key{side}.pem", "secret\n")
        os.chmod(key, 0o400)
        Path(f"{project}{side}").unlink(missing_ok=True)
        Path(f"{project}{side}").symlink_to(key)
        results = [cli("project", "info", project), cli("project", "import", project, "--prior", files["gold"]),
                   cli("run", "--project", project, "--steps", "1", *FAST)]
        mode = stat.S_IMODE(os.stat(key).st_mode)
        ok = all(r.code == 2 and r.one_line and "symbolic link" in r.first for r in results) and mode == 0o400
        rows.append(Row(g, f"planted `P.decipher{side}` -> a chmod 400 file", "`project info`, `project import`, "
                        "`run --project` on P", "exit 2, one line naming the link, the target's mode 400",
                        f"exit codes {[r.code for r in results]}; {results[0].first}; target mode {mode:o}", ok))

    # 2. files the user did not name: refused when there, never written through a link
    d = tmp / "cog"
    d.mkdir()
    _victim(d / "lost.csv", "mine\n")
    victim = _victim(tmp / "victim.csv")
    (d / "known.csv").symlink_to(victim)
    r = cli("import-cog", sample / "sample.cog", "--out", d)
    kept = (d / "lost.csv").read_text() == "mine\n" and victim.read_text() == "precious\n"
    rows.append(refused(g, "`import-cog --out D` over the user's files", "D/lost.csv exists, D/known.csv -> "
                        "../victim.csv", r, "already there", (kept, "both kept" if kept else "OVERWRITTEN")))
    (d / "lost.csv").unlink()
    r = cli("import-cog", sample / "sample.cog", "--out", d, "--force")
    kept = victim.read_text() == "precious\n"
    rows.append(refused(g, "`import-cog --out D --force` with a planted link", "D/known.csv -> ../victim.csv", r,
                        "symbolic link", (kept, "victim unchanged" if kept else "VICTIM REWRITTEN")))
    s = tmp / "sample"
    s.mkdir()
    (s / "gold.csv").symlink_to(tmp / "dangling-target.csv")
    r = cli("sample", "--out", s)
    kept = not (tmp / "dangling-target.csv").exists()
    rows.append(refused(g, "`sample --out S` with a dangling link", "S/gold.csv -> a file not yet there", r,
                        "gold.csv", (kept, "nothing made through it" if kept else "WRITTEN THROUGH")))
    o = tmp / "run-out"
    o.mkdir()
    _victim(o / "metrics.json", "{}\n")
    r = cli("run", "--lost", files["lost"], "--known", files["known"], "--steps", "1", "--out", o, *FAST)
    forced = cli("run", "--lost", files["lost"], "--known", files["known"], "--steps", "1", "--out", o, "--force",
                 *FAST)
    replaced = (o / "metrics.json").read_text() != "{}\n"
    rows.append(refused(g, "`run --out D` over an earlier run's files", "D/metrics.json there; then with --force",
                        r, "already there", (forced.code == 0 and replaced,
                                             f"--force: exit {forced.code}, metrics.json replaced {replaced}")))
    project = tmp / "export.decipher"
    _export_project(project, tmp, n=20)
    c = tmp / "cldf"
    c.mkdir()
    victim = _victim(tmp / "victim-forms.csv")
    (c / "forms.csv").symlink_to(victim)
    r = cli("project", "export", project, "--cldf", c, "--run", "1")
    kept = victim.read_text() == "precious\n"
    rows.append(refused(g, "`project export --cldf OUT` through a link", "OUT/forms.csv -> elsewhere", r,
                        "symbolic link", (kept, "target unchanged" if kept else "TARGET REWRITTEN")))
    shots = tmp / "shots"
    shots.mkdir()
    victim = _victim(tmp / "victim.png")
    (shots / "shot-pins.png").symlink_to(victim)
    gui = subprocess.run([sys.executable, "-m", "decipher_gui", "--screenshot", str(shots / "shot.png"), "--steps", "0",
                          "--panels", str(project)], capture_output=True, text=True, cwd=ROOT, timeout=HANG_GUARD_S,
                         env=dict(env(), QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp / "config")))
    r = Result(gui.returncode, gui.stdout, "\n".join(x for x in gui.stderr.splitlines() if x.startswith("decipher-gui")))
    kept = victim.read_text() == "precious\n"
    rows.append(refused(g, "`decipher-gui --screenshot S/shot.png --panels` with a planted link",
                        "S/shot-pins.png -> elsewhere", r, "shot-pins.png", (kept, "target unchanged" if kept
                                                                             else "TARGET REWRITTEN")))

    # 3. project new --force while a run trains
    live = tmp / "live.decipher"
    new_project(live, files)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        with Project.open(live) as pr:
            run_id = pr.start_run(Config(), None, None, pid=sleeper.pid)
        before = sha(live)
        r = cli("project", "new", "--force", live)
        kept = sha(live) == before
    finally:
        sleeper.kill()
        sleeper.wait()
    rows.append(refused(g, "`project new --force P` while a run of P trains", "a run of P recorded by a live process",
                        r, f"run {run_id}", (kept, "P unchanged" if kept else "P REPLACED")))

    # 4. the lock's take-over
    held, overlaps = lock_race(tmp / "race")
    rows.append(Row(g, "a dead owner's folder lock taken over by racing processes", "4 processes each taking it "
                    "60 times, each leaving it naming a dead pid; a slow look at the owner widens the window",
                    "never two inside at once", f"held {held} times, {overlaps} overlaps", overlaps == 0 and held == 240))

    # 5. the app at launch on a crafted run_config
    for stored in ('"abc"', "5"):
        crafted = tmp / f"config-{len(stored)}.decipher"
        new_project(crafted, files)
        plant(crafted, f"INSERT OR REPLACE INTO setting (key, value) VALUES ('run_config', '{stored}')")
        info, r = app_at_launch(crafted)
        ok = info.get("opened") is True and "Traceback" not in r.err and r.code == 0
        rows.append(Row(g, f"run_config setting {stored}: the app at launch", "`open_at_launch` (headless)",
                        "opens, the value ignored with a warning, no traceback",
                        f"exit {r.code}; opened {info.get('opened')}; "
                        f"{'warning logged' if 'ignored' in r.err else 'no warning'}", ok and "ignored" in r.err))

    # 6 and 13. terminal output
    shown = tmp / "shown.decipher"
    new_project(shown, files)
    plant(shown, "UPDATE corpus SET name = 'lo' || char(27) || ']0;pwned' || char(7) || char(27) || '[2Jst', "
                 "source = printf('%.*c', 60000000, 's')",
          "UPDATE language SET name = 'kno' || char(10) || 'wn'")
    run_cli = cli("run", "--project", shown, "--steps", "1", *FAST)
    info, runs = cli("project", "info", shown), cli("project", "runs", shown)
    clean = "\x1b" not in info.out + runs.out and "\x07" not in info.out
    rows.append(Row(g, "terminal escapes and a newline in names; a 60 MB corpus.source", "sqlite3 writes them; "
                    "`project info`, `project runs`", "escapes shown as \\x1b, one line per run, output cut with a count",
                    f"exit {info.code}, {runs.code}; {len(info.out):,} characters; no raw escape: {clean}; "
                    f"runs lines {len(runs.out.splitlines())}",
                    run_cli.code == 0 and info.code == runs.code == 0 and clean and len(info.out) < 20_000
                    and "more characters" in info.out and len(runs.out.splitlines()) == 2))

    # 7. the formula guard on run outputs, round-tripping code columns
    crafted_known = tmp / "@known.csv"
    stems = read_known(files["known"])
    crafted_known.write_text("form,ipa,gloss\n" + "".join(f"={s.form},{s.ipa},@g{i}\n" for i, s in enumerate(stems)),
                             encoding="utf-8")
    y = tmp / "seeds"
    r = cli("run", "--lost", files["lost"], "--known", crafted_known, "--seeds", "0", "--steps", "2", "--out", y,
            "--set", "eval_interval=1", *FAST)
    live_cells = {name: _live(y / name) for name in ("seed-0/matches.csv", "consensus.csv", "results.csv")
                  if (y / name).exists()}
    rows.append(Row(g, "a crafted known file: run outputs", "`run --seeds 0` with forms =…, glosses @…, the file "
                    "named @known.csv", "matches.csv, consensus.csv, results.csv: no live formula cell",
                    f"exit {r.code}; live cells {live_cells}", r.code == 0 and len(live_cells) == 3
                    and not any(live_cells.values())))
    report = tmp / "codes.csv"
    report.write_text("inscription_id,span_start,span_end,lost_span,lost_span_code,rank,stem,stem_code,stem_ipa\n"
                      "E.1,0,3,@rpl,@rpl,1,-ke,-ke,ke\n", encoding="utf-8")
    codes = tmp / "codes.decipher"
    shutil.copy(project, codes)
    first = cli("project", "import", codes, "--matches", report)
    out = tmp / "codes-out.csv"
    e = cli("project", "export", codes, "--matches", out, "--run", "3") if first.code == 0 else first
    back = cli("project", "import", codes, "--matches", out)
    with Project.open(codes, read_only=True) as pr:
        spans = [m.span for m in pr.matches(pr.runs()[-1].id)]
    rows.append(Row(g, "a code column through export and re-import", "`lost_span_code` @rpl exported (guarded), "
                    "imported again", "written '@rpl, read back @rpl", f"exit {e.code}, {back.code}; "
                    f"{'written' if out.exists() and chr(39) + '@rpl' in out.read_text(encoding='utf-8') else 'NOT GUARDED'}; read "
                    f"back {spans}", e.code == back.code == 0 and spans == ["@rpl"]))

    # 8. special files
    fifo = tmp / "fifo"
    os.mkfifo(fifo)
    for name, path in (("/dev/zero", Path("/dev/zero")), ("a FIFO", fifo)):
        started = time.monotonic()
        r = cli("run", "--lost", path, "--known", files["known"], "--steps", "1", "--out", tmp / "special", *FAST)
        took = time.monotonic() - started
        rows.append(refused(g, f"`--lost` {name}", "`decipher run --lost` given it", r, "not a regular file",
                            (took < 60, f"{took:.0f} s")))

    # 9 and 10. glosses in the digest; resume checks
    y = tmp / "gloss"
    k = tmp / "gloss-known.csv"
    shutil.copy(files["known"], k)
    seeds = ["run", "--lost", files["lost"], "--known", k, "--seeds", "0", "--steps", "1", "--out", y, *FAST]
    first = cli(*seeds)
    from engine.corpus import Stem
    from engine.io.tables import write_known

    edited = read_known(k)
    write_known(k, [Stem(st.form, st.ipa, "new gloss" if i == 0 else st.gloss, st.source) for i, st in enumerate(edited)])
    second = cli(*seeds)
    rows.append(Row(g, "a gloss edited after a finished seed", "`run --seeds 0`, one gloss edited, the same again",
                    "says the known file changed, reruns", f"exit {first.code}, {second.code}; "
                    f"{'known file changed' if 'known file changed' in second.err else 'NOT RERUN'}",
                    first.code == second.code == 0 and "known file changed" in second.err))
    ck = tmp / "ck"
    cli("run", "--lost", files["lost"], "--known", files["known"], "--steps", "2", "--out", ck, *FAST)
    renamed = tmp / "renamed.csv"
    lines = files["known"].read_text(encoding="utf-8").splitlines()
    renamed.write_text("\n".join([lines[0]] + [f"x{x}" for x in lines[1:]]) + "\n", encoding="utf-8")
    resume = ["run", "--lost", files["lost"], "--known", renamed, "--resume", ck / "checkpoint.pt", "--steps", "3",
              "--quiet", "--out"]
    r = cli(*resume, tmp / "re1")
    forced = cli(*resume, tmp / "re2", "--force-resume")
    recorded = _metrics(tmp / "re2" / "metrics.json").get("forced_resume")
    rows.append(refused(g, "resume with every form renamed", "`run --resume` of a checkpoint with the known forms "
                        "renamed (the same IPA)", r, "another known vocabulary",
                        (forced.code == 0 and bool(recorded), f"--force-resume: exit {forced.code}, recorded "
                                                              f"{bool(recorded)}")))
    state = torch.load(ck / "checkpoint.pt", weights_only=True)
    for fmt in ("decipher-checkpoint/99", "not-a-checkpoint"):
        bad = tmp / f"format-{fmt.replace('/', '-')}.pt"
        torch.save({**state, "format": fmt}, bad)
        r = cli("run", "--lost", files["lost"], "--known", files["known"], "--resume", bad, "--quiet", "--out",
                tmp / f"out-{bad.stem}")
        rows.append(refused(g, f"checkpoint format {fmt!r}", "`run --resume` of a real checkpoint with its format "
                            "replaced", r, "format"))

    # 11. an export of a run in progress
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        from engine.results import Alternative, Match

        with Project.open(project) as pr:
            run_id = pr.start_run(Config(steps=90), None, None, pid=sleeper.pid)
            pr.record_matches(run_id, [Match("E.1", 0, 3, "=ku", (Alternative(1, "-ke", "ke", -0.5, "", -1.0),),
                                             confidence=0.5)])
            pr.heartbeat(run_id, 40)
        r = cli("project", "export", project, "--matches", tmp / "progress.csv", "--run", str(run_id))
    finally:
        sleeper.kill()
        sleeper.wait()
    said = f"run {run_id} is still running, at step 40 of 90" in r.err
    rows.append(Row(g, "export of a run in progress", "`project export --matches` of a run at step 40 of 90 "
                    "(its process alive)", "exit 0, says it is unfinished and its step",
                    f"exit {r.code}; {'says: still running, at step 40 of 90' if said else 'SAYS NOTHING'}",
                    r.code == 0 and said))

    # 12 and 14. tracebacks; --screenshot on a refused file
    vowelless = tmp / "vowelless.csv"
    vowelless.write_text("form,ipa\nbcdfgh,bkdfgh\nkstpqr,kstpqr\n", encoding="utf-8")
    r = cli("run", "--lost", files["lost"], "--known", vowelless, "--steps", "1", "--out", tmp / "syl",
            "--set", "signs=syllables", *FAST)
    rows.append(refused(g, "`--set signs=syllables` with a vowel-less vocabulary", "`decipher run`", r, "vowel"))
    import contextlib
    import io

    from engine.cli.main import main as cli_main

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        cli_main(["import-cog", str(sample / "sample.cog"), "--out", str(tmp / "warm-cog")])  # the child's modules
    ro = tmp / "ro-cog"
    ro.mkdir()
    os.chmod(ro, 0o555)
    if os.getuid() == 0:
        os.chmod(tmp, 0o755)
        os.chmod(tmp.parent, 0o755)
    try:
        r = main_as_nobody("import-cog", sample / "sample.cog", "--out", ro)
    finally:
        os.chmod(ro, 0o755)
    rows.append(refused(g, "`import-cog` into a read-only folder", "(CLI main in a forked child, as user nobody "
                        "when run as root) a 555 folder", r, "permission denied"))
    bad = tmp / "refused.decipher"
    new_project(bad, files)
    plant(bad, "INSERT INTO run (status, config, started_at) VALUES ('completed', '{broken', 'x')")
    gui = subprocess.run([sys.executable, "-m", "decipher_gui", "--screenshot", str(tmp / "refused.png"), "--steps",
                          "0", str(bad)], capture_output=True, text=True, cwd=ROOT, timeout=HANG_GUARD_S,
                         env=dict(env(), QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp / "config")))
    r = Result(gui.returncode, gui.stdout, "\n".join(x for x in gui.stderr.splitlines() if x.startswith("decipher-gui")))
    rows.append(refused(g, "`--screenshot` on a refused project file", "`decipher-gui --screenshot` of a project with "
                        "a malformed cell", r, "column config", (not (tmp / "refused.png").exists(), "no picture")))
    return rows


GROUPS = (*GROUPS, "outputs")
RUNNERS["outputs"] = outputs_round_three


def cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def table(rows: Sequence[Row]) -> str:
    lines = ["| group | fault | how it was injected | expected | observed | result |",
             "|---|---|---|---|---|---|"]
    lines += [f"| {r.group} | {cell(r.fault)} | {cell(r.injected)} | {cell(r.expected)} | {cell(r.observed)} | "
              f"{'PASS' if r.ok else 'FAIL'} |" for r in rows]
    return "\n".join(lines) + "\n"


def run_groups(groups: Sequence[str], folder: Path | None = None) -> list[Row]:
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="reliability-") as tmp:
        base = Path(folder or tmp)
        for group in groups:
            where = base / group
            where.mkdir(parents=True, exist_ok=True)
            try:
                rows += RUNNERS[group](where)
            except Exception as e:  # a crash of the harness is a failed row, not a lost table
                rows.append(Row(group, "(the group itself)", "-", "runs", f"{type(e).__name__}: {e}", False))
        # temporary paths shown as $TMP, so the table reads the same from run to run
        real = str(base.resolve())
        rows = [Row(*(v.replace(real, "$TMP").replace(str(base), "$TMP").replace(str(ROOT) + "/", "")
                      if isinstance(v, str) else v
                      for v in astuple(r))) for r in rows]
    return rows


def document(rows: Sequence[Row], command: str, seconds: float) -> str:
    failed = sum(not r.ok for r in rows)
    load = os.getloadavg()
    return ("# Reliability: every fault tried\n\n"
            "Generated by `benchmarks/reliability.py` (issue 9, \"must be shown\"); do not edit by hand.\n"
            "Every row runs the real command line (`python -m engine.cli` in a subprocess) on real temporary\n"
            "files. A full disk is a file size limit (RLIMIT_FSIZE with SIGXFSZ ignored: writes fail with\n"
            "EFBIG, as they fail with ENOSPC on a full disk); read-only files are checked as the user\n"
            "`nobody` when run as root (root ignores permissions).\n\n"
            f"Command: `{command}`\n\n"
            f"{len(rows)} rows, {len(rows) - failed} PASS, {failed} FAIL; {seconds:.0f} s wall on "
            f"{os.cpu_count()} cores, load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} at the end.\n\n"
            + table(rows))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=",".join(GROUPS), help=f"comma-separated groups of {', '.join(GROUPS)}")
    parser.add_argument("--write", type=Path, help="also write the table as a markdown document")
    args = parser.parse_args(argv)
    groups = [g.strip() for g in args.only.split(",") if g.strip()]
    unknown = [g for g in groups if g not in RUNNERS]
    if unknown:
        parser.error(f"unknown group(s) {unknown}; choose from {', '.join(GROUPS)}")
    started = time.monotonic()
    rows = run_groups(groups)
    print(table(rows), end="")
    if args.write:
        command = "python -m benchmarks.reliability" + ("" if args.only == ",".join(GROUPS) else f" --only {args.only}") \
            + f" --write {args.write}"
        args.write.write_text(document(rows, command, time.monotonic() - started), encoding="utf-8")
    return 1 if any(not r.ok for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
