"""GUI responsiveness: launch-to-shown time, and the longest event-loop gap while a run trains.

    .venv/bin/python benchmarks/gui_responsiveness.py [--repeat 3] [--steps 60] [--interval 5] [--load 2]
        [--sweep 2] [--comparison 2] [--tree DIR]

Each repetition is a fresh process (so the first-run torch import is included). A QTimer on the
GUI thread ticks every ``--interval`` ms; the gaps between its ticks say how long the event loop
was blocked. The run trains on the bundled sample project with its own settings (except steps,
eval_interval). Prints one line per repetition and the medians; ``--json`` writes them too.

``--load N`` keeps N CPU-bound processes (a pure-Python busy loop each, at normal priority)
running during the measured runs, as other programs on a busy machine would; the load average
before and after is printed so the conditions are on record.
``--sample`` samples the threads' stacks every 10 ms and says, for the worst gaps, where the GUI
thread was during the gap and where the training thread was just after it (only where the run
trains on a thread of the app's process, i.e. before the run moved to a child process).

``--sweep N`` runs ``decipher sweep --workers N`` on the sample's files (as a user would, so its
workers have the sweep's default priority) during the measured runs. ``--tree DIR`` measures the
app in another source tree (e.g. an export of an older commit), with this script. ``--bare S``
measures the floor instead: a Qt event loop with nothing but the probe for S seconds, under the
same load (what the machine's scheduler alone costs a window).

``--comparison N`` measures the window while a comparison started from the app runs instead of a
run: the path of Run ▸ Compare known languages… (the dialog's request, the controller's start with
its LocalPool of N worker processes at the workers' default priority) compares the sample's lost
text against the sample's known list and the bundled Gothic sample's Proto-Germanic list (cut to
one size), with 1 seed, ``--nulls`` null vocabularies each and ``--steps`` steps per run; the
window measured is the click to the comparison shown (figure, table and closeness.png).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TREE = ROOT  # the app's source tree under measurement (--tree)
sys.path.insert(0, str(ROOT))
import benchmarks  # noqa: E402,F401  (records the result files this run writes: benchmarks/commit.py)


def _env(tmp: Path, tree: Path = ROOT) -> dict:
    env = dict(os.environ)
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    env.update(XDG_CONFIG_HOME=str(tmp / "config"), DECIPHER_GUI_DATA_DIR=str(tmp / "appdata"),
               PYTHONPATH=str(tree) + os.pathsep + env.get("PYTHONPATH", ""))
    return env


def comparison_lists() -> list[Path]:
    """The files a --comparison needs: the bundled sample's lost and known lists (its project is
    made from them) and the Gothic sample's known list (the second candidate)."""
    from engine.resources import resource

    sample, gothic = resource("sample"), resource("sample-gothic")
    return [sample / "sample.toml", sample / "lost.csv", sample / "known.csv", gothic / "known.csv"]


def start_sweep(workers: int, tmp: Path, tree: Path) -> subprocess.Popen:
    """``decipher sweep`` on the sample's files with ``workers`` processes and enough runs to outlast
    the measurement (it is killed at the end); its workers keep the sweep's default niceness."""
    sample = tree / "resources" / "sample"
    cmd = [sys.executable, "-m", "engine.cli", "sweep", "--lost", str(sample / "lost.csv"), "--known",
           str(sample / "known.csv"), "--seeds", *map(str, range(200)), "--steps", "400", "--device", "cpu",
           "--workers", str(workers), "--out", str(tmp / "sweep")]
    env = _env(tmp, tree)
    env.pop("DECIPHER_WORKER_NICE", None)
    return subprocess.Popen(cmd, cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)


def _comparison_env(env: dict) -> dict:
    """The app's environment for --comparison: its workers at their default priority, as a user's are."""
    env = dict(env)
    env.pop("DECIPHER_WORKER_NICE", None)
    return env


def launch_time(project: Path, tmp: Path) -> float:
    """Seconds from starting the process to the window shown (the app prints SHOWN <epoch>)."""
    t0 = time.time()
    out = subprocess.run([sys.executable, "-m", "decipher_gui", "--exit-when-shown", str(project)],
                         cwd=TREE, env=_env(tmp, TREE), capture_output=True, text=True, timeout=300)
    line = next((x for x in out.stdout.splitlines() if x.startswith("SHOWN")), None)
    if line is None:
        raise RuntimeError(out.stderr[-2000:])
    return float(line.split()[1]) - t0


def _profile_path(path: Path, i: int, repeat: int) -> Path:
    """Where repetition ``i`` (from 0) writes its profile: ``path`` itself for one repetition, else
    the repetition's number before the suffix; absolute, since the run's process has another cwd."""
    path = path.resolve()
    return path if repeat == 1 else path.with_name(f"{path.stem}-{i + 1}{path.suffix}")


def _cause(start: float, end: float, spans) -> str:
    """What overlapped a gap: the GUI-thread work (handlers, redraws, Python paint methods) and
    garbage collections that fell in it, with their ms, or "paint/GIL" when none did (C++
    painting, waiting for the GIL, or waiting for a core)."""
    parts: dict[str, float] = {}
    for a, b, name in spans:
        overlap = min(end, b) - max(start, a)
        if overlap > 0:
            parts[name] = parts.get(name, 0.0) + overlap
    if not parts or max(parts.values()) < 0.1 * (end - start):
        return "paint/GIL"
    top = sorted(parts.items(), key=lambda kv: -kv[1])[:3]
    return " + ".join(f"{name} {ms * 1000:.0f} ms" for name, ms in top)


def _split_text(split, gap: float) -> str:
    """One gap's time by the kernel's counters: the GUI thread's CPU, its wait for a core, the time
    it slept (timer, GIL, lock), and the other threads of the process that ran meanwhile."""
    if split is None:
        return ""
    others = sorted(split.others_cpu.items(), key=lambda kv: -kv[1])[:2]
    text = (f"GUI cpu {split.gui_cpu * 1000:.0f} / wait for a core {split.gui_wait * 1000:.0f} / slept "
            f"{split.slept(gap) * 1000:.0f} ms")
    if others:
        text += "; meanwhile " + ", ".join(f"{name} {cpu * 1000:.0f} ms" for name, cpu in others)
    return text


def _gap_budget(rep, threshold: float = 0.02) -> dict:
    """Summed over the gaps longer than ``threshold``: how much was the GUI thread's CPU, its wait
    for a core, and sleep (ms), and the number of such gaps."""
    out = {"gaps": 0, "gui_cpu_ms": 0.0, "gui_wait_ms": 0.0, "slept_ms": 0.0}
    if rep.splits is None:
        return out
    for (_, gap), split in zip(rep.gaps, rep.splits):
        if gap > threshold:
            out["gaps"] += 1
            out["gui_cpu_ms"] += split.gui_cpu * 1000
            out["gui_wait_ms"] += split.gui_wait * 1000
            out["slept_ms"] += split.slept(gap) * 1000
    return {k: round(v, 1) for k, v in out.items()}


def _worst(rep, t0: float, spans, n: int = 5) -> list:
    order = sorted(range(len(rep.gaps)), key=lambda i: -rep.gaps[i][1])[:n]
    return [(round(rep.gaps[i][0], 3), round(rep.gaps[i][1] * 1000, 1),
             _cause(t0 + rep.gaps[i][0], t0 + sum(rep.gaps[i]), spans),
             _split_text(rep.splits[i] if rep.splits else None, rep.gaps[i][1])) for i in order]


def _gap_fields(rep, t0: float, spans, marks: dict, costs: dict, app_cpu: float) -> dict:
    """The fields every measured condition reports about its gaps and the GUI thread's CPU."""
    duration = max(1e-9, marks["end"] - t0)
    return {
        "worst_gaps": _worst(rep, t0, spans),
        "gaps_over_20ms_budget": _gap_budget(rep),
        "gaps_over_20ms": rep.over(0.02),
        "gaps_over_20ms_per_s": rep.over(0.02) / duration,
        "gui_wait_share": _gap_budget(rep)["gui_wait_ms"] / 1000 / duration,
        "gui_slice_ns": _slice_ns(),
        "phases_s": {k: round(v - t0, 3) for k, v in marks.items()},
        "torch_in_app_process": "torch" in sys.modules,
        "gui_cpu_ms": {what: {"n": len(v), "total": round(sum(v) * 1000, 1), "max": round(max(v) * 1000, 1)}
                       for what, v in sorted(costs.items(), key=lambda kv: -sum(kv[1]))},
        "app_cpu_share": app_cpu / max(1e-9, marks["end"] - marks["click"]),
    }


def _probe_class():
    """This checkout's EventLoopProbe, also when ``--tree`` measures an older app (whose probe may
    lack the per-thread counters): the measurement stays the same for every tree."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_bench_probe", ROOT / "decipher_gui" / "probe.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module.EventLoopProbe


def _slice_ns() -> int | None:
    try:
        with open("/proc/thread-self/sched", encoding="ascii") as f:
            return next((int(x.split(":")[1]) for x in f if x.startswith("se.slice")), None)
    except OSError:
        return None


def _short_slice_if_the_tree_asks() -> bool:
    """What the tree's make_application does for the GUI thread's scheduling (none before latency.py)."""
    try:
        from decipher_gui.latency import request_short_slice
    except ImportError:
        return False
    return request_short_slice()


def bare(args) -> None:
    """The floor: the longest gap of an event loop that does nothing but tick."""
    from PySide6.QtCore import QCoreApplication, QEventLoop, QTimer

    EventLoopProbe = _probe_class()
    slice_asked = _short_slice_if_the_tree_asks()
    app = QCoreApplication.instance() or QCoreApplication([])
    probe = EventLoopProbe(args.interval, threads=True)
    probe.start()
    loop = QEventLoop()
    QTimer.singleShot(int(args.bare * 1000), loop.quit)
    loop.exec()
    probe.stop()
    rep = probe.report()
    print("RESULT " + json.dumps({"longest_gap_ms": rep.longest * 1000, "p99_gap_ms": rep.percentile(0.99) * 1000,
                                  "gaps_over_50ms": rep.over(0.05), "worst_gaps": _worst(rep, probe.t0, []),
                                  "gaps_over_20ms_budget": _gap_budget(rep), "gaps_over_20ms": rep.over(0.02),
                                  "short_slice": slice_asked}), flush=True)
    del app


def child(args) -> None:
    """One repetition inside this process: open the project, run, probe the event loop."""
    from PySide6.QtCore import QCoreApplication

    from decipher_gui import settings
    from decipher_gui.app import dispose, make_application
    from decipher_gui.mainwindow import MainWindow, process_until
    from engine.config import Config
    from engine.datasets.sample import RUN_CONFIG_KEY

    EventLoopProbe = _probe_class()
    settings.SETTINGS_PATH = Path(args.tmp) / "settings.ini"
    app = make_application()
    if os.environ.get("PROBE_SWITCH_INTERVAL"):  # compare: the app itself sets 0.002
        sys.setswitchinterval(float(os.environ["PROBE_SWITCH_INTERVAL"]))
    handler_times: dict[str, list[float]] = {"steps": [], "eval": []}
    spans: list[tuple[float, float, str]] = []  # (start, end, what) of GUI-thread work and GC pauses
    costs: dict[str, list[float]] = {}  # what -> the GUI thread's CPU seconds of each occurrence
    from decipher_gui.live import LiveRunBridge

    for name, key in (("_on_steps", "steps"), ("_on_eval", "eval")):
        original = getattr(LiveRunBridge, name)

        def timed(self, payload, _original=original, _key=key):
            t, c = time.perf_counter(), time.thread_time()
            _original(self, payload)
            handler_times[_key].append(time.perf_counter() - t)
            spans.append((t, time.perf_counter(), f"{_key} handler"))
            costs.setdefault(f"{_key} handler", []).append(time.thread_time() - c)

        setattr(LiveRunBridge, name, timed)
    # other GUI-thread work a gap can be charged to: the bridge's deferred redraws, the window's
    # refreshes, and the Python paint methods of the plots and the inscription view
    from decipher_gui.mainwindow import MainWindow as _Window
    from decipher_gui.panels.inscriptions import InscriptionView
    from pyqtgraph import GraphicsView

    def span_of(cls, name, what):
        original = getattr(cls, name, None)
        if original is None:
            return

        def spanned(*a, _original=original, **k):
            t, c = time.perf_counter(), time.thread_time()
            try:
                return _original(*a, **k)
            finally:
                spans.append((t, time.perf_counter(), what))
                costs.setdefault(what, []).append(time.thread_time() - c)

        setattr(cls, name, spanned)

    from decipher_gui.comparison import ComparisonController
    from decipher_gui.panels.plots import ComparisonView

    for cls, name, what in ((ComparisonController, "_progressed", "comparison progress"),
                            (ComparisonController, "_planned", "comparison planned"),
                            (ComparisonController, "_finished", "comparison shown"),
                            (ComparisonController, "_draw_step", "comparison figure step"),
                            (ComparisonController, "_answer", "comparison table+answer"),
                            (ComparisonView, "export_png", "closeness.png"),
                            (LiveRunBridge, "_after_steps", "views redraw"), (LiveRunBridge, "_flush_plots", "plots update"),
                            (LiveRunBridge, "_after_eval", "eval views"), (LiveRunBridge, "_on_run_recorded", "run recorded"),
                            (LiveRunBridge, "set_run_state", "run state"), (_Window, "refresh_runs", "runs table"),
                            (GraphicsView, "paintEvent", "plot paint"), (InscriptionView, "viewportEvent", "inscriptions paint")):
        span_of(cls, name, what)
    gc_start: list[float] = []

    import threading

    gui_thread = threading.get_ident()

    def on_gc(phase, info):
        if phase == "start":
            gc_start[:] = [time.perf_counter(), time.thread_time()]
        elif gc_start:
            where = "" if threading.get_ident() == gui_thread else f" ({threading.current_thread().name})"
            spans.append((gc_start[0], time.perf_counter(), f"gc gen{info['generation']}{where}"))
            costs.setdefault(f"gc gen{info['generation']}{where}", []).append(time.thread_time() - gc_start[1])

    gc.callbacks.append(on_gc)
    samples: list[tuple[float, str]] = []  # (time, the training thread's innermost frames)
    gui_samples: list[tuple[float, str]] = []  # (time, the GUI thread's innermost frames)
    if args.sample:
        import threading

        gui_ident = threading.get_ident()
        stop_sampling = threading.Event()

        def sampler():
            # needs the GIL like any Python thread: during a stretch where the training thread
            # holds it, no sample is taken, and the first one after shows where that thread was
            while not stop_sampling.wait(0.01):
                now = time.perf_counter()
                for ident, frame in sys._current_frames().items():
                    if ident == threading.get_ident():
                        continue
                    names = []
                    while frame is not None and len(names) < 4:
                        names.append(f"{Path(frame.f_code.co_filename).stem}.{frame.f_code.co_name}")
                        frame = frame.f_back
                    if ident == gui_ident:
                        gui_samples.append((now, " < ".join(names)))
                    elif any(n.startswith(("training", "model", "lattice", "kernels", "alignment", "trie",
                                         "decoding", "evaluation", "driver", "session", "closeness", "runprocess",
                                         "connection", "popen_spawn_posix", "worker"))
                           for n in names):
                        samples.append((now, " < ".join(names)))

        threading.Thread(target=sampler, daemon=True).start()
    window = MainWindow(restore_state=False)
    window.resize(1600, 1000)
    window.open_project(args.project)
    window.show()
    for _ in range(5):
        app.processEvents()
    probe = EventLoopProbe(args.interval, threads=True)
    # idle baseline
    probe.start()
    process_until(lambda: False, 1500)
    idle = probe.report()
    probe.stop()
    if args.comparison:
        result = _comparison_window(args, window, probe, idle, spans, costs)
        window.close()
        dispose(window)
        QCoreApplication.processEvents()
        print("RESULT " + json.dumps(result), flush=True)
        return

    marks: dict[str, float] = {}
    updates: list[float] = []
    window.controller.started.connect(lambda _: marks.setdefault("started", time.perf_counter()))
    window.controller.stepsArrived.connect(lambda _: updates.append(time.perf_counter()))
    window.controller.evaluated.connect(lambda _: marks.setdefault("first_eval", time.perf_counter()))
    ended: list[str] = []
    window.runEnded.connect(ended.append)
    base = Config.from_dict(dict(window.project.setting(RUN_CONFIG_KEY)))
    config = base.replace(steps=args.steps, eval_interval=max(1, args.steps // 3), device="cpu")
    profiler = None
    if args.profile:  # the GUI thread's own work during the run (cProfile follows one thread)
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    costs.clear()  # the run's work only
    probe.start()
    cpu0 = time.process_time()
    marks["click"] = time.perf_counter()
    window.start_run(config)
    process_until(lambda: bool(ended), 1_800_000)
    marks["end"] = time.perf_counter()
    app_cpu = time.process_time() - cpu0
    probe.stop()
    if profiler is not None:
        import pstats

        profiler.disable()
        with open(args.profile, "w", encoding="utf-8") as f:
            pstats.Stats(profiler, stream=f).sort_stats("cumulative").print_stats(60)
    rep = probe.report()
    t0 = probe.t0

    def rel(name):
        return marks.get(name, marks["end"]) - t0

    first_step = (updates[0] - t0) if updates else rel("end")
    training = rel("end") - first_step
    result = {
        "status": ended[-1] if ended else "timeout",
        "idle_longest_gap_ms": idle.longest * 1000,
        "longest_gap_ms": rep.longest * 1000,
        "p99_gap_ms": rep.percentile(0.99) * 1000,
        "gaps_over_50ms": rep.over(0.05),
        "startup_longest_gap_ms": rep.longest_between(0, first_step) * 1000,
        "training_longest_gap_ms": rep.longest_between(first_step, rel("end")) * 1000,
        "start_to_first_step_s": first_step,
        "training_s": training,
        "screen_updates_per_s": (len(updates) / training) if training > 0 else 0.0,
        "step_handler_max_ms": max(handler_times["steps"], default=0) * 1000,
        "step_handler_median_ms": statistics.median(handler_times["steps"]) * 1000 if handler_times["steps"] else 0,
        "eval_handler_max_ms": max(handler_times["eval"], default=0) * 1000,
        **_gap_fields(rep, t0, spans, marks, costs, app_cpu),
    }
    if args.sample:
        stop_sampling.set()
        where = []
        for t, g in sorted(rep.gaps, key=lambda x: -x[1])[:5]:
            end = t0 + t + g
            after = next((frames for when, frames in samples if when >= end - 0.005), "")
            during = [frames for when, frames in gui_samples if t0 + t <= when <= end]
            common = max(set(during), key=during.count) if during else "(no sample: the GIL was held)"
            where.append((round(g * 1000, 1), after, common, len(during)))
        result["worst_gaps_training_thread_after"] = where
    window.close()
    dispose(window)
    QCoreApplication.processEvents()
    print("RESULT " + json.dumps(result), flush=True)


def _comparison_window(args, window, probe, idle, spans, costs) -> dict:
    """Start a comparison the way Run ▸ Compare known languages… does (the dialog's request, the
    controller's start, whose default pool is a LocalPool of the dialog's worker processes) and
    probe the event loop from the click until the comparison is shown or has failed."""
    from decipher_gui.comparison import ComparisonDialog, controller
    from decipher_gui.mainwindow import process_until
    from decipher_gui.queries import run_defaults

    lists = comparison_lists()
    dialog = ComparisonDialog(window.project, run_defaults(window.project), window)
    dialog.add_file(lists[3], "Proto-Germanic (Gothic sample)")
    dialog.seeds.setText("0")
    dialog.nulls.setValue(args.nulls)
    dialog.steps.setValue(args.steps)
    dialog.workers.setValue(args.comparison)
    dialog.folder.setText(str(Path(args.tmp) / f"comparison-{Path(args.project).stem}"))
    request = dialog.request()
    dialog.deleteLater()
    c = controller(window)
    marks: dict[str, float] = {}
    progress: list[float] = []
    errors: list[str] = []
    costs.clear()  # the comparison's work only
    probe.start()
    cpu0 = time.process_time()
    marks["click"] = time.perf_counter()
    job = c.start(request)  # what the dialog's OK does (open_dialog -> start)
    job.planned.connect(lambda *_: marks.setdefault("planned", time.perf_counter()))
    job.progressed.connect(lambda _p: progress.append(time.perf_counter()))
    job.failed.connect(errors.append)
    job.stopped.connect(lambda: errors.append("stopped"))
    process_until(lambda: c.comparison is not None or bool(errors), 1_800_000)
    process_until(lambda: False, 300)  # the repaint after the answer is shown
    marks["end"] = time.perf_counter()
    app_cpu = time.process_time() - cpu0
    probe.stop()
    rep = probe.report()
    t0 = probe.t0
    first = (progress[0] - t0) if progress else marks["end"] - t0
    comparison = c.comparison
    return {
        "status": "finished" if comparison is not None else (errors[-1] if errors else "timeout"),
        "runs": len(comparison.trainings or comparison.records) if comparison is not None else 0,
        "workers": args.comparison,
        "idle_longest_gap_ms": idle.longest * 1000,
        "longest_gap_ms": rep.longest * 1000,
        "p99_gap_ms": rep.percentile(0.99) * 1000,
        "gaps_over_50ms": rep.over(0.05),
        "startup_longest_gap_ms": rep.longest_between(0, first) * 1000,
        "training_longest_gap_ms": rep.longest_between(first, marks["end"] - t0) * 1000,
        "start_to_first_step_s": first,  # here: the click to the first finished run
        "training_s": marks["end"] - t0 - first,
        "screen_updates_per_s": len(progress) / max(1e-9, marks["end"] - t0 - first),
        "step_handler_max_ms": 0.0, "step_handler_median_ms": 0.0, "eval_handler_max_ms": 0.0,
        **_gap_fields(rep, t0, spans, marks, costs, app_cpu),
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--interval", type=int, default=5, help="probe timer interval, ms")
    p.add_argument("--json", type=Path)
    p.add_argument("--load", type=int, default=0, help="CPU-bound background processes during the runs")
    p.add_argument("--load-session", choices=("same", "own"), default="same",
                   help="the busy processes in this script's session, i.e. the app's (default), or each in its "
                        "own, as programs started elsewhere on a desktop are (Linux schedules sessions as groups)")
    p.add_argument("--sweep", type=int, default=0, metavar="N",
                   help="run `decipher sweep --workers N` on the sample beside the app during the runs")
    p.add_argument("--comparison", type=int, default=0, metavar="N",
                   help="measure a comparison started from the app (Run ▸ Compare known languages…) with N worker "
                        "processes instead of a run: the sample against its known list and the Gothic sample's")
    p.add_argument("--nulls", type=int, default=1, help="with --comparison: null vocabularies per language")
    p.add_argument("--tree", type=Path, default=ROOT, help="the app's source tree to measure (default: this one)")
    p.add_argument("--skip-launch", action="store_true", help="measure the runs only")
    p.add_argument("--sample", action="store_true",
                   help="sample the training thread's stack, to say where it was when a gap ended")
    p.add_argument("--profile", type=Path, metavar="OUT.txt",
                   help="write a cProfile of the GUI thread during each run (OUT.txt; with --repeat N, OUT-1.txt … "
                        "OUT-N.txt)")
    p.add_argument("--bare", type=float, metavar="S", help="measure a bare event loop for S seconds (the floor)")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--project", type=Path, help=argparse.SUPPRESS)
    p.add_argument("--tmp", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        sys.path.insert(0, str(args.tree.resolve()))  # the app under measurement, before this checkout
        bare(args) if args.bare else child(args)
        return 0
    if args.comparison:
        missing = next((path for path in comparison_lists() if not path.is_file()), None)
        if missing is not None:
            print(f"gui_responsiveness.py: --comparison needs the bundled sample: {missing} is missing", file=sys.stderr)
            return 2
        if args.comparison < 1 or args.nulls < 0 or args.bare:
            print("gui_responsiveness.py: --comparison takes 1 or more workers, --nulls 0 or more, and no --bare",
                  file=sys.stderr)
            return 2
    global TREE
    TREE = args.tree.resolve()
    tmp = Path(tempfile.mkdtemp(prefix="gui-bench-"))
    load = [subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=args.load_session == "own")
            for _ in range(args.load)]
    sweep = start_sweep(args.sweep, tmp, TREE) if args.sweep else None
    try:
        return _measure(args, tmp)
    finally:
        for proc in load:
            proc.kill()
            proc.wait()
        if sweep is not None:
            os.killpg(sweep.pid, signal.SIGKILL)  # the sweep and its workers (their own session)
            sweep.wait()


def _measure(args, tmp: Path) -> int:
    from engine.datasets.sample import create_sample_project

    master = tmp / "sample.decipher"
    create_sample_project(master).close()
    launches, runs = [], []
    load_before = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {load_before:.2f}, "
          f"{args.load} busy background processes ({args.load_session} session), sweep workers {args.sweep}, tree {TREE}", flush=True)
    for i in range(0 if args.skip_launch else args.repeat):
        copy = tmp / f"launch{i}.decipher"
        shutil.copy(master, copy)
        launches.append(launch_time(copy, tmp))
        print(f"launch {i + 1}: {launches[-1]:.2f} s to a shown window", flush=True)
    if args.bare:
        floors = []
        for i in range(args.repeat):
            out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", "--bare", str(args.bare),
                                  "--interval", str(args.interval), "--tree", str(TREE)],
                                 cwd=TREE, env=_env(tmp, TREE), capture_output=True, text=True, timeout=3600)
            line = next((x for x in out.stdout.splitlines() if x.startswith("RESULT ")), None)
            if line is None:
                print(out.stderr[-3000:], file=sys.stderr)
                return 1
            floors.append(json.loads(line[7:]))
            print(f"bare {i + 1}: longest gap {floors[-1]['longest_gap_ms']:.0f} ms, p99 "
                  f"{floors[-1]['p99_gap_ms']:.0f} ms, >50 ms: {floors[-1]['gaps_over_50ms']}; gaps > 20 ms "
                  f"{floors[-1]['gaps_over_20ms_budget']}; worst gaps (t s, ms) {floors[-1]['worst_gaps']}", flush=True)
        load_after = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print(f"medians (bare event loop, {args.bare:g} s each): longest_gap_ms="
              f"{statistics.median(f['longest_gap_ms'] for f in floors):.3g}, p99_gap_ms="
              f"{statistics.median(f['p99_gap_ms'] for f in floors):.3g}, load_average_before={load_before:.3g}, "
              f"load_average_after={load_after:.3g}")
        if args.json:
            args.json.write_text(json.dumps({"note": "benchmarks/gui_responsiveness.py " + " ".join(sys.argv[1:]),
                                             "bare": floors, "load_average_before": load_before,
                                             "load_average_after": load_after}, indent=2) + "\n")
        return 0
    for i in range(args.repeat):
        copy = tmp / f"run{i}.decipher"
        shutil.copy(master, copy)
        out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", "--project", str(copy),
                              "--steps", str(args.steps), "--interval", str(args.interval), "--tmp", str(tmp),
                              "--tree", str(TREE)] + (["--sample"] if args.sample else [])
                             + (["--profile", str(_profile_path(args.profile, i, args.repeat))] if args.profile else [])
                             + (["--comparison", str(args.comparison), "--nulls", str(args.nulls)] if args.comparison else []),
                             cwd=TREE, env=_comparison_env(_env(tmp, TREE)) if args.comparison else _env(tmp, TREE),
                             capture_output=True, text=True, timeout=3600)
        line = next((x for x in out.stdout.splitlines() if x.startswith("RESULT ")), None)
        if line is None:
            print(out.stderr[-3000:], file=sys.stderr)
            return 1
        r = json.loads(line[7:])
        runs.append(r)
        print(f"run {i + 1}: {r['status']}, longest gap {r['longest_gap_ms']:.0f} ms (start-up "
              f"{r['startup_longest_gap_ms']:.0f}, training {r['training_longest_gap_ms']:.0f}), p99 "
              f"{r['p99_gap_ms']:.0f} ms, >50 ms: {r['gaps_over_50ms']}, idle {r['idle_longest_gap_ms']:.0f} ms, "
              f"{r['screen_updates_per_s']:.1f} updates/s, step handler max {r['step_handler_max_ms']:.0f} ms, "
              f"eval handler max {r['eval_handler_max_ms']:.0f} ms, app CPU {r.get('app_cpu_share', 0):.0%} of a core, torch in the app's process: "
              f"{r.get('torch_in_app_process')}; gaps > 20 ms {r['gaps_over_20ms_budget']}",
              flush=True)
        print("    GUI-thread CPU during the run (ms): " + "; ".join(
            f"{what} {c['n']}x, total {c['total']:.0f}, max {c['max']:.0f}" for what, c in r["gui_cpu_ms"].items()),
            flush=True)
        for t, gap_ms, cause, split in r["worst_gaps"]:
            print(f"    gap {gap_ms:.0f} ms at {t:.2f} s: {cause}; {split}", flush=True)
        for gap_ms, frames, gui, n in r.get("worst_gaps_training_thread_after", []):
            print(f"    gap {gap_ms:.0f} ms; training thread just after: {frames}; GUI thread during it "
                  f"({n} samples): {gui}", flush=True)
    med = {
        "launch_to_shown_s": statistics.median(launches) if launches else float("nan"),
        **{k: statistics.median(r[k] for r in runs) for k in (
            "longest_gap_ms", "startup_longest_gap_ms", "training_longest_gap_ms", "p99_gap_ms",
            "gaps_over_50ms", "gaps_over_20ms_per_s", "gui_wait_share", "idle_longest_gap_ms",
            "screen_updates_per_s", "step_handler_max_ms",
            "eval_handler_max_ms", "start_to_first_step_s", "training_s")},
    }
    med["background_processes"] = args.load
    med["load_in_own_session"] = int(args.load_session == "own")
    med["sweep_workers"] = args.sweep
    med["comparison_workers"] = args.comparison
    if args.comparison:
        med["comparison_runs"] = statistics.median(r["runs"] for r in runs)
        med["comparison_nulls"] = args.nulls
    med["load_average_before"] = load_before
    med["load_average_after"] = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print("medians: " + ", ".join(f"{k}={v:.3g}" for k, v in med.items()))
    if args.json:
        note = "benchmarks/gui_responsiveness.py " + " ".join(sys.argv[1:])
        args.json.write_text(json.dumps({"note": note, "medians": med, "launches": launches, "runs": runs},
                                        indent=2) + "\n")
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
