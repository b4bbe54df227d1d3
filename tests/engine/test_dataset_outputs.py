"""Issue 52: a dataset builder never replaces an earlier build's file in --out unless --force; the
whole build is refused in one line (exit 2, naming the file) before anything is written."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.cli.main import main as cli_main
from engine.errors import DecipherError

TESTS = Path(__file__).resolve().parents[1]
MINI = TESTS / "data" / "gothic" / "mini"
IBERIAN = TESTS / "data" / "iberian" / "iberian.csv"
SPANISH = TESTS / "data" / "candidates" / "genesis.spanish.tsv"


def _builds(tmp_path):
    """(argv without --force, the folder or file it writes, a file it writes) per builder."""
    out = tmp_path / "out"
    return {
        "gothic": (["dataset", "gothic", "--data", str(MINI), "--known", "pgm", "--wr", "50", "--out", str(out),
                    "--quiet"], out / "gold.csv"),
        "gothic-grid": (["dataset", "gothic", "--data", str(MINI), "--known", "pgm", "--wr", "0,100",
                         "--out", str(out), "--quiet"], out / "pgm-wr100" / "README.md"),
        "candidates": (["dataset", "candidates", "--language", "spanish", "--stems", "5", "--source", str(SPANISH),
                        "--out", str(out / "known.csv")], out / "known.csv"),
        "iberian": (["dataset", "iberian", "--source", str(IBERIAN), "--out", str(out)], out / "stats.json"),
        "synthetic-syllabary": (["dataset", "synthetic-syllabary", "--seed", "3", "--stems", "12",
                                 "--inscriptions", "6", "--out", str(out)], out / "running" / "gold.csv"),
    }


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("name", ["gothic", "gothic-grid", "candidates", "iberian", "synthetic-syllabary"])
def test_a_second_build_into_the_same_out_is_refused_unless_force(tmp_path, capsys, name):
    argv, target = _builds(tmp_path)[name]
    assert cli_main(argv) == 0
    capsys.readouterr()
    out = tmp_path / "out"
    target.write_bytes(b"the user's edit\n")          # a file of the earlier build, edited since
    before = _snapshot(out)
    assert cli_main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: ") and "already there" in err and "--force" in err
    assert _snapshot(out) == before                   # nothing replaced, nothing added, no temporary left
    assert cli_main(argv + ["--force"]) == 0
    assert target.read_bytes() != b"the user's edit\n"
    assert not list(out.rglob(".*.part"))


def test_an_invented_cipher_is_refused_over_an_earlier_one_unless_force(tmp_path):
    from engine.datasets.invented import CIPHER_FILES, write_cipher
    from tests.engine.test_invented_ciphers import toy

    c = toy()
    write_cipher(c, tmp_path / "c")
    (tmp_path / "c" / "info.json").write_text("mine", encoding="utf-8")
    before = _snapshot(tmp_path / "c")
    with pytest.raises(DecipherError, match=r"lost\.csv: already there.*--force"):
        write_cipher(c, tmp_path / "c")
    assert _snapshot(tmp_path / "c") == before
    assert write_cipher(c, tmp_path / "c", force=True) == [tmp_path / "c" / f for f in CIPHER_FILES]
    assert (tmp_path / "c" / "info.json").read_text(encoding="utf-8") != "mine"


def test_the_invented_builder_has_force():
    from engine.datasets.invented import parser

    assert parser().parse_args(["--source", "spanish", "--out", "x", "--force"]).force is True
