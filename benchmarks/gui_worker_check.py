"""The GUI's worker path without Qt (for a machine that has no PySide6, e.g. a GPU box): how long
importing torch and training stall another thread that ticks every 5 ms, as the window's would.

    python benchmarks/gui_worker_check.py import_plain            # plain `import torch`
    python benchmarks/gui_worker_check.py import_gentle           # as the app's worker does it
    python benchmarks/gui_worker_check.py import_cuda ctx|none    # + CUDA context, GIL-free or not
    python benchmarks/gui_worker_check.py run auto|cpu|cuda STEPS # a run of the sample project

Each prints one JSON line (worst gaps in ms, gaps over 50 ms, and the run's record).
"""
import gc
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
mode = sys.argv[1]

def tick_while(fn):
    ticks, res, done = [], {}, threading.Event()
    def work():
        try:
            res["v"] = fn()
        except BaseException:
            import traceback
            res["e"] = traceback.format_exc()
        finally:
            done.set()
    t0 = time.perf_counter(); th = threading.Thread(target=work); th.start()
    while not done.is_set():
        ticks.append(time.perf_counter()); time.sleep(0.005)
    th.join()
    gaps = sorted(((b - a) * 1000 for a, b in zip(ticks, ticks[1:])), reverse=True)
    return res, time.perf_counter() - t0, [round(g, 1) for g in gaps[:5]], sum(g > 50 for g in gaps)

if mode == "import_plain":
    res, wall, worst, n = tick_while(lambda: __import__("torch").__version__)
    print(json.dumps({"mode": mode, "wall_s": round(wall, 2), "worst_gaps_ms": worst, "gaps_over_50": n, **res}))
elif mode == "import_gentle":
    from decipher_gui.torch_preload import preload_torch_libraries
    def gentle():
        gc.disable()
        try:
            loaded = preload_torch_libraries()
            import torch
            return [torch.__version__, torch.cuda.is_available(), len(loaded)]
        finally:
            gc.freeze(); gc.enable()
    res, wall, worst, n = tick_while(gentle)
    print(json.dumps({"mode": mode, "wall_s": round(wall, 2), "worst_gaps_ms": worst, "gaps_over_50": n, **res}))
elif mode == "import_cuda":
    from decipher_gui.torch_preload import preload_torch_libraries, prepare_cuda_context
    marks = {}
    def gentle():
        gc.disable()
        t = time.perf_counter()
        try:
            preload_torch_libraries(); marks["preload"] = time.perf_counter() - t
            if sys.argv[2] == "ctx": marks["ctx"] = prepare_cuda_context()
            marks["ctx_t"] = time.perf_counter() - t
            import torch; marks["import"] = time.perf_counter() - t
            torch.zeros(1, device="cuda"); marks["first_tensor"] = time.perf_counter() - t
            return marks
        finally:
            gc.freeze(); gc.enable()
    res, wall, worst, n = tick_while(gentle)
    print(json.dumps({"mode": mode + ":" + sys.argv[2], "wall_s": round(wall, 2), "worst_gaps_ms": worst, "gaps_over_50": n, **res}))
elif mode == "run":
    from engine.sample import create_sample_project, RUN_CONFIG_KEY
    from engine.config import Config
    from engine.project.store import Project
    from decipher_gui.driver import RunDriver
    from decipher_gui.trainer_factory import gentle_build
    from engine.project.recording import RunRecorder
    from engine.session import RunInputs, RunSession
    device, steps = sys.argv[2], int(sys.argv[3])
    path = os.path.join(tempfile.mkdtemp(), "s.decipher")
    p = create_sample_project(path)
    c, l = p.corpora()[0].id, p.languages()[0].id
    cfg = Config.from_dict(p.setting(RUN_CONFIG_KEY)).replace(steps=steps, eval_interval=max(1, steps // 2), device=device)
    inputs = RunInputs(p.corpus(c), p.vocabulary(l), cfg, gold=tuple(p.gold(c)), pins=())
    p.close()
    rec = RunRecorder(path, corpus_id=c, language_id=l, critical=False)
    events = []
    drv = RunDriver(RunSession(inputs, sinks=[rec], checkpoint=rec.checkpoint_file, build=gentle_build,
                               live_interval=0.25), min_interval=0.25)
    t_first = {}
    def emit(k, x):
        events.append(k)
        if k == "steps": t_first.setdefault("t", time.perf_counter())
    t0 = time.perf_counter()
    res, wall, worst, n = tick_while(lambda: drv.run(emit))
    with Project.open(path) as q:
        run = q.runs()[-1]
        out = {"mode": mode, "device_asked": device, "status": run.status, "device": run.device, "last_step": run.last_step,
               "matches": len(q.matches(run.id)), "p_at_1": q.latest_metrics(run.id).get("p_at_1"),
               "wall_s": round(wall, 2), "start_to_first_step_s": round(t_first.get("t", t0) - t0, 2),
               "worst_gaps_ms": worst, "gaps_over_50": n, "events": {k: events.count(k) for k in set(events)}}
    if "e" in res: out["error"] = res["e"]
    print(json.dumps(out))
