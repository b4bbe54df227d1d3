"""epitran with missing data files (a broken install or an app bundle built without them) gives a
one-line InputError naming the file, never a raw FileNotFoundError or a misleading "no map"."""

from __future__ import annotations

import importlib.abc
import sys
import types

import pytest

import engine.io.transcription as tr
from engine.errors import InputError

MISSING = "/bundle/_internal/jamo/data/U+11xx.json"


@pytest.fixture
def fresh_cache(monkeypatch):
    monkeypatch.setattr(tr, "_EPITRAN_CACHE", {})


class _DataMissingOnImport(importlib.abc.MetaPathFinder):
    """Importing epitran fails the way it does when jamo's JSON tables are absent."""

    def find_spec(self, name, path, target=None):
        if name == "epitran":
            raise FileNotFoundError(2, "No such file or directory", MISSING)
        return None


def test_missing_data_on_import_is_a_clear_error(monkeypatch, fresh_cache):
    monkeypatch.delitem(sys.modules, "epitran", raising=False)
    monkeypatch.setattr(sys, "meta_path", [_DataMissingOnImport(), *sys.meta_path])
    with pytest.raises(InputError) as ei:
        tr.get_epitran("spa-Latn")
    message = str(ei.value)
    assert MISSING in message and "spa-Latn" in message and "reinstall" in message
    assert "\n" not in message


def _fake_epitran(error: Exception) -> types.ModuleType:
    module = types.ModuleType("epitran")

    def Epitran(code):  # noqa: N802 (epitran's name)
        raise error

    module.Epitran = Epitran
    return module


def test_missing_feature_table_when_building_is_a_clear_error(monkeypatch, fresh_cache):
    table = "/bundle/_internal/panphon/data/ipa_all.csv"
    monkeypatch.setitem(sys.modules, "epitran",
                        _fake_epitran(FileNotFoundError(2, "No such file or directory", table)))
    with pytest.raises(InputError, match="panphon/data/ipa_all.csv") as ei:
        tr.transcribe("casa", "spa-Latn")
    assert "no usable map" not in str(ei.value)


def test_missing_map_folder_is_not_reported_as_an_unknown_code(monkeypatch, fresh_cache, tmp_path):
    class DatafileError(Exception):
        pass

    monkeypatch.setitem(sys.modules, "epitran", _fake_epitran(DatafileError("Add an appropriately-named mapping")))
    monkeypatch.setattr(tr, "_epitran_map_dir", lambda: tmp_path / "data" / "map")
    with pytest.raises(InputError, match="incomplete") as ei:
        tr.get_epitran("spa-Latn")
    assert str(tmp_path / "data" / "map") in str(ei.value)


def test_unknown_code_still_names_our_tables(fresh_cache):
    pytest.importorskip("epitran")
    with pytest.raises(InputError, match="no usable map for 'xyz-Latn'.*semitic"):
        tr.get_epitran("xyz-Latn")
