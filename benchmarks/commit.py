"""The commit a benchmark row was measured at (the short hash of HEAD; "unknown" outside a git checkout)."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def short_commit() -> str:
    try:
        r = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    except OSError:     # no git on this machine
        return "unknown"
    return r.stdout.strip() or "unknown"
