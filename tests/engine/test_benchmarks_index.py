"""benchmarks/README.md lists every maintained benchmark, the notebook every past experiment, and no doc names
a benchmark script that is not there (issue 53 item 3: the scripts moved to benchmarks/experiments/)."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks"


def _scripts(folder: Path) -> set[str]:
    return {p.name for p in folder.glob("*.py") if p.name != "__init__.py"}


def test_every_benchmark_is_listed_and_every_past_experiment_cited_in_the_notebook():
    index = (BENCH / "README.md").read_text(encoding="utf-8")
    missing = {name for name in _scripts(BENCH) if f"`{name}`" not in index}
    assert not missing, f"benchmarks/README.md does not list {sorted(missing)}"
    notebook = (ROOT / "docs" / "notebook" / "README.md").read_text(encoding="utf-8")
    experiments = _scripts(BENCH / "experiments")
    assert experiments, "benchmarks/experiments/ holds the past experiments"
    assert {name for name in experiments if f"`{name}`" not in notebook} == set()
    assert {name for name in experiments if f"`{name}`" not in index} == set()


def test_no_doc_test_or_makefile_names_a_benchmark_script_that_does_not_exist():
    files = [ROOT / "README.md", ROOT / "Makefile", BENCH / "README.md", BENCH / "record.toml"]
    files += sorted((ROOT / "docs").rglob("*.md")) + sorted((ROOT / "tests").rglob("*.py"))
    files += sorted(BENCH.rglob("*.py")) + sorted((ROOT / "engine").rglob("*.py"))
    files = [f for f in files if f.name != "test_benchmark_provenance.py"]     # it names made-up benchmarks
    stale = []
    for f in files:
        text = f.read_text(encoding="utf-8")
        for m in re.finditer(r"(?<![\w/])benchmarks([./])((?:experiments[./])?[a-z_][a-z0-9_]*)(\.\w+)?", text):
            name = m.group(2).replace(".", "/")
            if name in ("results", "experiments", "md") or (m.group(3) or ".py") != ".py":
                continue            # a folder, docs/benchmarks.md, a data file beside the scripts
            if "removed in" in text[m.end():m.end() + 160]:
                continue            # the notebook's dated text names a script since removed, and says so
            if not ((BENCH / f"{name}.py").is_file() or (BENCH / name).is_dir()):
                stale.append(f"{f.relative_to(ROOT)}: {m.group(0)}")
    assert not stale, stale
