"""benchmarks/gothic_types.py: the authors' type-level WR 100 % data built from the running text."""

from __future__ import annotations

import csv
from pathlib import Path

from benchmarks.gothic_types import main, table, type_level


def _write(path: Path, header, rows):
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


def _running_text(folder: Path, gold_rows):
    folder.mkdir()
    _write(folder / "lost.csv", ["id", "text", "reference"],
           [["s1", "ak usfulljan garda jah garda", "r"], ["s2", "garda usfulljan bi", "r"]])
    _write(folder / "known.csv", ["form", "ipa"], [["full", "full"], ["gard", "ɣard"]])
    _write(folder / "gold.csv", ["inscription_id", "start", "word_end", "known", "stem_end", "token", "lemma"], gold_rows)


def _read(path: Path) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def test_each_word_once_short_ones_dropped_and_the_gold_at_the_same_place_inside_the_word(tmp_path):
    # usfulljan's gold is the prefix-stripped span fulljan (offsets 5-12 in s1), its stem full (5-9)
    _running_text(tmp_path / "src", [["s1", "5", "12", "full", "9", "usfulljan", "us-fulljan"],
                                     ["s1", "13", "18", "gard", "17", "garda", "gards"],
                                     ["s1", "23", "28", "gard", "27", "garda", "gards"],
                                     ["s2", "6", "15", "full", "10", "usfulljan", "fulljan"]])
    counts = type_level(tmp_path / "src", tmp_path / "types")
    lost = _read(tmp_path / "types" / "lost.csv")
    assert [r["text"] for r in lost] == ["usfulljan", "garda"]   # ak, jah, bi: under 4 letters
    assert counts == {"types": 2, "gold_rows": 2, "chunks": 2}
    gold = _read(tmp_path / "types" / "gold.csv")
    assert [(g["inscription_id"], g["start"], g["word_end"], g["stem_end"], g["known"]) for g in gold] == [
        ("t00001", "2", "9", "6", "full"), ("t00002", "0", "5", "4", "gard")]
    word = lost[0]["text"]
    assert word[int(gold[0]["start"]):int(gold[0]["stem_end"])] == "full"
    assert (tmp_path / "types" / "known.csv").read_bytes() == (tmp_path / "src" / "known.csv").read_bytes()


def test_a_gold_span_outside_its_word_is_one_line(tmp_path, capsys):
    import pytest

    _running_text(tmp_path / "src", [["s1", "3", "9", "full", "9", "usfulljan", "x"]])   # ends mid-word
    with pytest.raises(SystemExit, match=r"gold.csv, line 2: the span 3-9 is not inside the word 'usfulljan'"):
        type_level(tmp_path / "src", tmp_path / "types")


def test_the_table_and_bad_options(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    out.write_text('{"known": "on", "seed": 1, "schedule": "0-3.5", "ablation": "none", "p_at_10": 0.2, '
                   '"letters_right": 3, "final_objective": -2.0}\n{"known": "on", "seed": 0, "schedule": "0-3.5", '
                   '"ablation": "none", "p_at_10": 0.4, "letters_right": 5, "final_objective": -2.5}\n')
    assert table(out)[2] == "| on | 0-3.5 | none | 0.400 / 0.200 | 0.300 | 5 / 3 | -2.500 / -2.000 |"
    assert main(["--known", "xx", "--out", str(out)]) == 2
    assert capsys.readouterr().err.strip() == "error: unknown --known xx"
    assert main(["--table", "--out", str(tmp_path / "none.jsonl")]) == 2
