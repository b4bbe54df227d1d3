"""Bundled resources are found through engine.resources (importlib.resources), never by a path
built from a module's __file__, and a missing one is said, not skipped silently."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

from engine.resources import resource

ROOT = Path(__file__).resolve().parents[2]


def test_every_reader_asks_the_accessor():
    from engine.datasets import gothic_sample, sample
    from engine.io import transcription

    assert transcription.TABLE_DIR == resource("transcription")
    assert sample.SAMPLE_DIR == resource("sample")
    assert gothic_sample.GOTHIC_SAMPLE_DIR == resource("sample-gothic")
    for name in ("semitic", "latin", "gothic", "proto-germanic", "basque"):
        assert (resource("transcription") / f"{name}.tsv").is_file()
    assert resource("sample", "sample.cog").read_text(encoding="utf-8").startswith("uga\theb\n")
    assert resource("fonts", "OFL.txt").is_file() and resource("icons", "decipher-workbench.svg").is_file()


def test_no_module_builds_a_path_to_the_resources_from_its_own_location():
    pattern = re.compile(r"__file__.*[\"']resources[\"']|parents?\[?\d*\]?\s*/\s*[\"']resources[\"']")
    offenders = [f"{p.relative_to(ROOT)}:{no}" for top in ("engine", "decipher_gui")
                 for p in (ROOT / top).rglob("*.py") if p.name != "resources.py"
                 for no, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if pattern.search(line)]
    assert offenders == []


def test_a_missing_bundled_font_is_reported(tmp_path, monkeypatch, caplog):
    fonts = pytest.importorskip("decipher_gui.fonts")
    monkeypatch.setattr(fonts, "FONT_DIR", tmp_path)
    monkeypatch.setattr(fonts, "_loaded", [])
    with caplog.at_level(logging.WARNING, logger="decipher_gui.fonts"):
        assert fonts.register_fonts() == []
    missing = [r.getMessage() for r in caplog.records if "bundled font missing" in r.getMessage()]
    assert len(missing) == len(fonts.FONT_FILES) and str(tmp_path / fonts.FONT_FILES[0]) in missing[0]
