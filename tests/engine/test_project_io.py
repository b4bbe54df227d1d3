"""Importers and exports of the project file: round trips, atomicity, bad input, formula guarding."""

from __future__ import annotations

import csv
import sys
import types
from pathlib import Path

import pytest

from engine.corpus import GoldAnnotation, Inscription, Stem
from engine.errors import InputError, ProjectError
from engine.project import (MATCH_COLUMNS, Project, export_gold, export_known, export_lost,
                            export_matches, export_prior, import_cldf, import_cog, import_gold,
                            import_hesperia, import_known, import_lost, import_matches,
                            import_prior, import_text, import_wordlist)
from engine.io.atomic import write_csv
from engine.project.importing import parse_settings

from .test_project_helpers import DATA, filled_project, sample_matches, sha


def _rows(path: Path, delimiter: str = ",") -> list[dict]:
    with open(path, encoding="utf-8-sig", newline="") as f:
        return list(csv.DictReader(f, delimiter=delimiter))


# ---- round trips ----------------------------------------------------------------------------


def test_lost_round_trip_keeps_raw_and_meta(tmp_path):
    project = Project.create(tmp_path / "p.decipher")
    first = project.inscriptions(import_lost(project, DATA / "lost.csv"))
    assert first[0] == Inscription("B.1.1", "ba-ka-ra tu", raw="ba-ka-ra  tu",
                                   meta={"reference": "B.1.1 (Ullastret)", "site": "Ullastret"})
    export_lost(project, tmp_path / "out.csv", "lost")
    second = project.inscriptions(import_lost(project, tmp_path / "out.csv", name="again"))
    assert second == first
    export_lost(project, tmp_path / "out2.csv", "again")
    assert (tmp_path / "out2.csv").read_bytes() == (tmp_path / "out.csv").read_bytes()
    project.close()


def test_known_gold_prior_round_trip(tmp_path):
    project, ids = filled_project(tmp_path / "p.decipher")
    stems = project.stems(ids["language"])
    assert stems[2] == Stem("-ke", "ke", "suffix", "known.csv")  # empty source: the file's name
    export_known(project, tmp_path / "k.csv", "basque")
    assert project.stems(import_known(project, tmp_path / "k.csv", name="again")) == stems

    gold = project.gold(ids["corpus"])
    export_gold(project, tmp_path / "g.csv")
    copy = import_lost(project, DATA / "lost.csv", name="copy")
    import_gold(project, tmp_path / "g.csv", corpus="copy")
    assert project.gold(copy) == gold

    pins = project.pins()
    export_prior(project, tmp_path / "prior.csv")
    other = Project.create(tmp_path / "other.decipher")
    assert import_prior(other, tmp_path / "prior.csv") == 3
    assert other.pins() == pins
    other.close()
    project.close()


def test_tsv_column_mapping_and_plain_text(tmp_path):
    project = Project.create(tmp_path / "p.decipher")
    cid = import_lost(project, DATA / "lost_mapped.tsv", columns={"id": "REF", "text": "TEXTO"})
    assert project.inscriptions(cid)[0] == Inscription("C.1", "ba ka", raw="ba ka", meta={"site": "Lliria"})
    export_lost(project, tmp_path / "out.tsv", "lost_mapped")
    assert (tmp_path / "out.tsv").read_text(encoding="utf-8").startswith("id\ttext\tsite\n")
    tid = import_text(project, DATA / "plain.txt")
    assert [(i.id, i.text) for i in project.inscriptions(tid)] == [
        ("plain:1", "ba ka ra"), ("plain:3", "tu su"), ("plain:4", "ár bi")]
    project.close()


def test_match_report_round_trip(tmp_path):
    project, ids = filled_project(tmp_path / "p.decipher")
    out = tmp_path / "report.csv"
    assert export_matches(project, out) == 5
    rows = _rows(out)
    assert tuple(rows[0]) == MATCH_COLUMNS
    assert rows[0]["inscription_ref"] == "B.1.1 (Ullastret)"
    assert rows[2]["inscription_ref"] == "B.1.2"  # no reference: the id
    assert rows[0]["known_language"] == "basque"
    assert rows[0]["settings"] == "min_span=3, coverage_end=0.1"
    assert rows[0]["pins"] == "from step 0: b → /b/, k → /k/ (soft, ×0.5), r → /ɾ/ (×2.25)"
    assert [r["decision"] for r in rows] == ["accepted", "open", "open", "open", "rejected"]
    assert {r["run_id"] for r in rows} == {str(ids["run"])}

    # into another project: a new run of status "imported" with the same report
    other = Project.create(tmp_path / "other.decipher")
    import_lost(other, DATA / "lost.csv", name="iberian")
    import_known(other, DATA / "known.csv", name="basque")
    run = import_matches(other, out)
    record = other.run(run)
    assert record.status == "imported" and record.summary() == "min_span=3, coverage_end=0.1"
    assert other.matches(run) == sample_matches()
    export_matches(other, tmp_path / "again.csv", run_id=run)
    drop = ("run_id", "match_id", "pins")  # an imported run's pins are not known: empty
    assert {r["pins"] for r in _rows(tmp_path / "again.csv")} == {""}
    strip = lambda rs: [{k: v for k, v in r.items() if k not in drop} for r in rs]  # noqa: E731
    assert strip(_rows(tmp_path / "again.csv")) == strip(rows)
    other.close()

    # re-import into the same run after editing decisions: ids and other decisions stay
    edited = [dict(r) for r in rows]
    edited[0]["decision"] = "open"
    edited[1]["decision"] = "Rejected"
    write_csv(tmp_path / "edited.csv", MATCH_COLUMNS, ([r[c] for c in MATCH_COLUMNS] for r in edited))
    assert import_matches(project, tmp_path / "edited.csv", run_id=ids["run"]) == ids["run"]
    assert project.decisions(ids["run"]) == {("B.1.1", 0, 8, "-ke"): "rejected",
                                             ("B.1.3", 0, 2, "tusu"): "rejected"}
    export_matches(project, tmp_path / "after.csv")
    assert [r["match_id"] for r in _rows(tmp_path / "after.csv")] == [r["match_id"] for r in rows]
    project.close()


def test_bom_tsv_and_formula_guarding(tmp_path):
    project, ids = filled_project(tmp_path / "p.decipher")
    plain, guarded = tmp_path / "plain.tsv", tmp_path / "guarded.csv"
    export_matches(project, plain, bom=True)
    assert plain.read_bytes().startswith(b"\xef\xbb\xbfrun_id\tmatch_id\t")
    assert plain.read_bytes().count(b"\r\n") == 6  # RFC 4180 line ends: header + 5 rows
    export_matches(project, guarded, guard_formulas=True)
    p_rows, g_rows = _rows(plain, "\t"), _rows(guarded)
    assert p_rows[2]["lost_span"] == "-ke" and p_rows[2]["stem"] == "-ke"  # off: data unchanged
    assert g_rows[2]["lost_span"] == "'-ke" and g_rows[2]["stem"] == "'-ke"
    assert g_rows[2]["score"] == "-0.125"  # numbers are never guarded
    assert g_rows[0]["stem"] == "bakar"
    export_lost(project, tmp_path / "lost.csv", guard_formulas=True)
    texts = [r["text"] for r in _rows(tmp_path / "lost.csv")]
    assert texts == ["ba-ka-ra tu", "'-ke ti ba", "ár bi, ka", "'=ku su"]
    # a guarded report reads back with unguard=True
    run = import_matches(project, guarded, unguard=True)
    assert project.matches(run) == project.matches(ids["run"])
    project.close()


def test_parse_settings():
    assert parse_settings("paper defaults") == {}
    assert parse_settings("feature_dim=35, segmented=True, temperature=0.25, edit_mode=max") == {
        "feature_dim": 35, "segmented": True, "temperature": 0.25, "edit_mode": "max"}
    with pytest.raises(ValueError):
        parse_settings("no_such_setting=1")


# ---- bad input leaves the project byte-for-byte unchanged ------------------------------------


BAD = [
    ("lost", "bad_missing_column.csv", r"bad_missing_column\.csv, line 1: missing column 'text'"),
    ("lost", "bad_latin1.csv", r"bad_latin1\.csv, line 3: not valid UTF-8"),
    ("lost", "bad_duplicate_ids.csv", r"line 4: duplicate id 'A' \(first on line 2\)"),
    ("lost", "bad_empty.csv", r"bad_empty\.csv: the file is empty"),
    ("lost", "bad_header_only.csv", r"no inscriptions"),
    ("lost", "bad_truncated.csv", r"bad_truncated\.csv, line 4: malformed CSV"),
    ("lost", "lost.csv", r"already exists"),  # the name is taken
    ("text", "bad_empty.csv", r"the file is empty"),
    ("known", "bad_ipa_known.csv", r"bad_ipa_known\.csv, line 3: unknown IPA symbol '1'"),
    ("known", "bad_latin1.csv", r"not valid UTF-8"),
    ("known", "bad_missing_column.csv", r"missing column 'form'"),
    ("gold", "bad_gold_unknown_id.csv", r"line 3: unknown inscription id 'Z\.9'"),
    ("gold", "bad_truncated.csv", r"missing column 'inscription_id'"),
    ("prior", "bad_prior_two_units.csv", r"line 3: known_ipa 'kt' must be one IPA unit"),
    ("prior", "bad_empty.csv", r"the file is empty"),
    ("matches", "bad_truncated.csv", r"missing column 'inscription_id'"),
    ("matches", "lost.csv", r"missing column"),
]


def _import(kind: str, project: Project, path: Path):
    if kind == "lost":
        return import_lost(project, path, name="iberian" if path.name == "lost.csv" else None)
    return {"text": import_text, "known": import_known, "gold": import_gold,
            "prior": import_prior, "matches": import_matches}[kind](project, path)


@pytest.mark.parametrize("kind, name, message", BAD)
def test_bad_input_leaves_file_unchanged(tmp_path, kind, name, message):
    path = tmp_path / "p.decipher"
    project, _ = filled_project(path)
    project.close()
    before = sha(path)
    with Project.open(path) as project:
        with pytest.raises((InputError, ProjectError), match=message) as err:
            _import(kind, project, DATA / name)
        if kind != "lost" or name != "lost.csv":
            assert isinstance(err.value, InputError)
        assert len(project.corpora()) == 1 and len(project.pins()) == 3
    assert sha(path) == before


def test_bad_match_reports(tmp_path):
    project, ids = filled_project(tmp_path / "p.decipher")
    export_matches(project, tmp_path / "r.csv")
    rows = _rows(tmp_path / "r.csv")

    def write(edit):
        rs = [dict(r) for r in rows]
        edit(rs)
        write_csv(tmp_path / "bad.csv", MATCH_COLUMNS, ([r[c] for c in MATCH_COLUMNS] for r in rs))
        return tmp_path / "bad.csv"

    before = project.matches(ids["run"])
    cases = [
        (lambda rs: rs[1].update(decision="maybe"), r"line 3: decision must be"),
        (lambda rs: rs[1].update(rank="x"), r"line 3: 'rank' must be a whole number"),
        (lambda rs: rs[1].update(span_start="5"), r"line 3: this row of match .* disagrees"),
        (lambda rs: rs[1].update(rank="1"), r"line 3: rank 1 given twice"),
        (lambda rs: rs[4].update(settings="bogus=1"), r"different settings"),
    ]
    for edit, message in cases:
        with pytest.raises(InputError, match=message):
            import_matches(project, write(edit), run_id=ids["run"])
    with pytest.raises(InputError, match="cannot read the 'settings' column"):
        import_matches(project, write(lambda rs: [r.update(settings="bogus=1") for r in rs]))
    assert project.matches(ids["run"]) == before and len(project.runs()) == 1
    project.close()


# ---- hooks for the readers others provide -------------------------------------------------


@pytest.fixture
def fake_readers(monkeypatch):
    ins = [Inscription("A", "ba ka"), Inscription("B", "tu su")]
    stems = [Stem("bak", "bak", "go"), Stem("tus", "tus")]
    gold = [GoldAnnotation("A", 0, 2, ("bak",))]
    mods = {
        "engine.io.cog": {"read_cog": lambda path, **kw: (ins, stems, gold)},
        "engine.io.hesperia": {"read_hesperia": lambda path, **kw: types.SimpleNamespace(inscriptions=ins)},
    }
    for name, attrs in mods.items():
        monkeypatch.setitem(sys.modules, name, types.SimpleNamespace(**attrs))
    return ins, stems, gold


def test_import_hooks_with_stand_in_readers(tmp_path, fake_readers):
    ins, stems, gold = fake_readers
    path = tmp_path / "p.decipher"
    project = Project.create(path)
    cid, lid = import_cog(project, tmp_path / "x.cog", language="hebrew")
    assert project.inscriptions(cid) == ins and project.stems(lid) == stems and project.gold(cid) == gold
    assert project.languages()[0].name == "hebrew" and project.corpora()[0].format == "cog"
    # a second .cog of the same name fails as a whole: no corpus or language half-added
    project.close()
    before = sha(path)
    with Project.open(path) as project:
        with pytest.raises(ProjectError, match="already exists"):
            import_cog(project, tmp_path / "y.cog", name="new corpus", language="hebrew")
        assert [c.name for c in project.corpora()] == ["x"]
    assert sha(path) == before
    with Project.open(path) as project:
        assert project.inscriptions(import_hesperia(project, tmp_path / "h.txt")) == ins


WORDLISTS = DATA.parent / "wordlists"


def test_wordlist_and_cldf_readers(tmp_path):
    pytest.importorskip("engine.io.wordlist")
    pytest.importorskip("engine.io.cldf")
    path = tmp_path / "p.decipher"
    project = Project.create(path)
    lid = import_wordlist(project, WORDLISTS / "latin_words.csv", "latin")
    assert project.languages()[0].name == "latin_words"
    import_wordlist(project, WORDLISTS / "latin_words.csv", "latin", language="Latin")
    del_id = project.language_id("Latin")
    project.remove_language(del_id)
    assert project.languages()[0].format == "wordlist:latin" and project.stems(lid)
    lid = import_cldf(project, WORDLISTS / "cldf", language="basque")
    assert project.languages()[1].name == "basque" and len(project.stems(lid)) == 9
    project.close()
    before = sha(path)
    with Project.open(path) as project:
        with pytest.raises(InputError):
            import_cldf(project, WORDLISTS / "cldf", language="klingon", name="k")
        bad = tmp_path / "bad.txt"
        bad.write_text("aqua\n\u2603\n", encoding="utf-8")
        with pytest.raises(InputError, match="line 2"):
            import_wordlist(project, bad, "latin")
    assert sha(path) == before


def test_real_cog_and_hesperia_readers(tmp_path):
    pytest.importorskip("engine.io.cog")
    pytest.importorskip("engine.io.hesperia")
    hesperia = DATA.parent / "hesperia"
    path = tmp_path / "p.decipher"
    project = Project.create(path)
    cid, lid = import_cog(project, DATA / "sample.cog")
    assert [c.name for c in project.corpora()] == ["sample"] and project.languages()[0].name == "heb"
    assert len(project.inscriptions(cid)) == 4 and project.stems(lid)[-1] == Stem("byt", "bjt", "", "heb")
    assert project.gold(cid)[1] == GoldAnnotation("uga:3", 0, 3, ("mlk", "mlkh"))
    hid = import_hesperia(project, hesperia / "sample.csv", name="hesperia")
    assert len(project.inscriptions(hid)) == 16 and project.inscriptions(hid)[0].meta["site"]
    project.close()
    before = sha(path)
    with Project.open(path) as project:
        for bad in ("latin1.csv", "missing_column.csv", "truncated.csv"):
            with pytest.raises(InputError, match=bad.replace(".", r"\.")):
                import_hesperia(project, hesperia / bad)
        with pytest.raises(ProjectError, match="already exists"):
            import_cog(project, DATA / "sample.cog", name="new")  # language "heb" is taken
        assert len(project.corpora()) == 2
    assert sha(path) == before


def test_corpus_and_language_are_resolved_by_id_name_or_uniqueness(tmp_path):
    from engine.project.exporting import resolve_corpus, resolve_language

    project, ids = filled_project(tmp_path / "p.decipher")
    assert resolve_corpus(project, None) == resolve_corpus(project, "iberian") == ids["corpus"]
    assert resolve_language(project, None) == resolve_language(project, ids["language"]) == ids["language"]
    second = import_lost(project, DATA / "lost.csv", name="iberian-2")
    assert resolve_corpus(project, "iberian-2") == second
    with pytest.raises(ProjectError, match=r"say which corpus \(the project has: 'iberian', 'iberian-2'\)"):
        resolve_corpus(project, None)
    with pytest.raises(ProjectError, match="no corpus named 'latin'"):
        resolve_corpus(project, "latin")
    with pytest.raises(ProjectError):
        resolve_language(project, ids["language"] + 99)
    project.close()
