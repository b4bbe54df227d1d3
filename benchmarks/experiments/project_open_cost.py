"""Cost of the open-time checks (schema objects + stored cells, issue 28) on a large project.

    PYTHONPATH=$PWD python -m benchmarks.experiments.project_open_cost
"""
import statistics
import tempfile
import time
from pathlib import Path
from engine.corpus import Inscription, Stem
from engine.project import Project, schema
from engine.config import Config

d = Path(tempfile.mkdtemp())
p = Project.create(d / "big.decipher")
cid = p.add_corpus("big", [Inscription(f"I{i}", "abcdefghij" * 3, meta={"site": "x"}) for i in range(60_000)])
lid = p.add_language("k", [Stem(f"w{i}", "abc") for i in range(5_000)])
rid = p.start_run(Config(), cid, lid)
with p.transaction():
    for step in range(1, 30_001):
        p.conn.executemany("INSERT INTO run_metric (run_id, name, restart, step, value) VALUES (?, ?, 0, ?, ?)",
                           [(rid, f"m{k}", step, 0.5) for k in range(10)])
p.finish_run(rid, "completed")
p.close()
size = (d / "big.decipher").stat().st_size

def timed(n=5):
    out = []
    for _ in range(n):
        t = time.perf_counter(); Project.open(d / "big.decipher").close(); out.append(time.perf_counter() - t)
    return statistics.median(out)

with_checks = timed()
cells = schema.validate_cells
schema.validate_cells = lambda conn, path: None
without_cells = timed()
schema.validate_cells = cells
t = time.perf_counter()
with Project.open(d / "big.decipher") as pr:
    pr.check_readable()
readable = time.perf_counter() - t
print(f"project: 60,000 inscriptions, 5,000 stems, 1 run with 300,000 metric rows; {size / 1e6:.1f} MB")
print(f"Project.open+close, median of 5: {with_checks:.3f} s with the cell checks, {without_cells:.3f} s without")
print(f"Project.open + check_readable() (the app's launch read): {readable:.3f} s")
