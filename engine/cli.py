"""The headless command line: ``decipher run``, ``decipher import-cog``, ``decipher project …``,
``decipher bench``. Errors print one line naming file, line and problem, and exit with status 2."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

from . import __version__
from .config import PRESETS, Config, parse_assignments
from .errors import DecipherError

EXIT_INPUT = 2


def _add_run_parser(sub) -> None:
    p = sub.add_parser("run", help="train the model on a corpus and a known vocabulary",
                       description="Train the decipherment model and write metrics.json, matches.csv and a "
                                   "checkpoint to --out (or store the run in --project).")
    src = p.add_argument_group("input files (or --project)")
    src.add_argument("--lost", type=Path, help="LOST.csv: id,text")
    src.add_argument("--known", type=Path, help="KNOWN.csv: form,ipa[,gloss]")
    src.add_argument("--gold", type=Path, help="GOLD.csv: inscription_id,start,word_end,known")
    src.add_argument("--prior", type=Path, help="PRIOR.csv: lost,known_ipa[,weight]: pinned values")
    proj = p.add_argument_group("project file")
    proj.add_argument("--project", type=Path, help="a .decipher project: read data from it and store the run")
    proj.add_argument("--corpus", help="corpus name in the project (default: the only one)")
    proj.add_argument("--language", help="known language in the project (default: the only one)")
    cfg = p.add_argument_group("settings")
    cfg.add_argument("--config", type=Path, help="a TOML file of settings (see engine/config.py)")
    cfg.add_argument("--preset", choices=sorted(PRESETS), help="settings of a paper experiment")
    cfg.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                     help="override one setting, e.g. --set edit_mode=max (repeatable)")
    cfg.add_argument("--steps", type=int)
    cfg.add_argument("--seed", type=int)
    cfg.add_argument("--device", choices=["auto", "cpu", "cuda"])
    cfg.add_argument("--segmented", action="store_true", default=None,
                     help="whole-word spans only (each written word is one candidate span)")
    cfg.add_argument("--resume", type=Path, help="continue from a checkpoint (with its own settings and target "
                                                 "number of steps, unless given here)")
    cfg.add_argument("--checkpoint-every", type=float, default=10.0, metavar="MINUTES",
                     help="write a checkpoint at least this often (default 10; also at every evaluation, "
                          "after the first step, at the end and on Ctrl-C)")
    p.add_argument("--out", type=Path, help="output folder (required without --project)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def _add_import_cog_parser(sub) -> None:
    p = sub.add_parser("import-cog", help="turn a .cog cognate file into LOST/KNOWN/GOLD CSVs")
    p.add_argument("cog", type=Path)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--system", default="semitic", help="transcription of the known column (default: semitic)")
    p.add_argument("--lost-column", type=int, default=0)
    p.add_argument("--known-column", type=int, default=1)
    p.add_argument("--skip-unknown", action="store_true",
                   help="skip known forms with characters the transcription does not know (listed on stderr)")
    p.add_argument("--encoding", metavar="NAME",
                   help="the file's encoding, e.g. latin-1 (default: UTF-8, or UTF-16 by its BOM)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="decipher", description=__doc__)
    parser.add_argument("--version", action="version", version=f"decipher {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    _add_run_parser(sub)
    from .sweep_cli import add_seeds_arguments, add_sweep_parser  # issue 11: several seeds, sweeps
    add_seeds_arguments(sub.choices["run"])
    add_sweep_parser(sub)
    from .closeness_cli import add_closeness_parser  # issue 12: which known language is closest
    add_closeness_parser(sub)
    _add_import_cog_parser(sub)
    try:
        from .project.cli import add_project_parser
        add_project_parser(sub)
    except ImportError:  # the project store is optional for the file-based commands
        pass
    d = sub.add_parser("dataset", help="build a lost-language dataset from the shared corpora",
                       description="Build LOST/KNOWN/GOLD CSVs (`decipher dataset gothic --help`), the Iberian "
                                   "LOST CSV (`decipher dataset iberian --help`) or a candidate "
                                   "KNOWN CSV for closeness (`decipher dataset candidates --help`).")
    d.add_argument("name", choices=["gothic", "candidates", "iberian"])
    d.add_argument("args", nargs=argparse.REMAINDER)
    b = sub.add_parser("bench", help="time training steps on the benchmark workloads (needs the source tree)",
                       description="Training speed on fixed workloads; see benchmarks/speed.py.")
    _bench_module_arguments(b)
    return parser


def _bench_module():
    """benchmarks/ lives beside engine/ in the source tree (it is not part of an installed wheel)."""
    root = Path(__file__).resolve().parent.parent
    if not (root / "benchmarks" / "speed.py").exists():
        raise DecipherError("decipher bench needs the source tree (benchmarks/speed.py is not installed)")
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    import benchmarks.speed as speed
    return speed


def _bench_module_arguments(parser) -> None:
    try:
        _bench_module().add_arguments(parser)
    except DecipherError:
        pass


def cmd_bench(args) -> int:
    return _bench_module().run(args)


def cmd_dataset(args) -> int:
    if args.name == "candidates":
        from .datasets.candidates import main as candidates_main
        return candidates_main(args.args)
    if args.name == "iberian":
        from .datasets.iberian import main as iberian_main
        return iberian_main(args.args)
    from .datasets.gothic import main as gothic_main
    return gothic_main(args.args)


def parse_settings(pairs: Sequence[str]) -> dict:
    """``KEY=VALUE`` strings -> typed, range-checked settings (engine.config.parse_assignments)."""
    return parse_assignments(pairs, what="--set")


def make_config(args) -> Config:
    """Preset, then the --config file (the preset wins over it), then --set, then the flags;
    every value is checked by the config module, errors name the key (and the file)."""
    base: dict = dict(PRESETS.get(args.preset or "paper", {}))
    if args.config:
        base.update(Config.from_toml(args.config).to_dict())
        base.update(PRESETS.get(args.preset, {}) if args.preset else {})
    base.update(parse_settings(args.set))
    for name in ("steps", "seed", "device", "segmented"):
        value = getattr(args, name)
        if value is not None:
            base[name] = value
    return Config.from_dict(base)


def resume_overrides(args) -> dict:
    """With --resume, the settings the user gave explicitly (the run keeps its own for the rest,
    its target number of steps included). A --config file or --preset counts as every setting."""
    if args.config or args.preset:
        return make_config(args).to_dict()
    out = parse_settings(args.set)
    for name in ("steps", "seed", "device", "segmented"):
        value = getattr(args, name)
        if value is not None:
            out[name] = value
    return out


def cmd_run(args) -> int:
    """``decipher run``: a thin caller of the run session (engine/session.py)."""
    if getattr(args, "seeds", None):  # several seeds and their consensus: engine/seeds.py
        from .sweep_cli import cmd_run_seeds
        return cmd_run_seeds(args)
    if getattr(args, "force_rerun", False):
        raise DecipherError("--force-rerun goes with --seeds (a single run into --out always trains anew)")
    from .run_outputs import ProgressBar, prepare_output_folder, run_in_folder
    from .session import RunInputs

    config = make_config(args)
    overrides = resume_overrides(args) if args.resume else {}
    every = getattr(args, "checkpoint_every", 10.0)
    if not (every > 0 and every < float("inf")):
        raise DecipherError(f"--checkpoint-every must be a positive number of minutes, not {every}")
    import contextlib

    from engine.sweep import FolderLock

    def out_lock(folder):  # one process at a time writes into an --out folder
        return FolderLock(prepare_output_folder(folder), log=lambda line: print(line, file=sys.stderr)) \
            if folder is not None else contextlib.nullcontext()

    if args.project is not None:
        from .project.runner import run_in_project

        with out_lock(args.out):
            _, outcome = run_in_project(args.project, config=config, corpus=args.corpus, language=args.language,
                                        resume=args.resume, overrides=overrides, out=args.out,
                                        sinks=[ProgressBar(quiet=args.quiet)], handle_signals=True,
                                        checkpoint_every_s=every * 60)
        return 130 if outcome.reason == "interrupted" else 0
    if args.out is None or args.lost is None or args.known is None:
        raise DecipherError("decipher run needs --lost, --known and --out (or --project)")
    from .data import Corpus, Vocabulary
    from .io.tables import read_gold, read_known, read_lost, read_prior

    inscriptions = read_lost(args.lost)
    stems = read_known(args.known)
    gold = read_gold(args.gold, inscriptions=inscriptions) if args.gold else []
    from .io.goldcheck import check_gold
    for warning in check_gold(gold, (s.form for s in stems), path=args.gold, vocabulary=str(args.known)):
        print(f"warning: {warning}", file=sys.stderr)
    pins = read_prior(args.prior) if args.prior else []
    out = prepare_output_folder(args.out)
    inputs = RunInputs(Corpus(args.lost.stem, tuple(inscriptions)), Vocabulary(args.known.stem, tuple(stems)),
                       config, gold=tuple(gold), pins=tuple(pins) if pins or not args.resume else None,
                       resume=args.resume, overrides=overrides)
    with out_lock(out):
        outcome = run_in_folder(inputs, out, sinks=[ProgressBar(quiet=args.quiet)], checkpoint_every_s=every * 60,
                                handle_signals=True)
    summary = ", ".join(f"{k}={v:.3f}" for k, v in outcome.metrics.items() if k in ("p_at_1", "p_at_10", "coverage"))
    print(f"{outcome.step} steps in {outcome.wall_time_s:.1f} s on {outcome.device}: {summary}; "
          f"{'' if outcome.status == 'completed' else outcome.status + '; '}results in {out}", file=sys.stderr)
    return 130 if outcome.reason == "interrupted" else 0


def cmd_import_cog(args) -> int:
    from .io.cog import read_cog
    from .io.tables import write_gold, write_known, write_lost

    result = read_cog(args.cog, system=args.system, lost_column=args.lost_column, encoding=args.encoding,
                      known_column=args.known_column, on_unknown="skip" if args.skip_unknown else "error")
    args.out.mkdir(parents=True, exist_ok=True)
    write_lost(args.out / "lost.csv", result.inscriptions)
    write_known(args.out / "known.csv", result.stems)
    write_gold(args.out / "gold.csv", result.gold)
    for line, form, problem in result.skipped:
        print(f"{args.cog}, line {line}: skipped {form!r}: {problem}", file=sys.stderr)
    print(f"{len(result.inscriptions)} lost words, {len(result.stems)} known stems, {len(result.gold)} gold rows "
          f"-> {args.out}", file=sys.stderr)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    from .sweep_cli import cmd_sweep
    handlers = {"run": cmd_run, "import-cog": cmd_import_cog, "dataset": cmd_dataset, "bench": cmd_bench,
                "sweep": cmd_sweep}
    try:
        if args.command in handlers:
            return handlers[args.command](args)
        return args.handler(args)
    except DecipherError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_INPUT
    except FloatingPointError as e:  # the training diverged (engine.training.TrainingDiverged)
        print(f"error: the training diverged: {e}; try a lower learning rate (the last good checkpoint "
              "is kept)", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
