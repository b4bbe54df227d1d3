"""Issue 25 items 2 and 3 on the engine side: syllable pins a philologist writes (``ka``, ``a``,
``k-``, ``-a``) read, stored and exported; the syllable table a syllable run learned recorded in
the project and written as sign values (P(sound | sign) per slot)."""

from __future__ import annotations

import csv
import json
import sqlite3

import numpy as np
import pytest

from engine.config import Config
from engine.corpus import PinnedValue
from engine.errors import InputError
from engine.io.tables import pin_value, read_prior
from engine.project import Project
from engine.project.importing import import_lost, import_prior
from engine.project.recording import mapping_of, record_mapping
from engine.results import MappingSnapshot, SyllableTable

A, E, KA, KE, KO, DA = "𐀀", "𐀁", "𐀏", "𐀐", "𐀒", "𐀅"   # Linear B: a, e, ka, ke, ko, da


def _write(path, text: str):
    path.write_text(text, encoding="utf-8")
    return path


# ---- the pin reader ------------------------------------------------------------------------


def test_prior_reader_takes_syllables_onsets_and_vowels(tmp_path):
    path = _write(tmp_path / "prior.csv",
                  f"lost,known_ipa,weight,locked\n{KA},ka,2,1\n{A},a,,\n{KE},k-,,0\n{E}, -e ,,\n{DA},d,,\n")
    pins = read_prior(path)
    assert [(p.lost, p.known_ipa) for p in pins] == [(KA, "ka"), (A, "a"), (KE, "k-"), (E, "-e"), (DA, "d")]
    assert pins[0].weight == 2 and pins[2].locked is False


def test_syllable_values_are_stored_as_syllable_value_text_writes_them():
    # decomposed input comes back NFC, and a labialised onset is one unit
    assert pin_value("kʷa") == "kʷa"
    assert pin_value(" ka ") == "ka"
    assert pin_value("k-") == "k-" and pin_value("-a") == "-a" and pin_value("a") == "a"


@pytest.mark.parametrize("value, problem", [
    ("kt", "known_ipa 'kt' must be one IPA unit, or a syllable for signs = syllables (ka, a, k-, -a); got 2 units: k t"),
    ("ai", "known_ipa 'ai' must be one IPA unit, or a syllable"),
    ("kt-", "known_ipa 'kt-': an onset pin (k-) names one consonant"),
    ("-ka", "known_ipa '-ka': a vowel pin (-a) names one vowel"),
    ("e-", "known_ipa 'e-': an onset pin (k-) names one consonant"),
    ("-", "known_ipa '-': write one IPA unit, or for a syllabary a syllable (ka)"),
    ("-a-", "write a syllable (ka), a vowel (a), an onset (k-) or a vowel alone (-a)"),
])
def test_prior_reader_refuses_other_shapes_in_one_line(tmp_path, value, problem):
    path = _write(tmp_path / "prior.csv", f"lost,known_ipa\n{A},a\n{KA},{value}\n")
    with pytest.raises(InputError) as err:
        read_prior(path)
    text = str(err.value)
    assert "\n" not in text and text.startswith(f"{path}, line 3: ") and problem in text


def test_prior_reader_names_an_unknown_symbol_of_a_syllable(tmp_path):
    path = _write(tmp_path / "prior.csv", f"lost,known_ipa\n{KA},k1-\n")
    with pytest.raises(InputError, match=r"line 2: unknown IPA symbol '1'"):
        read_prior(path)


def test_duplicate_syllable_pin_is_refused_after_normalising(tmp_path):
    path = _write(tmp_path / "prior.csv", f"lost,known_ipa\n{KA},ka\n{KA}, ka\n")
    with pytest.raises(InputError, match=r"line 3: duplicate pin 𐀏 -> ka \(first on line 2\)"):
        read_prior(path)


# ---- the project keeps and exports them ---------------------------------------------------


def test_syllable_pins_round_trip_through_the_project_and_its_export(tmp_path):
    prior = _write(tmp_path / "prior.csv", f"lost,known_ipa,weight,locked,note\n{KA},ka,2,1,Ventris\n"
                                           f"{A},a,1,0,\n{KE},k-,1,1,\n{E},-e,1,1,\n")
    with Project.create(tmp_path / "p.decipher") as project:
        assert import_prior(project, prior) == 4
    from engine.cli.project import main
    out, shown = tmp_path / "out.csv", tmp_path / "shown.csv"
    assert main(["export", str(tmp_path / "p.decipher"), "--prior", str(out), "--no-guard-formulas"]) == 0
    # the default export is for a spreadsheet: a vowel pin starts with '-', a formula there
    assert main(["export", str(tmp_path / "p.decipher"), "--prior", str(shown)]) == 0
    assert {r["known_ipa"] for r in csv.DictReader(shown.open(encoding="utf-8"))} == {"ka", "a", "k-", "'-e"}
    with Project.open(tmp_path / "p.decipher") as project:
        stored = {(p.lost, p.known_ipa, p.locked, p.note) for p in project.pins()}
    assert stored == {(KA, "ka", True, "Ventris"), (A, "a", False, ""), (KE, "k-", True, ""), (E, "-e", True, "")}
    again = read_prior(out)
    assert {(p.lost, p.known_ipa, p.weight, p.locked) for p in again} == {
        (KA, "ka", 2.0, True), (A, "a", 1.0, False), (KE, "k-", 1.0, True), (E, "-e", 1.0, True)}


# ---- the syllable table in the project ----------------------------------------------------


def syllable_snapshot() -> MappingSnapshot:
    """A syllable run's snapshot over four Linear B signs: 𐀏 ka, 𐀐 ke, 𐀀 a, 𐀁 e (confident),
    with probs[k, l] = P(sound k | sign l) over onsets and vowels (columns sum to 2)."""
    signs = (KA, KE, A, E)
    onsets, vowels = ("k", "d", "∅"), ("a", "e", "o")
    onset = np.array([[0.8, 0.15, 0.05], [0.6, 0.3, 0.1], [0.1, 0.1, 0.8], [0.05, 0.05, 0.9]])
    vowel = np.array([[0.7, 0.2, 0.1], [0.1, 0.85, 0.05], [0.9, 0.05, 0.05], [0.2, 0.5, 0.3]])
    table = SyllableTable(signs, onsets, onset, vowels, vowel)
    known = ("<DEL>",) + onsets + vowels
    probs = np.zeros((len(known), len(signs) + 1))
    probs[1:4, 1:] = onset.T
    probs[4:, 1:] = vowel.T
    return MappingSnapshot(("<DEL>",) + signs, known, probs, table)


def _syllable_project(path) -> tuple[Project, int]:
    lost = _write(path.parent / "lost.csv", f"id,text\nPY1,{KA}{A}{KE}\nPY2,{E}{KA}\n")
    project = Project.create(path)
    corpus = import_lost(project, lost, name="linb")
    run = project.start_run(Config(signs="syllables"), corpus, None, device="cpu", seed=0)
    return project, run


def test_the_syllable_table_round_trips_through_the_project(tmp_path):
    project, run = _syllable_project(tmp_path / "p.decipher")
    snap = syllable_snapshot()
    record_mapping(project, run, 40, snap)
    project.close()
    with Project.open(tmp_path / "p.decipher") as again:
        read = mapping_of(again, run)
    assert read.syllables is not None
    assert read.syllables.signs == snap.syllables.signs and read.syllables.onsets == ("k", "d", "∅")
    assert np.allclose(read.syllables.onset_probs, snap.syllables.onset_probs)
    assert np.allclose(read.syllables.vowel_probs, snap.syllables.vowel_probs)
    assert read.syllables.best(KE, 1) == ([("k", 0.6)], [("e", 0.85)])


def test_a_letter_mapping_and_an_old_row_have_no_syllable_table(tmp_path):
    project, run = _syllable_project(tmp_path / "p.decipher")
    record_mapping(project, run, 40, syllable_snapshot())
    letters = MappingSnapshot(("<DEL>", "a"), ("<DEL>", "a"), np.eye(2))
    record_mapping(project, run, 50, letters)      # the newer snapshot replaces the table too
    assert mapping_of(project, run).syllables is None
    project.close()
    # a row as an older program (schema v4) wrote it: no syllables column value
    conn = sqlite3.connect(tmp_path / "p.decipher")
    assert conn.execute("SELECT syllables FROM run_mapping").fetchone() == (None,)
    conn.close()


def test_a_syllable_table_whose_shapes_disagree_is_not_read(tmp_path):
    project, run = _syllable_project(tmp_path / "p.decipher")
    record_mapping(project, run, 40, syllable_snapshot())
    bad = syllable_snapshot().syllables.to_json()
    bad["onsets"] = ["k"]          # three columns of probabilities, one onset
    with project.transaction():
        project.conn.execute("UPDATE run_mapping SET syllables = ?", (json.dumps(bad),))
    assert mapping_of(project, run) is None
    project.close()


def test_a_syllable_cell_that_is_not_an_object_is_refused_on_open(tmp_path):
    project, run = _syllable_project(tmp_path / "p.decipher")
    record_mapping(project, run, 40, syllable_snapshot())
    project.close()
    conn = sqlite3.connect(tmp_path / "p.decipher")
    conn.execute("UPDATE run_mapping SET syllables = '[1, 2]'")
    conn.commit()
    conn.close()
    with pytest.raises(Exception, match=r"run_mapping.*syllables.*not empty or a JSON object"):
        Project.open(tmp_path / "p.decipher")


# ---- the sign values of a syllable run -----------------------------------------------------


def test_sign_values_of_a_syllable_run_rank_onsets_and_vowels_by_p_sound_given_sign(tmp_path):
    project, run = _syllable_project(tmp_path / "p.decipher")
    record_mapping(project, run, 40, syllable_snapshot())
    project.replace_pins([PinnedValue(KA, "ka", 2.0, True, "Ventris"), PinnedValue(E, "-a", 1.0, False)])
    project.close()
    from engine.cli.project import main
    out = tmp_path / "values.csv"
    assert main(["export", str(tmp_path / "p.decipher"), "--sign-values", str(out), "--run", str(run),
                 "--no-guard-formulas"]) == 0
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert list(rows[0]) == ["sign", "shown", "slot", "rank", "ipa", "probability", "pinned", "weight", "note",
                             "run_id", "unstable"]
    assert {r["unstable"] for r in rows} == {""}     # a run recorded without a diagnosis doubts nothing

    def of(sign, slot):
        return [(r["rank"], r["ipa"], r["probability"], r["pinned"]) for r in rows if r["sign"] == sign
                and r["slot"] == slot]

    # 𐀐: P(k | 𐀐) = 0.6 ranks k first although P(𐀐 | k) would not tell it apart from 𐀏
    assert of(KE, "onset") == [("1", "k", "0.6", ""), ("2", "d", "0.3", ""), ("3", "∅", "0.1", "")]
    assert of(KE, "vowel") == [("1", "e", "0.85", ""), ("2", "a", "0.1", ""), ("3", "o", "0.05", "")]
    # the pin ka marks the onset k and the vowel a of 𐀏
    assert of(KA, "onset")[0] == ("1", "k", "0.8", "locked") and of(KA, "vowel")[0] == ("1", "a", "0.7", "locked")
    # a vowel pin outside the top 2 is added after them, with its probability
    from engine.project.signvalues import export_sign_values
    with Project.open(tmp_path / "p.decipher") as project:
        assert export_sign_values(project, out, top=2, guard_formulas=False) == 4 * 4 + 1  # the newest run
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert of(E, "vowel") == [("1", "e", "0.5", ""), ("2", "o", "0.3", ""), ("3", "a", "0.2", "soft")]
    assert of(E, "onset") == [("1", "∅", "0.9", ""), ("2", "k", "0.05", "")]
    assert {r["run_id"] for r in rows} == {str(run)}
    # signs in the corpus order first; every sign has both slots
    assert [r["sign"] for r in rows if r["rank"] == "1" and r["slot"] == "onset"] == sorted({KA, A, KE, E})


def test_grid_rows_are_consonants_then_glides_in_use_then_no_onset():
    from engine.project.signvalues import grid_rows, syllable_grid

    snap = syllable_snapshot().syllables
    # the model also offers the vowels as onsets (a glide: -a-jo-); here 𐀁 takes the onset e
    onsets = ("∅", "k", "d", "a", "e")
    onset = np.array([[0.05, 0.8, 0.15, 0, 0], [0.1, 0.6, 0.3, 0, 0], [0.8, 0.1, 0.1, 0, 0], [0.2, 0, 0, 0.1, 0.7]])
    table = SyllableTable(snap.signs, onsets, onset, snap.vowels, snap.vowel_probs)
    grid = syllable_grid(table, [PinnedValue(KE, "-e", 1.0, False)])
    assert grid.onsets == ("k", "d", "e", "∅")          # the glide a, where no sign sits, has no row
    assert [g.sign for g in grid.at("e", "e")] == [E]
    assert grid_rows(grid) == [["onset", "a", "e", "o"], ["k", f"{KA} 56%", f"•{KE} 51%", ""], ["d", "", "", ""],
                               ["e", "", f"{E} 35%", ""], ["∅", f"{A} 72%", "", ""]]
