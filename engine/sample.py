"""The bundled sample project (resources/sample): what the app opens on first launch."""

from __future__ import annotations

import tomllib
from pathlib import Path

from .config import Config
from .io.tables import read_gold, read_known, read_lost

RESOURCES = Path(__file__).resolve().parent.parent / "resources"
SAMPLE_DIR = RESOURCES / "sample"
RUN_CONFIG_KEY = "run_config"
"""Project setting holding the default run settings (a dict of Config fields)."""


def sample_manifest() -> dict:
    with open(SAMPLE_DIR / "sample.toml", "rb") as f:
        return tomllib.load(f)


def sample_config() -> Config:
    return Config.from_dict(sample_manifest().get("config", {}))


def create_sample_project(path: str | Path, *, overwrite: bool = False):
    """Write the sample project to ``path`` (a new .decipher file) and return it open."""
    from .project.store import Project

    m = sample_manifest()
    inscriptions = read_lost(SAMPLE_DIR / m["lost"])
    stems = read_known(SAMPLE_DIR / m["known"])
    gold = read_gold(SAMPLE_DIR / m["gold"], inscriptions=inscriptions) if m.get("gold") else []
    project = Project.create(path, overwrite=overwrite)
    try:
        with project.transaction():
            corpus_id = project.add_corpus(m["corpus"], inscriptions, source="bundled sample")
            project.add_language(m["language"], stems, source="bundled sample")
            if gold:
                project.set_gold(corpus_id, gold)
            project.set_setting(RUN_CONFIG_KEY, sample_config().to_dict())
            project.set_setting("name", m.get("name", "Sample"))
    except BaseException:
        project.close()
        Path(path).unlink(missing_ok=True)
        raise
    return project
