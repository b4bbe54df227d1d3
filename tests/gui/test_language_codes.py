"""Issue 29 item 4: the Glottocode and ISO 639-3 code of a corpus and a known language are settable in
the app; they are the settings `decipher project import --glottocode …` writes, which
tests/engine/test_field_exports.py follows into the CLDF and EDICTOR files."""

from __future__ import annotations

from engine.project.fieldexport import language_codes


def test_codes_typed_in_the_app_are_stored_and_a_bad_one_stores_nothing(window, monkeypatch):
    from decipher_gui.dialogs import LanguageCodesDialog

    names, codes = window.model.exports.language_codes()
    assert set(names) == {"corpus", "language"} and codes == {"corpus": {}, "language": {}}
    dialog = LanguageCodesDialog(window, names, codes)
    dialog.edits[("corpus", "glottocode")].setText("ugar1238")
    dialog.edits[("corpus", "iso639_3")].setText("uga")
    dialog.edits[("language", "iso639_3")].setText("hbo")
    assert window.acts.store_language_codes(dialog.values())
    s = window.model.state
    assert language_codes(window.project, "corpus", s.corpus_id) == {"glottocode": "ugar1238", "iso639_3": "uga"}
    assert language_codes(window.project, "language", s.language_id) == {"iso639_3": "hbo"}

    errors = []
    monkeypatch.setattr(window, "report_error", lambda *a: errors.append(a))
    assert not window.acts.store_language_codes({"corpus": {"glottocode": "XX"}, "language": {"iso639_3": "heb"}})
    assert errors and "XX" in " ".join(errors[0])
    assert language_codes(window.project, "language", s.language_id) == {"iso639_3": "hbo"}  # unchanged

