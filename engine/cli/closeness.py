"""``decipher closeness``: one lost text against several candidate languages and their null
vocabularies, over seeds, in worker processes or on a Ray cluster, resumable (docs/closeness.md)."""

from __future__ import annotations

import dataclasses
import math
import sys
from pathlib import Path

from engine.cli.options import add_dotted_argument
from engine.config import PRESETS, presets_help
from engine.errors import DecipherError
from engine.runs.workers import make_pool
from engine.closeness.nulls import DEFAULT_NULL_MODE, NULL_MODES
from engine.closeness.early_stop import DEFAULT_GAP
from engine.closeness.comparison import DEFAULT_SCORE, SCORES


def _log(line: str) -> None:
    print(line, file=sys.stderr)


def add_closeness_parser(sub) -> None:
    p = sub.add_parser(
        "closeness", help="which known language is closest: candidates, their nulls, seeds (docs/closeness.md)",
        description="Train the lost text against every candidate vocabulary (matched to one size) and against "
                    "null vocabularies of each, over several seeds, and write OUT/answer.txt (the candidates "
                    "ranked, each closer than chance or not, its margin over its null with an interval), "
                    "OUT/summary.csv, OUT/runs.csv and OUT/closeness.png. Runs already finished in OUT are not "
                    "redone.")
    p.add_argument("--lost", type=Path, required=True, help="LOST.csv: id,text")
    add_dotted_argument(p)
    p.add_argument("--known", nargs="+", required=True, metavar="NAME=PATH",
                   help="the candidate languages: a name and its KNOWN.csv (form,ipa[,gloss]); two or more")
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2], metavar="K",
                   help="default: 0 1 2 (3 seeds x 3 nulls is the least the verdict's rule is written for)")
    p.add_argument("--null", type=int, default=3, metavar="N",
                   help="null vocabularies per candidate (default 3; 0: no verdict)")
    p.add_argument("--null-mode", default=DEFAULT_NULL_MODE, choices=list(NULL_MODES),
                   help=f"how a candidate's nulls are made (default {DEFAULT_NULL_MODE}: new words from a bigram model "
                        "of its own stems; skeleton, across, within: its sounds shuffled, the older nulls kept for "
                        "comparison; docs/closeness.md)")
    p.add_argument("--restarts", type=int, default=1, metavar="R",
                   help="trainings per seed, candidates and nulls alike, each with its own sub-seed; the one with "
                        "the lowest final training objective is kept as the seed's run (default 1: no restart)")
    p.add_argument("--early-stop", type=float, default=DEFAULT_GAP, metavar="GAP",
                   help="stop a null run at 1/3 or 2/3 of its steps when its closeness score there is at least GAP "
                        "below every seed of its candidate (0 to 1; default %(default)g: off; not with --restarts; "
                        "docs/closeness.md \"Early stop\")")
    p.add_argument("--score", choices=list(SCORES), default=DEFAULT_SCORE,
                   help="what a run scores (default %(default)s: the area under the paper's coverage-against-"
                        "confidence curve; objective: minus the run's final training objective, and \"closer than "
                        "chance\" then also needs a margin of at least the reference check's; docs/closeness.md "
                        "\"The objective score\")")
    p.add_argument("--stems", type=int, metavar="M",
                   help="sample every candidate to M stems (default: the smallest candidate's usable size)")
    p.add_argument("--cap-stems", type=int, metavar="M",
                   help="instead of one size for all, cut each candidate to at most M stems on its own (a shorter one "
                        "keeps all; each is read against nulls of its own size), as the paper's Gothic lists")
    p.add_argument("--steps", type=int, help="training steps of every run (default 3000, or the --config file's)")
    p.add_argument("--preset", choices=sorted(PRESETS), help=presets_help())
    p.add_argument("--config", type=Path, help="a TOML file of settings")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override one setting (repeatable), e.g. --set feature_dim=8")
    p.add_argument("--prior", type=Path, metavar="PRIOR.csv",
                   help="pinned sound values given to every run, candidates and nulls alike "
                        "(e.g. the Iberian partial oracle of the paper's closeness runs)")
    p.add_argument("--device", choices=["auto", "cpu", "cuda"],
                   help="where to train (default auto: cuda when torch sees a GPU, else cpu)")
    p.add_argument("--workers", type=int, default=None,
                   help="worker processes at once (default: the cores this machine gives)")
    p.add_argument("--ray", metavar="ADDRESS|local",
                   help="run each run as a Ray task on the cluster at ADDRESS, or on one started here")
    p.add_argument("--gpus-per-run", type=float, default=0.0, help="with --ray: the share of a GPU each run asks for")
    p.add_argument("--append-results", type=Path, metavar="CSV",
                   help="also append the finished runs to CSV (benchmarks/results/closeness.csv: "
                        "lost,known,seed,null,score,coverage_at_default,steps,wall_s,null_mode); rows already "
                        "there are not added again")
    p.add_argument("--lost-name", metavar="NAME",
                   help="the lost text's name in the answer, the figure and (with --append-results) that file "
                        "(default: LOST.csv's file name)")
    p.add_argument("--out", type=Path, required=True, help="the comparison's folder")
    p.add_argument("--force", action="store_true",
                   help="replace files named as the comparison's (answer.txt, summary.csv, …) in an --out that "
                        "holds no comparison (an earlier comparison's folder is continued without it)")
    p.set_defaults(handler=cmd_closeness)


def parse_candidates(pairs: list[str]) -> dict[str, Path]:
    """``NAME=PATH`` pairs -> {name: path}; one line naming the pair that is wrong."""
    out: dict[str, Path] = {}
    for pair in pairs:
        name, sep, path = pair.partition("=")
        name, path = name.strip(), path.strip()
        if not sep or not name or not path:
            raise DecipherError(f"--known {pair!r}: give NAME=PATH, e.g. hebrew=known-hebrew.csv")
        if name in out:
            raise DecipherError(f"--known: the name {name!r} is given twice")
        out[name] = Path(path)
    if len(out) < 2:
        raise DecipherError(f"a comparison needs at least two candidate languages (got {len(out)}): "
                            "--known NAME=PATH NAME=PATH …")
    return out


def check_numbers(args) -> None:
    """Every number of the command range-checked before anything is read or run."""
    from engine.closeness.comparison import MAX_RESTARTS
    from engine.runs.workers import check_workers

    if args.workers is not None:
        check_workers(args.workers)
    if args.null < 0:
        raise DecipherError(f"--null must be 0 or more null vocabularies per candidate, got {args.null}")
    if args.null > 100:
        raise DecipherError(f"--null {args.null} is more than 100 null vocabularies per candidate")
    if not 1 <= args.restarts <= MAX_RESTARTS:
        raise DecipherError(f"--restarts must be from 1 to {MAX_RESTARTS} trainings per seed, got {args.restarts}")
    if args.stems is not None and args.stems < 1:
        raise DecipherError(f"--stems must be a positive number of stems, got {args.stems}")
    if args.cap_stems is not None and args.cap_stems < 1:
        raise DecipherError(f"--cap-stems must be a positive number of stems, got {args.cap_stems}")
    if args.cap_stems is not None and args.stems is not None:
        raise DecipherError("--stems (one size for all) and --cap-stems (at most a size each) cannot both be given")
    if args.steps is not None and args.steps < 1:
        raise DecipherError(f"--steps must be a positive number of steps, got {args.steps}")
    if len(set(args.seeds)) != len(args.seeds):
        raise DecipherError(f"--seeds: a seed is given twice ({' '.join(map(str, args.seeds))})")
    if any(s < 0 for s in args.seeds):
        raise DecipherError(f"--seeds must be 0 or more, got {' '.join(map(str, args.seeds))}")
    if not (0 <= args.gpus_per_run <= 1) or math.isnan(args.gpus_per_run):
        raise DecipherError(f"--gpus-per-run must be between 0 and 1, got {args.gpus_per_run}")
    if math.isnan(args.early_stop) or not 0 <= args.early_stop <= 1:
        raise DecipherError(f"--early-stop must be a score gap from 0 (off) to 1, got {args.early_stop}")
    if args.score == "objective" and args.early_stop > 0:
        raise DecipherError("--early-stop cannot be used with --score objective: the early stop reads the area "
                            "score at a checkpoint, and a run's objective is known only at its end")
    if args.score != "area" and args.append_results is not None:
        raise DecipherError(f"--append-results keeps area scores (its score column); not with --score {args.score}")
    if args.early_stop > 0 and args.restarts > 1:
        raise DecipherError("--early-stop cannot be used with --restarts: a null stopped early would be ranked "
                            "against restarts trained to the end by its objective")
    if args.lost_name is not None and not args.lost_name.strip():
        raise DecipherError("--lost-name must not be empty")


#: What a comparison writes at the top of its --out (engine.closeness.comparison.write_comparison, the sweep's
#: results.csv); DIR/results.csv there is the comparison's own record, which a rerun continues.
COMPARISON_FILES = ("results.csv", "runs.csv", "restarts.csv", "summary.csv", "curves.csv", "comparison.json",
                    "answer.txt", "closeness.png")


def check_comparison_outputs(out: Path, *, force: bool) -> None:
    """Before anything runs: an --out holding an earlier comparison (its results.csv) is continued, its
    summary files rewritten (docs/closeness.md "Resuming"); files of the comparison's names in a folder
    that holds none are the user's, refused in one line unless ``force``; a link is always refused."""
    from engine.io.atomic import FORCE_HINT, check_new

    own = (out / "results.csv").is_file() and not (out / "results.csv").is_symlink()
    check_new([out / name for name in COMPARISON_FILES], force=force or own,
              hint=FORCE_HINT + " (a folder with an earlier comparison's results.csv is continued)")


def cmd_closeness(args) -> int:
    from engine.config import config_from_options
    from engine.closeness.runs import append_results, run_comparison
    from engine.closeness.comparison import answer_lines, pins_without_stems, plan_comparison
    from engine.runs.inputs import read_run_files
    from engine.runs.outputs import prepare_output_folder

    check_numbers(args)
    check_comparison_outputs(args.out, force=args.force)
    candidates = parse_candidates(args.known)
    config = config_from_options(preset=args.preset, config_file=args.config, assignments=args.set,
                                 steps=args.steps, device=args.device)
    files = read_run_files(args.lost, prior=args.prior, dotted=args.dotted)
    corpus, pins = files.corpus, files.pins
    if args.lost_name is not None:  # not part of any run's fingerprint: naming it retrains nothing
        corpus = dataclasses.replace(corpus, name=args.lost_name.strip())
    plan = plan_comparison(corpus, candidates, seeds=tuple(args.seeds), n_null=args.null, stems=args.stems,
                           config=config, null_mode=args.null_mode, restarts=args.restarts,
                           early_stop=args.early_stop, cap_stems=args.cap_stems, score=args.score)
    for name, why in plan.failures.items():  # a candidate that cannot be read stops nothing else
        _log(f"error: candidate {name}: {why}; compared without it")
    pool, in_flight, n = make_pool(args.workers, args.ray, args.gpus_per_run)  # a bad --ray: nothing written
    try:
        out = prepare_output_folder(args.out)
    except BaseException:
        pool.close()
        raise
    _log(f"closeness: {plan.matching.describe()}")
    for line in pins_without_stems(plan, pins):
        _log(line)
    restarts = f" x {args.restarts} restarts" if args.restarts > 1 else ""
    _log(f"closeness: {len(plan.items)} runs ({len(plan.candidates)} candidates x (1 + {args.null} nulls) x "
         f"{len(args.seeds)} seeds{restarts}) on {n} {'Ray' if args.ray else 'local'} "
         f"worker{'s' if n != 1 else ''} -> {out}")
    if args.early_stop > 0:
        _log(f"closeness: early stop on: a null run stops at 1/3 or 2/3 of its steps when its score there is at "
             f"least {args.early_stop:g} below every seed of its candidate (docs/closeness.md \"Early stop\")")
    try:
        comparison = run_comparison(plan, out, pool, in_flight=in_flight, log=_log, pins=pins)
    finally:
        pool.close()
    for line in answer_lines(comparison):  # ranked, verdicts, margins with intervals, what it means, caveats
        _log(line)
    if args.append_results is not None:
        conflicts: list[str] = []
        stopped: list[str] = []
        added = append_results(args.append_results, args.lost_name or args.lost.stem, comparison,
                               conflicts=conflicts, stopped=stopped)
        _log(f"closeness: {added} new rows in {args.append_results}")
        if conflicts:
            _log(f"closeness: warning: {len(conflicts)} runs not added: {args.append_results} already has a run "
                 f"of the same lost, known, seed, null, steps and null mode with another score (made with other "
                 f"--restarts?): {'; '.join(conflicts)}")
        if stopped:
            _log(f"closeness: {len(stopped)} null runs the early stop ended are not added to {args.append_results} "
                 f"(it has no column for the early stop): {'; '.join(stopped)}")
    _log(f"closeness: {len(comparison.trainings)} of {len(plan.items)} runs finished; "
         f"{out / 'answer.txt'}, {out / 'summary.csv'}, {out / 'runs.csv'}, {out / 'closeness.png'}")
    return 1 if (comparison.run_failures or plan.failures) else 0


__all__ = ["add_closeness_parser", "check_numbers", "cmd_closeness", "parse_candidates"]
