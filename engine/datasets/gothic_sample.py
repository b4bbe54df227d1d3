"""The Gothic sample project (resources/sample-gothic): 300 unsegmented Gothic chunks, 300
Proto-Germanic stems, their gold and the partial prior, written into a new .decipher project.

    python -m engine.datasets.gothic_sample OUT.decipher [--overwrite]
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from pathlib import Path
from typing import Sequence

from ..config import Config
from ..errors import DecipherError
from ..io.tables import read_gold, read_known, read_lost, read_prior

GOTHIC_SAMPLE_DIR = Path(__file__).resolve().parents[2] / "resources" / "sample-gothic"
RUN_CONFIG_KEY = "run_config"  # the project setting engine/sample.py uses for default run settings


def manifest(folder: Path = GOTHIC_SAMPLE_DIR) -> dict:
    with open(folder / "sample.toml", "rb") as f:
        return tomllib.load(f)


def create_gothic_sample_project(path: str | Path, *, overwrite: bool = False, folder: Path = GOTHIC_SAMPLE_DIR):
    """Write the Gothic sample to ``path`` (a new project file) in one transaction; return it open."""
    from ..project.store import Project

    m = manifest(folder)
    inscriptions = read_lost(folder / m["lost"])
    stems = read_known(folder / m["known"])
    gold = read_gold(folder / m["gold"], inscriptions=inscriptions)
    pins = read_prior(folder / m["prior"]) if m.get("prior") else []
    config = Config.from_dict(m.get("config", {}), path=folder / "sample.toml")
    project = Project.create(path, overwrite=overwrite)
    try:
        with project.transaction():
            corpus_id = project.add_corpus(m["corpus"], inscriptions, source="bundled Gothic sample")
            project.add_language(m["language"], stems, source="bundled Gothic sample")
            project.set_gold(corpus_id, gold)
            if pins:
                project.set_pins(pins)
            project.set_setting(RUN_CONFIG_KEY, config.to_dict())
            project.set_setting("name", m.get("name", "Gothic sample"))
    except BaseException:
        project.close()
        Path(path).unlink(missing_ok=True)
        raise
    return project


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
