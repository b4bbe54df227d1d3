"""benchmarks/gui_responsiveness.py's own plumbing (its measurements are benchmarks, not tests)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "gui_responsiveness.py"


def _script():
    spec = importlib.util.spec_from_file_location("gui_responsiveness", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_each_repetition_gets_its_own_absolute_profile_file(tmp_path, monkeypatch):
    """--profile reached the run's process only with --child, so the documented option wrote nothing;
    the parent now hands each repetition a path of its own, absolute (the child runs in another cwd)."""
    script = _script()
    monkeypatch.chdir(tmp_path)
    assert script._profile_path(Path("p.txt"), 0, 1) == tmp_path / "p.txt"
    assert [script._profile_path(Path("out/p.txt"), i, 3) for i in range(3)] == \
        [tmp_path / "out" / f"p-{n}.txt" for n in (1, 2, 3)]
