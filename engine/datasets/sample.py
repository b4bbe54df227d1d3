"""The bundled sample project (resources/sample): what the app opens on first launch."""

from __future__ import annotations

import tomllib
from pathlib import Path

from engine.config import Config
from engine.io.display import known_setting_key, setting_key
from engine.io.tables import read_gold, read_known, read_lost, read_prior
from engine.resources import resource

RESOURCES = resource()
SAMPLE_DIR = resource("sample")
RUN_CONFIG_KEY = "run_config"
"""Project setting holding the default run settings (a dict of Config fields)."""


def sample_manifest(folder: Path = SAMPLE_DIR) -> dict:
    with open(folder / "sample.toml", "rb") as f:
        return tomllib.load(f)


def _display_tables(section, path: Path) -> dict:
    """The manifest's ``[display]``: a display preset for the corpus and for the known language."""
    from engine.errors import InputError
    from engine.io.display import preset

    if not isinstance(section, dict) or set(section) - {"corpus", "language"}:
        raise InputError("[display] takes 'corpus' and 'language', each a display preset's name", path=path)
    try:
        return {side: preset(name) for side, name in section.items()}
    except InputError as e:
        raise InputError(f"[display]: {e}", path=path) from None


def sample_config() -> Config:
    return Config.from_dict(sample_manifest().get("config", {}))


def create_sample_project(path: str | Path, *, overwrite: bool = False):
    """Write the sample project to ``path`` (a new .decipher file) and return it open."""
    return create_project_from_folder(path, SAMPLE_DIR, overwrite=overwrite, source="bundled sample",
                                      default_name="Sample")


def create_project_from_folder(path: str | Path, folder: Path, *, overwrite: bool = False,
                               source: str, default_name: str):
    """A new project at ``path`` from a sample folder: its ``sample.toml`` names the lost, known and
    (optional) gold and prior files, the corpus and language names, the run settings and the
    project's name. Written in one transaction; nothing is left behind when it fails."""
    from engine.project.store import Project

    m = sample_manifest(folder)
    inscriptions = read_lost(folder / m["lost"])
    stems = read_known(folder / m["known"])
    gold = read_gold(folder / m["gold"], inscriptions=inscriptions) if m.get("gold") else []
    pins = read_prior(folder / m["prior"]) if m.get("prior") else []
    config = Config.from_dict(m.get("config", {}), path=folder / "sample.toml")
    shown = _display_tables(m.get("display", {}), folder / "sample.toml")
    project = Project.create(path, overwrite=overwrite)
    try:
        with project.transaction():
            corpus_id = project.add_corpus(m["corpus"], inscriptions, source=source)
            language_id = project.add_language(m["language"], stems, source=source)
            if "corpus" in shown:
                project.set_setting(setting_key(corpus_id), shown["corpus"].to_json())
            if "language" in shown:
                project.set_setting(known_setting_key(language_id), shown["language"].to_json())
            if gold:
                project.set_gold(corpus_id, gold)
            if pins:
                project.set_pins(pins)
            project.set_setting(RUN_CONFIG_KEY, config.to_dict())
            project.set_setting("name", m.get("name", default_name))
    except BaseException:
        project.close()
        Path(path).unlink(missing_ok=True)
        raise
    return project
