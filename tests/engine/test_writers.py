"""No command writes through a planted symbolic link or over a file the user did not name (issue 52,
2): one test per writer. A link is refused in one line (exit 2) with its target untouched; a file
the program names itself (inside --out) that is already there is refused unless --force; a file
the user names (``project export --lost FILE``) is replaced, never through a link."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from engine.cli.main import main

from .test_project_helpers import filled_project

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="symbolic links")

SAMPLE = Path(__file__).resolve().parents[2] / "resources" / "sample"
TINY = ["--device", "cpu", "--set", "feature_dim=8", "--set", "chars_per_batch=60"]


@pytest.fixture()
def victim(tmp_path) -> Path:
    path = tmp_path / "victim.csv"
    path.write_text("precious\n", encoding="utf-8")
    return path


def one_error(capsys) -> str:
    lines = [x for x in capsys.readouterr().err.splitlines() if "error" in x]
    assert len(lines) == 1, lines
    return lines[0]


def test_import_cog(tmp_path, victim, capsys):
    out = tmp_path / "D"
    out.mkdir()
    (out / "known.csv").symlink_to(victim)
    argv = ["import-cog", str(SAMPLE / "sample.cog"), "--out", str(out)]
    for extra in ([], ["--force"]):
        assert main(argv + extra) == 2
        assert "known.csv" in one_error(capsys)
    assert victim.read_text() == "precious\n" and not (out / "lost.csv").exists()
    (out / "known.csv").unlink()
    (out / "lost.csv").write_text("mine\n")
    assert main(argv) == 2
    line = one_error(capsys)
    assert "lost.csv: already there" in line and "--force" in line and (out / "lost.csv").read_text() == "mine\n"
    assert main(argv + ["--force"]) == 0
    assert (out / "lost.csv").read_text(encoding="utf-8").startswith("id,text")


def test_sample(tmp_path, victim, capsys):
    out = tmp_path / "S"
    out.mkdir()
    (out / "gold.csv").symlink_to(tmp_path / "outside.csv")     # a dangling link
    assert main(["sample", "--out", str(out)]) == 2
    assert "gold.csv" in one_error(capsys) and not (tmp_path / "outside.csv").exists()
    (out / "gold.csv").unlink()
    (out / "gold.csv").symlink_to(victim)
    assert main(["sample", "--out", str(out)]) == 2
    assert victim.read_text() == "precious\n"


def test_run_out(tmp_path, victim, capsys):
    out = tmp_path / "o"
    out.mkdir()
    (out / "matches.csv").symlink_to(victim)
    argv = ["run", "--lost", str(SAMPLE / "lost.csv"), "--known", str(SAMPLE / "known.csv"), "--steps", "1",
            "--out", str(out), "--quiet", *TINY]
    for extra in ([], ["--force"]):
        assert main(argv + extra) == 2
        line = one_error(capsys)
        assert "matches.csv" in line and "symbolic link" in line
    assert victim.read_text() == "precious\n" and not (out / "metrics.json").exists()
    (out / "matches.csv").unlink()
    (out / "metrics.json").write_text("{}")
    assert main(argv) == 2
    assert "metrics.json: already there" in one_error(capsys) and (out / "metrics.json").read_text() == "{}"
    assert main(argv + ["--force"]) == 0
    assert (out / "metrics.json").read_text() != "{}"
    # resuming the folder's own checkpoint continues that run into its folder
    assert main(argv[:-len(TINY)] + ["--resume", str(out / "checkpoint.pt"), "--steps", "2"]) == 0


@pytest.mark.parametrize("kind, name", [("lost", "lost.csv"), ("matches", "m.csv"), ("prior", "p.csv"),
                                        ("edictor", "e.tsv"), ("sign-values", "s.csv")])
def test_project_export_to_a_named_file(tmp_path, victim, capsys, kind, name):
    project, _ = filled_project(tmp_path / "p.decipher")
    project.close()
    target = tmp_path / name
    target.symlink_to(victim)
    argv = ["project", "export", str(tmp_path / "p.decipher"), f"--{kind}", str(target)]
    assert main(argv) == 2
    assert "symbolic link" in one_error(capsys) and victim.read_text() == "precious\n"
    target.unlink()
    target.write_text("old\n")
    assert main(argv) == 0, capsys.readouterr().err   # the user named this file: it is replaced
    assert target.read_text(encoding="utf-8") != "old\n"


def test_project_export_cldf_folder(tmp_path, victim, capsys):
    from engine.project import Project

    project, ids = filled_project(tmp_path / "p.decipher")
    project.close()
    out = tmp_path / "cldf"
    out.mkdir()
    (out / "forms.csv").symlink_to(victim)
    argv = ["project", "export", str(tmp_path / "p.decipher"), "--cldf", str(out)]
    for extra in ([], ["--force"]):
        assert main(argv + extra) == 2
        assert "forms.csv" in one_error(capsys)
    assert victim.read_text() == "precious\n"
    (out / "forms.csv").unlink()
    assert main(argv) == 0
    capsys.readouterr()
    assert main(argv) == 2                      # an earlier export's files: refused without --force
    assert "already there" in one_error(capsys)
    assert main(argv + ["--force"]) == 0
    with Project.open(tmp_path / "p.decipher", read_only=True) as p:
        assert p.runs()[0].id == ids["run"]


def test_import_cog_into_a_folder_it_cannot_write_is_one_line(tmp_path, capsys, monkeypatch):
    """Issue 52, 12: import-cog into a read-only folder was a PermissionError traceback (exit 1)."""
    import os

    (tmp_path / "a-file").write_text("x")
    assert main(["import-cog", str(SAMPLE / "sample.cog"), "--out", str(tmp_path / "a-file" / "D")]) == 2
    assert "cannot make the folder" in one_error(capsys)
    out = tmp_path / "ro"
    out.mkdir()
    real_open = os.open

    def read_only(name, flags, *args, **kwargs):   # the folder refuses new files, whoever runs the test
        if os.path.dirname(os.fspath(name)) == str(out) and flags & os.O_CREAT:
            raise PermissionError(13, "Permission denied", os.fspath(name))
        return real_open(name, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", read_only)
    assert main(["import-cog", str(SAMPLE / "sample.cog"), "--out", str(out)]) == 2
    line = one_error(capsys)
    assert line.startswith(f"error: {out / 'lost.csv'}: cannot write the file (permission denied)")
    assert list(out.iterdir()) == []


def test_syllables_with_a_vowel_less_vocabulary_is_one_line(tmp_path, capsys):
    """Issue 52, 12: ``--set signs=syllables`` with a vocabulary without vowels was a ValueError traceback."""
    (tmp_path / "known.csv").write_text("form,ipa\nbcdfgh,bkdfgh\nkstpqr,kstpqr\n", encoding="utf-8")
    assert main(["run", "--lost", str(SAMPLE / "lost.csv"), "--known", str(tmp_path / "known.csv"), "--steps", "1",
                 "--out", str(tmp_path / "o"), "--quiet", "--set", "signs=syllables", *TINY]) == 2
    line = one_error(capsys)
    assert line.startswith("error: setting signs = syllables: no stem of the known vocabulary holds a vowel")
