"""The script kind (setting ``signs``: letters or syllables) is one object, chosen from the setting
when a run is prepared (engine/model/script.py; issue 53, item 6), not a string tested wherever the
two kinds differ. This counts the string tests left in the sources of engine/ and decipher_gui/
(``signs == "syllables"``, ``signs != 'letters'``, ``.get("signs") == ...``, either side first):
at most MAX_STRING_TESTS. Nothing here imports the modules it reads."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "decipher_gui")
MAX_STRING_TESTS = 2

_KIND = r"""['"](?:letters|syllables)['"]"""
_SETTING = r"""\bsigns\b['"]?\)?\]?"""          # config.signs, values["signs"], .get("signs")
STRING_TEST = re.compile(rf"{_SETTING}\s*[!=]=\s*{_KIND}|{_KIND}\s*[!=]=\s*[\w.]*{_SETTING}")


def string_tests(root: Path = ROOT) -> list[str]:
    """``path:line: text`` of every source line of the two packages that tests the setting's string."""
    found = []
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if STRING_TEST.search(line):
                    found.append(f"{path.relative_to(root)}:{n}: {line.strip()}")
    return found


def test_the_script_kind_is_tested_as_a_string_in_at_most_two_places():
    found = string_tests()
    assert len(found) <= MAX_STRING_TESTS, ("ask the run's script (engine/model/script.py: Prepared.script, "
                                            "script_of) instead of testing the setting signs:\n" + "\n".join(found))


def test_every_form_of_a_string_test_is_counted(tmp_path):
    lines = ['if config.signs == "syllables":', "x = cfg.signs != 'letters'", 'if values.get("signs") == "syllables":',
             'if values["signs"] != "letters":', 'if "syllables" == prep.config.signs:']
    ignored = ['signs = "syllables"', 'preset = dict(signs="syllables")', 'n_signs == 3', '"letters" if a else "signs"']
    (tmp_path / "engine").mkdir()
    (tmp_path / "decipher_gui").mkdir()
    (tmp_path / "engine" / "a.py").write_text("\n".join(lines + ignored) + "\n", encoding="utf-8")
    (tmp_path / "decipher_gui" / "b.py").write_text(lines[0] + "\n", encoding="utf-8")
    found = string_tests(tmp_path)
    assert [f.split(": ", 1)[1] for f in found] == lines + lines[:1]
