"""The Gothic sample project (resources/sample-gothic): 300 unsegmented Gothic chunks, 300
Proto-Germanic stems, their gold and the partial prior, written into a new .decipher project.

    python -m engine.datasets.gothic_sample OUT.decipher [--overwrite]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

from engine.errors import DecipherError
from engine.datasets.sample import create_project_from_folder
from engine.resources import resource

GOTHIC_SAMPLE_DIR = resource("sample-gothic")
def create_gothic_sample_project(path: str | Path, *, overwrite: bool = False, folder: Path = GOTHIC_SAMPLE_DIR):
    """Write the Gothic sample to ``path`` (a new project file) in one transaction; return it open."""
    return create_project_from_folder(path, folder, overwrite=overwrite, source="bundled Gothic sample",
                                      default_name="Gothic sample")


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m engine.datasets.gothic_sample", description=__doc__.split("\n\n")[0])
    p.add_argument("out", type=Path, help="the project file to create")
    p.add_argument("--overwrite", action="store_true")
    args = p.parse_args(argv)
    try:
        project = create_gothic_sample_project(args.out, overwrite=args.overwrite)
    except DecipherError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    project.close()
    print(f"Gothic sample project written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
