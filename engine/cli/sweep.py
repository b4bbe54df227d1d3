"""``decipher sweep`` and ``decipher run --seeds``: the command-line callers of engine/runs/sweep.py and
engine/runs/seeds.py (errors are one line, exit status 2, through engine.cli.main)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from engine.cli.options import add_dotted_argument, add_known_system_argument
from engine.config import PRESETS, presets_help
from engine.errors import DecipherError


def _log(line: str) -> None:
    print(line, file=sys.stderr)


def add_seeds_arguments(p: argparse.ArgumentParser) -> None:
    """``--seeds`` and ``--workers`` on ``decipher run``."""
    g = p.add_argument_group("several seeds (docs/seeds.md)")
    g.add_argument("--seeds", type=int, nargs="+", metavar="K",
                   help="train once per seed into OUT/seed-K and write OUT/consensus.csv and OUT/metrics.json "
                        "with the seed chosen without gold")
    g.add_argument("--workers", type=int, default=1,
                   help="with --seeds: runs at once in worker processes (default 1: one after the other here)")
    g.add_argument("--force-rerun", action="store_true",
                   help="with --seeds: train every seed again, even those finished in OUT with the same inputs")


def add_sweep_parser(sub) -> None:
    p = sub.add_parser("sweep", help="a grid of runs in parallel, resumable (results.csv)",
                       description="Run known vocabularies x settings x seeds in worker processes (or on a Ray "
                                   "cluster) and write OUT/results.csv, one row per run; runs already finished "
                                   "in OUT are not redone.")
    src = p.add_argument_group("input files (or --project)")
    src.add_argument("--lost", type=Path, help="LOST.csv: id,text")
    add_dotted_argument(src)
    src.add_argument("--known", nargs="+", default=[], metavar="KNOWN",
                     help="KNOWN.csv files (with --project: known-language names in the project)")
    add_known_system_argument(src)
    src.add_argument("--gold", type=Path, help="GOLD.csv: inscription_id,start,word_end,known (for P@K)")
    src.add_argument("--prior", type=Path, help="PRIOR.csv: lost,known_ipa[,weight]: pinned values for every run")
    proj = p.add_argument_group("project file")
    proj.add_argument("--project", type=Path, help="read the data from this project and record each run there")
    proj.add_argument("--corpus", help="corpus name in the project (default: the only one)")
    grid = p.add_argument_group("the grid")
    grid.add_argument("--seeds", type=int, nargs="+", default=[0], metavar="K", help="the seeds of the grid (default 0)")
    grid.add_argument("--set", action="append", default=[], metavar="KEY=V1[,V2…]",
                      help="a setting and its values to sweep (repeatable; the grid is every combination)")
    grid.add_argument("--grid", type=Path, help="a TOML file with a [grid] table: KEY = [values]")
    grid.add_argument("--config", type=Path, help="a TOML file of base settings")
    grid.add_argument("--preset", choices=sorted(PRESETS), help=presets_help("base settings of a paper experiment"))
    grid.add_argument("--steps", type=int, help="training steps of every run (default 3000, or the --config file's)")
    grid.add_argument("--device", choices=["auto", "cpu", "cuda"],
                      help="cuda: every worker shares the one GPU")
    where = p.add_argument_group("where the runs go")
    where.add_argument("--workers", type=int, default=None,
                       help="worker processes at once (default: the cores this machine gives)")
    where.add_argument("--ray", metavar="ADDRESS|local",
                       help="run each run as a Ray task on the cluster at ADDRESS, or on one started here "
                            "(needs the [cluster] extra)")
    where.add_argument("--nice", type=int, default=None, metavar="N",
                       help="local workers' CPU niceness, 0-19 (default 10: below the app and the shell)")
    where.add_argument("--gpus-per-run", type=float, default=0.0,
                       help="with --ray: the share of a GPU each run asks Ray for (e.g. 0.125: 8 runs per GPU)")
    p.add_argument("--out", type=Path, required=True, help="the sweep's folder (results.csv and every run)")
    p.add_argument("--force-rerun", action="store_true",
                   help="train every run again, even those finished in OUT with the same settings and data "
                        "(without it a finished run is redone only when its inputs changed)")


def cmd_sweep(args) -> int:
    from engine.config import config_from_options, parse_assignments
    from engine.runs.outputs import prepare_output_folder
    from engine.runs.sweep import grid_settings, parse_grid_sets, read_grid_file, with_seed
    from engine.runs.workers import check_workers

    if args.workers is not None:
        check_workers(args.workers)
    if args.project is None and (args.lost is None or not args.known):
        raise DecipherError("decipher sweep needs --lost and --known (or --project) and --out")
    if args.nice is not None and not 0 <= args.nice <= 19:
        raise DecipherError(f"--nice must be between 0 and 19, got {args.nice}")
    if args.gpus_per_run < 0 or args.gpus_per_run > 1:
        raise DecipherError(f"--gpus-per-run must be between 0 and 1, got {args.gpus_per_run}")
    base = config_from_options(preset=args.preset, config_file=args.config, steps=args.steps, device=args.device)
    grid = read_grid_file(args.grid, parse_assignments) if args.grid else {}
    grid.update(parse_grid_sets(args.set, parse_assignments))
    if "seed" in grid:
        raise DecipherError("sweep seeds with --seeds, not --set seed=…")
    # a setting with one value is part of every run, not a dimension of the grid
    fixed = {k: v[0] for k, v in grid.items() if len(v) == 1}
    base = with_seed(base, base.seed, fixed)
    grid = {k: v for k, v in grid.items() if len(v) > 1}
    combos = grid_settings(grid)
    for combo in combos:  # every combination is range-checked before anything runs
        with_seed(base, 0, combo)
    seeds = args.seeds
    out = prepare_output_folder(args.out)
    from engine.runs.sweep import FolderLock

    with FolderLock(out, log=_log):  # one sweep at a time per folder, before anything is read or said
        return _sweep_locked(args, out, base, combos, seeds)


def _sweep_locked(args, out: Path, base, combos, seeds) -> int:
    from engine.runs.sweep import drive, plan, sweep_task_key, with_seed
    from engine.runs.workers import RunItem, make_pool

    if args.project is not None:
        from engine.project.exporting import resolve_corpus, resolve_language
        from engine.project.store import Project

        with Project.open(args.project) as project:
            names = args.known or [None]
            knowns = {}
            for name in names:
                lid = resolve_language(project, name)
                knowns[project.vocabulary(lid).language] = lid
            corpus_data = project.corpus(resolve_corpus(project, args.corpus))
        total = sum(len(i.text.replace(" ", "")) for i in corpus_data.inscriptions)
        planned = plan(list(knowns), combos, seeds)

        def make_items(known: str):
            def item(p):
                return RunItem(out / p.run_dir, known, p.seed, _settings(p), project=args.project,
                               config=with_seed(base, p.seed, p.settings), corpus=args.corpus,
                               language=known)
            return item
    else:
        from engine.corpus import Vocabulary
        from engine.io.tables import read_known
        from engine.runs.inputs import read_run_files
        from engine.runs.session import RunInputs

        for k in args.known:
            if not Path(k).is_file():
                raise DecipherError(f"{k}: no such known-vocabulary file")
        files = read_run_files(args.lost, gold=args.gold, prior=args.prior, dotted=args.dotted)
        corpus, gold, pins = files.corpus, files.gold, files.pins
        total = sum(len(i.text.replace(" ", "")) for i in corpus.inscriptions)
        paths = {Path(k).stem: Path(k) for k in args.known}
        if len(paths) != len(args.known):
            raise DecipherError("two --known files have the same name; results.csv tells runs apart by it")
        planned = plan(list(paths), combos, seeds)

        def make_items(known: str):
            vocabulary = Vocabulary(known, tuple(read_known(paths[known], system=args.system)))  # read when due

            def item(p):
                return RunItem(out / p.run_dir, known, p.seed, _settings(p),
                               inputs=RunInputs(corpus, vocabulary, with_seed(base, p.seed, p.settings),
                                                gold=gold, pins=pins))
            return item

    pool, limit, workers = make_pool(args.workers, args.ray, args.gpus_per_run, nice=args.nice)
    n_known = len({p.known for p in planned})
    _log(f"sweep: {len(planned)} runs ({n_known} known x {len(combos)} settings x {len(seeds)} seeds) "
         f"on {workers} {'Ray' if args.ray else 'local'} worker{'s' if workers != 1 else ''} -> {out}")
    try:
        # runs that may share a batch (the same known vocabulary and grid settings but for those each
        # run reads for itself) go in tasks that keep every worker busy, each trained as one batch
        outcome = drive(out, planned, make_items, pool, in_flight=limit, log=_log, force_rerun=args.force_rerun,
                        seeds_per_task="auto", task_key=sweep_task_key)
    finally:
        pool.close()
    if len(seeds) > 1:
        _group_consensus(out, planned, seeds, outcome.table.rows, total)
    rows = outcome.table.rows.values()
    done = sum(1 for r in rows if r.status == "completed")
    failed = [r for r in rows if r.status == "failed"]
    _log(f"sweep: {done} of {len(outcome.table.rows)} runs completed ({outcome.ran} now, {outcome.skipped} "
         f"before){f', {len(failed)} failed' if failed else ''}; {out / 'results.csv'}")
    if outcome.error:
        raise DecipherError(f"{outcome.error} (the sweep stopped; finished runs are kept in {out / 'results.csv'})")
    return 1 if failed else 0


def _group_consensus(out: Path, planned, seeds, rows, total: int) -> None:
    """Each (known, settings) group of several seeds gets its consensus.csv and metrics.json with
    the seed chosen without gold (engine/runs/seeds.py), and one line here."""
    from engine.runs.seeds import write_consensus

    groups: dict[str, list] = {}
    for p in planned:
        groups.setdefault(p.run_dir.rsplit("/", 1)[0], []).append(p)
    for folder, runs in groups.items():
        try:
            group = write_consensus(out / folder, [p.seed for p in runs], total, rows=rows, prefix=folder + "/")
        except DecipherError as e:  # no seed of the group finished: its rows say why
            _log(f"{folder}: no consensus ({e})")
            continue
        m = group.metrics
        gold = (f"; P@1 {m['p_at_1']:.3f}, oracle seed {m['oracle_seed']} {m['oracle_p_at_1']:.3f}"
                if "p_at_1" in m else "")
        _log(f"{folder}: chosen seed {m['chosen_seed']}{gold}")
        for line in group.flagged_lines():   # each seed's diagnosis, compared with the group's other seeds
            _log(f"{folder}: diagnosis: {line}")


def _settings(p) -> str:
    from engine.runs.sweep import settings_text
    return settings_text(p.settings)


def cmd_run_seeds(args) -> int:
    """``decipher run --seeds …``: one run per seed plus the consensus."""
    from engine.cli.options import config_of, keep_settings
    from engine.runs.seeds import run_seeds, run_seeds_in_project
    from engine.runs.workers import check_workers

    check_workers(args.workers)
    if args.seed is not None:
        raise DecipherError("give --seed or --seeds, not both")
    if args.resume is not None:
        raise DecipherError("--resume continues one run; a multi-seed run resumes by running it again "
                            "with the same --out")
    if args.out is None:
        raise DecipherError("decipher run --seeds needs --out (the folder for seed-K/, consensus.csv, metrics.json)")
    config = config_of(args)
    if args.project is not None:
        keep_settings(args, config)
        outcome = run_seeds_in_project(args.project, config, args.seeds, args.out, corpus=args.corpus,
                                       language=args.language, workers=args.workers, log=_log,
                                       force_rerun=args.force_rerun)
    else:
        if args.lost is None or args.known is None:
            raise DecipherError("decipher run needs --lost, --known and --out (or --project)")
        from engine.runs.inputs import inputs_from_files

        inputs = inputs_from_files(args.lost, args.known, config, gold=args.gold, prior=args.prior,
                                   lost_notation=getattr(args, "lost_notation", "signs"),
                                   dotted=getattr(args, "dotted", None),
                                   known_system=getattr(args, "system", None))
        from engine.runs.warnings import run_warnings

        # once for the group, before any seed trains (the seeds' own sessions have no terminal to say it on)
        for line in run_warnings(inputs.corpus, inputs.vocabulary, inputs.gold, inputs.config):
            _log(line)
        outcome = run_seeds(inputs, args.seeds, args.out, workers=args.workers, log=_log,
                            force_rerun=args.force_rerun)
    m = outcome.metrics
    gold = f"; P@1 {m['p_at_1']:.3f} (oracle seed {m['oracle_seed']}: {m['oracle_p_at_1']:.3f})" if "p_at_1" in m else ""
    _log(f"seeds {' '.join(map(str, m['seeds']))}: chosen seed {m['chosen_seed']} ({m['chosen_because']}){gold}; "
         f"{args.out / 'consensus.csv'}")
    if m.get("chosen_disagrees_with_most"):
        _log("warning: the chosen seed disagrees with most other seeds; read the consensus before trusting it")
    for line in outcome.flagged_lines():   # each seed's diagnosis, compared with the other seeds
        _log(f"diagnosis: {line}")
    return 1 if outcome.failed else 0
