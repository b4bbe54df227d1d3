"""Issue 25 item 4: the `greek` transcription table (classical Attic values; the cognate file's
Latin f, h, y) and `decipher import-cog … --system greek` on the Linear B–Greek cognate file."""

from __future__ import annotations

import csv
import os
import unicodedata
from pathlib import Path

import pytest

from engine.cli.main import main
from engine.io.transcription import BUILTIN_TABLES, TranscriptionError, available_systems, transcribe
from engine.model.phonology import ipa_units

from tests.conftest import SHARED_DATA

#: ../shared/data/linear_b; DECIPHER_SHARED_DATA names another copy of shared/data (a worktree's).
LINB = Path(os.environ.get("DECIPHER_SHARED_DATA") or SHARED_DATA) / "linear_b"
COG = LINB / "linear_b-greek.cog"
NAMES = LINB / "linear_b-greek.names.cog"
needs_data = pytest.mark.skipif(not COG.is_file(), reason="../shared/data/linear_b (the NeuroCipher file) is absent")


@pytest.mark.parametrize("word,ipa", [
    ("φθχ", "pʰtʰkʰ"),                 # aspirated stops, not fricatives
    ("ζευς", "zdeus"),                 # Attic ζ = [zd]; in diphthongs υ keeps [u]
    ("ξενος", "ksenos"), ("ψυχη", "psykʰɛː"),   # υ alone is front rounded [y]
    ("ειμι", "eːmi"), ("ουρανος", "oːranos"),   # ει, ου = [eː], [oː] (5th c. Attic)
    ("αγγελος", "aŋɡelos"), ("αγκυρα", "aŋkyra"), ("σφιγξ", "spʰiŋks"), ("αγχι", "aŋkʰi"),
    ("γενος", "ɡenos"),                # γ elsewhere
    ("fανακτος", "wanaktos"),          # the file's f: digamma
    ("ερμαhαι", "ermahai"),            # the file's h: aspiration
    ("κακyοες", "kakjoes"), ("συκyα", "sykja"),   # the file's y: yod
    ("διοςιεfει", "diosieweː"),        # a final sigma inside a compound
    ("Κνωσος", "knɔːsos"),             # capitals read as small letters
])
def test_greek_values(word, ipa):
    out = transcribe(word, "greek")
    assert out == ipa
    assert ipa_units(out)


def test_greek_is_a_builtin_system_everywhere_systems_are_listed():
    assert "greek" in BUILTIN_TABLES and "greek" in available_systems()
    from decipher_gui.importers import transcription_systems   # the app's import dialogs
    assert "greek" in transcription_systems()


def test_accents_are_reported_not_dropped():
    with pytest.raises(TranscriptionError) as e:
        transcribe("λόγος", "greek", path="k.txt", line=3)
    assert "k.txt, line 3" in str(e.value) and "U+03CC" in str(e.value)


def _forms(path: Path) -> set[str]:
    forms = set()
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        forms.update(f for f in line.split("\t")[1].split("|") if f != "_")
    return forms


@needs_data
def test_every_greek_form_of_the_cognate_file_transcribes_to_ipa():
    forms = _forms(COG)
    assert len(forms) == 1418
    for form in forms:
        assert ipa_units(transcribe(form, "greek")), form
    assert {"κακyοες", "συκyα"} <= forms      # the two y of the file are read, not skipped


def _rows(path: Path) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


@needs_data
@pytest.mark.parametrize("cog,stems,gold", [(COG, 1418, 919), (NAMES, 605, 455)])
def test_import_cog_of_the_linear_b_file(tmp_path, capsys, cog, stems, gold):
    out = tmp_path / "linb"
    assert main(["import-cog", str(cog), "--system", "greek", "--out", str(out)]) == 0
    lost, known, golds = _rows(out / "lost.csv"), _rows(out / "known.csv"), _rows(out / "gold.csv")
    assert (len(lost), len(known), len(golds)) == (919, stems, gold)
    texts = {r["id"]: r["text"] for r in lost}
    signs = {ch for t in texts.values() for ch in t}
    assert len(signs) == 70
    assert all(0x10000 <= ord(ch) <= 0x1007F for ch in signs)   # the Unicode signs, outside the BMP
    assert all(unicodedata.is_normalized("NFC", t) for t in texts.values())
    # spans count code points (one sign = one character), not UTF-16 units
    assert all(int(g["word_end"]) == len(texts[g["inscription_id"]]) for g in golds)
    assert all(g["start"] == "0" for g in golds)
    assert texts["linear_b:2"] == "\U00010000\U00010001\U0001002A\U00010026\U00010032"   # a-e-ri-qo-ta
    assert "αελιποτας" in golds[0]["known"].split("|")
    ipa = {k["form"]: k["ipa"] for k in known}
    assert all(ipa_units(v) for v in ipa.values())
    assert "919 lost words" in capsys.readouterr().err
