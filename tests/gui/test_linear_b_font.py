"""Issue 25 item 4: the bundled Noto Sans Linear B and Linear A fonts ship with their licence, are
registered by the app, and Qt (offscreen) draws a Linear B syllable, a Linear B ideogram and Linear A
signs with them (not with a fallback box)."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QFont, QFontDatabase, QFontMetrics, QRawFont

from decipher_gui.fonts import FONT_DIR, FONT_FILES, TEXT_FAMILIES, register_fonts

LINEAR_B = "\U00010000\U0001000F\U00010080"   # 𐀀 (B008 A), 𐀏 (B077 KA), an ideogram
LINEAR_A = "\U00010600\U00010740"              # LINEAR A SIGN AB001, LINEAR A SIGN A701 A
FILES = {"Noto Sans Linear B": "NotoSansLinearB-Regular.ttf", "Noto Sans Linear A": "NotoSansLinearA-Regular.ttf"}
SAMPLES = {"Noto Sans Linear B": LINEAR_B, "Noto Sans Linear A": LINEAR_A}


def test_the_fonts_and_their_licence_are_bundled():
    for name in FILES.values():
        assert name in FONT_FILES and (FONT_DIR / name).is_file()
    licence = (FONT_DIR / "OFL-NotoSansLinear.txt").read_text(encoding="utf-8")
    assert "SIL OPEN FONT LICENSE Version 1.1" in licence
    assert "notofonts/linear-a" in licence and "notofonts/linear-b" in licence
    assert "Noto Sans Linear B" in TEXT_FAMILIES and "Noto Sans Linear A" in TEXT_FAMILIES


@pytest.mark.parametrize("family", sorted(FILES))
def test_qt_reads_each_file_and_finds_the_glyphs(app, family):
    raw = QRawFont(str(FONT_DIR / FILES[family]), 20.0)
    assert raw.isValid() and raw.familyName() == family
    for ch in SAMPLES[family]:
        assert raw.supportsCharacter(ord(ch)), f"{family} has no glyph for U+{ord(ch):04X}"
    assert not raw.supportsCharacter(ord("\U00010900"))   # a Phoenician letter: the check can fail


@pytest.mark.parametrize("family", sorted(FILES))
def test_the_registered_family_draws_the_signs(app, family):
    assert family in register_fonts()
    assert family in QFontDatabase.families()
    font = QFont()
    font.setFamilies([family])
    metrics = QFontMetrics(font)
    assert all(metrics.inFontUcs4(ord(ch)) for ch in SAMPLES[family])
    assert metrics.horizontalAdvance(SAMPLES[family][0]) > 0


def test_the_display_dialog_keeps_the_linear_b_hyphens(app):
    """The display-table dialog (View ▸ Display table…) offers the Linear B transliteration and keeps
    its joiner, chosen whole or with a cell edited."""
    from decipher_gui import dialogs
    from engine.io import display as display_tables
    from engine.io.linear_b import to_signs

    signs = list(to_signs("a-e-ri"))
    d = dialogs.DisplayTableDialog(signs, display_tables.IDENTITY)
    d.preset_box.setCurrentIndex(d.preset_box.findData("linear-b-transliteration"))
    d._preset(d.preset_box.currentIndex())
    assert d.preset_box.currentText() == "Linear B (transliteration)"
    assert d.table().show_text(signs) == "a-e-ri"
    d.grid.item(2, 1).setText("RI")
    custom = d.table()
    assert custom.name == "custom" and custom.show_text(signs) == "a-e-RI"
