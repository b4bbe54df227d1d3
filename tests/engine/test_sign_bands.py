"""benchmarks/experiments/sign_bands.py: signs right by how often the text writes them."""

from __future__ import annotations

from collections import Counter

from benchmarks.experiments import sign_bands


def test_bands_rank_the_keys_signs_by_count_and_count_what_the_reading_has_right():
    signs = [chr(0x10600 + i) for i in range(25)]
    key = {s: {"known_onsets": "k", "known_vowels": "a|e"} for s in signs}
    key["x"] = {"known_onsets": "", "known_vowels": ""}            # no known value: not counted
    counts = Counter({s: 100 - i for i, s in enumerate(signs)})
    counts["x"] = 1000
    reading = {s: ("k", "e") if i % 2 == 0 else ("t", "a") for i, s in enumerate(signs)}
    del reading[signs[3]]                                            # a sign the run has no reading of
    first, second = sign_bands.bands(reading, key, counts)
    assert first["ranks"] == [1, 20] and first["signs"] == 20 and first["min_count"] == 81
    assert (first["read"], first["both"], first["onsets"], first["vowels"]) == (19, 10, 10, 19)
    assert second["ranks"] == [21, 25] and (second["signs"], second["both"]) == (5, 3)


def test_a_missing_run_is_one_line_and_exit_2(tmp_path, capsys):
    rc = sign_bands.main(["--runs", str(tmp_path), "--ids", "dev-s-latin-1", "--out", str(tmp_path / "o.jsonl")])
    assert rc == 2 and "no such checkpoint" in capsys.readouterr().err
    assert not (tmp_path / "o.jsonl").exists()
