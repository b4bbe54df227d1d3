"""One setting over several seeds, and their consensus: ``decipher run --seeds …`` and the function
the app's Run panel calls (:func:`run_seeds`, :func:`run_seeds_in_project`).

``OUT/seed-K/`` holds each seed's usual outputs, ``OUT/consensus.csv`` every reading of any seed
with how many seeds share it, ``OUT/metrics.json`` the gold-free chosen seed (docs/seeds.md), the
oracle seed for comparison, and the spread over seeds; ``OUT/results.csv`` makes it resumable.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Sequence

from .consensus import CONSENSUS_COLUMNS, consensus, consensus_table, read_readings, summary
from .errors import DecipherError
from .sweep import DONE, InlinePool, PlannedRun, drive
from .workers import LocalPool, RunItem


@dataclass(frozen=True)
class SeedsOutcome:
    out: Path
    metrics: dict
    """What OUT/metrics.json holds."""
    failed: dict[int, str]
    """Seeds that did not finish, with why."""


def check_seeds(seeds: Sequence[int]) -> list[int]:
    seeds = [int(s) for s in seeds]
    if not seeds:
        raise DecipherError("--seeds needs at least one seed")
    if len(set(seeds)) != len(seeds):
        raise DecipherError(f"--seeds: a seed is given twice ({' '.join(map(str, seeds))})")
    if any(s < 0 for s in seeds):
        raise DecipherError("--seeds: seeds are whole numbers from 0")
    return seeds


def _pool(workers: int, pool):
    if pool is not None:
        return pool
    return InlinePool() if workers == 1 else LocalPool(workers)


def run_seeds(inputs, seeds: Sequence[int], out: str | Path, *, workers: int = 1, pool=None,
              log: Callable[[str], None] = lambda line: None) -> SeedsOutcome:
    """Train ``inputs`` (an engine.session.RunInputs) once per seed into ``out/seed-K`` and write the
    consensus. ``workers`` 1 trains in this process one seed after the other; more: that many
    worker processes. Seeds already finished in ``out`` are not redone."""
    from .config import Config
    from .run_outputs import prepare_output_folder

    seeds = check_seeds(seeds)
    out = prepare_output_folder(Path(out))
    base = inputs.config.to_dict()

    def make_items(known: str):
        def item(p: PlannedRun) -> RunItem:
            config = Config.from_dict({**base, "seed": p.seed})
            return RunItem(out / p.run_dir, known, p.seed, "", inputs=replace(inputs, config=config))
        return item

    planned = [PlannedRun(inputs.vocabulary.language, s, {}, f"seed-{s}") for s in seeds]
    _drive_seeds(out, planned, make_items, workers, pool, log)
    total = _letters(inputs.corpus)
    return write_consensus(out, seeds, total)


def _letters(corpus) -> int:
    """The corpus's letters (spaces, the word dividers, do not count)."""
    return sum(len(i.text.replace(" ", "")) for i in corpus.inscriptions)


def _drive_seeds(out: Path, planned, make_items, workers: int, pool, log) -> None:
    """Run the planned seeds through ``pool`` (or a pool of ``workers`` made and closed here)."""
    the_pool = _pool(workers, pool)
    try:
        drive(out, planned, make_items, the_pool, log=log)
    finally:
        if pool is None:
            the_pool.close()


def run_seeds_in_project(project: str | Path, config, seeds: Sequence[int], out: str | Path, *,
                         corpus: str | None = None, language: str | None = None, workers: int = 1,
                         pool=None, log: Callable[[str], None] = lambda line: None) -> SeedsOutcome:
    """Each seed an ordinary run recorded in ``project``; the consensus is written to ``out`` and
    stored in the project's settings under ``seed_groups`` (the runs, the chosen seed and run)."""
    from .config import Config
    from .project.exporting import resolve_corpus, resolve_language
    from .project.store import Project
    from .run_outputs import prepare_output_folder

    seeds = check_seeds(seeds)
    out = prepare_output_folder(Path(out))
    with Project.open(project) as p:
        corpus_id = resolve_corpus(p, corpus)
        language_id = resolve_language(p, language)
        corpus_data = p.corpus(corpus_id)
        total = _letters(corpus_data)
        known = p.vocabulary(language_id).language
    base = config.to_dict()

    def make_items(_known: str):
        def item(pr: PlannedRun) -> RunItem:
            return RunItem(out / pr.run_dir, known, pr.seed, "", project=Path(project),
                           config=Config.from_dict({**base, "seed": pr.seed}),
                           corpus=corpus_data.name, language=known)
        return item

    planned = [PlannedRun(known, s, {}, f"seed-{s}") for s in seeds]
    _drive_seeds(out, planned, make_items, workers, pool, log)
    outcome = write_consensus(out, seeds, total)
    runs = {str(s): _run_id(out / f"seed-{s}") for s in seeds}
    group = {"out": str(out), "runs": runs, "chosen_seed": outcome.metrics.get("chosen_seed"),
             "chosen_run": runs.get(str(outcome.metrics.get("chosen_seed")))}
    with Project.open(project) as p:
        groups = [g for g in (p.setting("seed_groups", []) or []) if g.get("out") != str(out)]
        p.set_setting("seed_groups", groups + [group])
    return outcome


def _run_id(run_dir: Path) -> int | None:
    try:
        return json.loads((run_dir / "metrics.json").read_text(encoding="utf-8")).get("run_id")
    except (OSError, ValueError):
        return None


def write_consensus(out: Path, seeds: Sequence[int], total_letters: int, *, rows: dict | None = None,
                    prefix: str = "") -> SeedsOutcome:
    """Read ``out/seed-K`` of every finished seed; write consensus.csv and metrics.json there.
    ``rows``: the results.csv rows by run folder (default: ``out/results.csv``), where the seeds'
    folders are named ``prefix + "seed-K"`` (a sweep's group: ``KNOWN/SETTINGS/``)."""
    from .io.atomic import write_csv, write_text
    from .sweep import read_results

    if rows is None:
        rows = read_results(out / "results.csv") if (out / "results.csv").exists() else {}
    results, readings, failed = {}, {}, {}
    for s in seeds:
        run_dir = out / f"seed-{s}"
        row = rows.get(f"{prefix}seed-{s}")
        if row is None or row.status != DONE or not (run_dir / "metrics.json").exists():
            failed[s] = (row.error or row.status) if row is not None else "not run"
            continue
        m = json.loads((run_dir / "metrics.json").read_text(encoding="utf-8"))
        results[s] = {k: m.get(k) for k in ("coverage", "objective", "p_at_1", "p_at_10")}
        matches = run_dir / "matches.csv"
        readings[s] = read_readings(matches) if matches.exists() else ()
    if not results:
        raise DecipherError(f"no seed finished in {out}: " + "; ".join(f"seed {s}: {w}" for s, w in failed.items()))
    write_csv(out / "consensus.csv", CONSENSUS_COLUMNS, consensus_table(consensus(readings)))
    metrics = summary(results, readings, total_letters)
    if failed:
        metrics["failed_seeds"] = {str(s): why for s, why in failed.items()}
    write_text(out / "metrics.json", json.dumps(metrics, indent=2, ensure_ascii=False) + "\n")
    return SeedsOutcome(out, metrics, failed)
