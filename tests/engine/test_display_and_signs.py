"""Display tables, sign values and the window's Qt-free model and queries, without a display."""

from __future__ import annotations

import csv
import sys
import unicodedata

import numpy as np
import pytest

from engine.io import display
from engine.corpus import Inscription, PinnedValue
from engine.errors import InputError
from engine.results import MappingSnapshot
from engine.project.signvalues import sign_values


UGARITIC_DATA_LETTERS = set("$&*<@HSTZabdghiklmnpqrstuvwxyz")


def test_ugaritic_presets_cover_every_letter_of_the_data_and_match_the_standard_values():
    for table in (display.UGARITIC_TRANSLITERATION, display.UGARITIC_SCRIPT):
        assert set(table) == UGARITIC_DATA_LETTERS
        assert len(set(table.values())) == len(table), "two letters shown alike"
    t = display.preset("ugaritic-transliteration")
    assert t.show_text("an$q") == "ʾanšq" and t.show_text("<Sm") == "ʿṣm" and t.show_text("br*l") == "brḏl"
    # the script letters are the Unicode characters of the same names
    names = {"$": "SHIN", "<": "AIN", "@": "GHAIN", "v": "THANNA", "*": "DHAL", "Z": "ZU", "x": "KHA",
             "H": "HOTA", "T": "TET", "S": "SADE", "&": "SSU", "i": "I", "u": "U", "a": "ALPA"}
    for letter, name in names.items():
        assert unicodedata.name(display.UGARITIC_SCRIPT[letter]) == f"UGARITIC LETTER {name}"
    assert all(0x10380 <= ord(c) <= 0x1039F for c in display.UGARITIC_SCRIPT.values())


def test_gothic_preset_covers_the_gothic_transliteration():
    from engine.datasets.gothic import GOTHIC_LETTERS

    assert set(display.GOTHIC_SCRIPT) == set(GOTHIC_LETTERS)
    assert all(0x10330 <= ord(c) <= 0x1034F for c in display.GOTHIC_SCRIPT.values())


def test_direction_comes_from_the_table_or_the_script():
    hebrew = display.DisplayTable.from_json({"letters": {}, "direction": "auto"})
    assert hebrew.right_to_left(list("שלום"))
    assert not hebrew.right_to_left(list("salam"))
    assert display.preset("hebrew-script").right_to_left(["a"])
    assert not display.preset("ugaritic-script").right_to_left(["a"])


def test_tables_from_settings_are_checked_and_normalised():
    t = display.DisplayTable.from_json({"letters": {"s": "s\u030c"}, "direction": "ltr"})
    assert t.show("s") == "š" and len(t.show("s")) == 1, "NFC"
    for bad in ({"letters": {"s": ""}}, {"letters": {"s": "x" * 20}}, {"letters": {"s": "\x07"}},
                {"letters": [], "direction": "ltr"}, {"letters": {}, "direction": "up"}, "text"):
        with pytest.raises(InputError):
            display.DisplayTable.from_json(bad)
    assert display.DisplayTable.from_json(None) is display.IDENTITY


def test_show_text_reads_multi_letter_units_greedily():
    t = display.DisplayTable("x", {"ts": "c", "t": "T"})
    assert t.show_text("tsat") == "caT"
    assert t.show_text(["ts", "a", "t"]) == "caT"


def _mapping():
    lost = ("<DEL>", "$", "b")
    known = ("<DEL>", "ʃ", "b", "s")
    probs = np.array([[0.0, 0.1, 0.1], [0.0, 0.6, 0.0], [0.0, 0.0, 0.9], [0.0, 0.2, 0.0]])
    return MappingSnapshot(lost, known, probs)


def test_sign_values_rank_learned_sounds_and_list_pins():
    pins = [PinnedValue("$", "s", 1.0, True, "from a bilingual"), PinnedValue("g", "ɡ", 2.0, False, "")]
    table = display.preset("ugaritic-transliteration")
    values = sign_values(_mapping(), pins, top=1, display=table)
    by = {(v.sign, v.rank): v for v in values}
    assert by[("$", 1)].ipa == "ʃ" and by[("$", 1)].shown == "š"
    assert by[("$", 1)].share == pytest.approx(0.6 / 0.8)
    assert by[("$", 2)].ipa == "s" and by[("$", 2)].pinned == "locked", "a pin outside the top is listed"
    assert by[("g", 1)].probability is None and by[("g", 1)].pinned == "soft", "a pin on an unlearned sign"
    assert by[("b", 1)].ipa == "b" and by[("b", 1)].share == pytest.approx(1.0)
    assert not any(v.sign == "<DEL>" or v.ipa == "<DEL>" for v in values)


def test_session_state_forgets_everything_on_reset():
    from decipher_gui.state import SessionState

    s = SessionState(corpus_id=1, language_id=2, shown_run=3, live_run=3, decisions={("a", 0, 1, "x"): "accepted"})
    s.live_matches = ("m",)  # type: ignore[assignment]
    s.reset(None)
    assert s == SessionState()
    s.follow_data([5, 6], [7])
    assert (s.corpus_id, s.language_id) == (5, 7)
    s.follow_data([6], [])
    assert (s.corpus_id, s.language_id) == (6, None)
    s.show_stored(9, corpus_id=6, language_id=8)
    assert (s.shown_run, s.language_id) == (9, 8)
    s.record_live(10)
    assert s.shows_live(True) and not s.shows_live(False)


def test_words_shorter_than_the_shortest_span():
    from decipher_gui.queries import words_shorter_than

    ins = [Inscription("a", "ab abc abcd"), Inscription("b", "abcdef")]
    assert words_shorter_than(ins, 3) == (1, 4)
    assert words_shorter_than(ins, 4) == (2, 4)


def test_state_and_queries_do_not_import_qt():
    import subprocess

    code = ("import sys, decipher_gui.state, decipher_gui.queries, engine.io.display, engine.project.signvalues, "
            "engine.project.fieldexport; print(any(m.startswith('PySide6') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_sign_values_export_without_a_run_lists_the_pins(tmp_path):
    from engine.project.store import Project
    from engine.project.signvalues import export_sign_values

    with Project.create(tmp_path / "p.decipher") as project:
        project.add_corpus("c", [Inscription("1", "ab")])
        project.set_pin(PinnedValue("a", "ʔ", 1.0, True, ""))
        n = export_sign_values(project, tmp_path / "s.csv")
    with open(tmp_path / "s.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert n == len(rows) == 1 and rows[0]["sign"] == "a" and rows[0]["pinned"] == "locked"


def test_hebrew_final_forms_at_word_ends_only():
    t = display.preset("hebrew-script")
    assert t.show_text(list("mlk mlkym")) == "מלך מלכים"
    assert t.show_text("mlk") == "מלכ", "a span may end inside a word: no final form"
    assert display.DisplayTable.from_json(t.to_json()) == t
