"""CLDF table urls must name files inside the metadata file's folder (issue 28, item 3)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from engine.cli.main import main as cli_main
from engine.errors import InputError
from engine.io.cldf import read_cldf_wordlist

CLDF = Path(__file__).resolve().parents[1] / "data" / "wordlists" / "cldf"


def dataset(tmp_path: Path, url: str) -> Path:
    d = tmp_path / "ds" / "cldf"
    shutil.copytree(CLDF, d)
    meta = d / "Wordlist-metadata.json"
    md = json.loads(meta.read_text(encoding="utf-8"))
    md["tables"][0]["url"] = url  # the FormTable
    meta.write_text(json.dumps(md), encoding="utf-8")
    return meta


@pytest.mark.parametrize("url", ["/etc/passwd", "../../x.csv", "../forms.csv", "file:///etc/passwd",
                                 "http://example.org/forms.csv", "sub/../../forms.csv"])
def test_a_table_url_outside_the_folder_is_refused(tmp_path, url):
    meta = dataset(tmp_path, url)
    (tmp_path / "ds" / "forms.csv").write_text((CLDF / "forms.csv").read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(InputError, match="refused") as info:
        read_cldf_wordlist(meta)
    assert info.value.path == str(meta) and repr(url) in str(info.value)


def test_a_link_inside_the_folder_that_leads_out_is_refused(tmp_path):
    meta = dataset(tmp_path, "forms-link.csv")
    outside = tmp_path / "secret.csv"
    outside.write_text((CLDF / "forms.csv").read_text(encoding="utf-8"), encoding="utf-8")
    (meta.parent / "forms-link.csv").symlink_to(outside)
    with pytest.raises(InputError, match="leads outside"):
        read_cldf_wordlist(meta)


def test_urls_inside_the_folder_still_read(tmp_path):
    meta = dataset(tmp_path, "./sub/../forms.csv")
    (meta.parent / "sub").mkdir()
    assert len(read_cldf_wordlist(meta)) == len(read_cldf_wordlist(CLDF / "Wordlist-metadata.json"))


def test_project_import_of_the_passwd_dataset_is_one_line(tmp_path, capsys):
    meta = dataset(tmp_path, "/etc/passwd")
    project = tmp_path / "p.decipher"
    assert cli_main(["project", "new", str(project)]) == 0
    capsys.readouterr()
    code = cli_main(["project", "import", str(project), "--cldf", str(meta), "--name", "x"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert str(meta) in err and "'/etc/passwd'" in err
