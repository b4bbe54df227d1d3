"""The headless command line: ``decipher run``, ``decipher import-cog``, ``decipher project …``,
``decipher bench``. Errors print one line naming file, line and problem, and exit with status 2."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Sequence

from engine import __version__
from engine.cli.options import add_dotted_argument, add_known_system_argument, config_of, keep_settings, \
    setting_options
from engine.config import PRESETS, presets_help, resume_overrides
from engine.errors import DecipherError
from engine.io.linear_b import NOTATIONS as LOST_NOTATIONS

EXIT_INPUT = 2


def _add_run_parser(sub) -> None:
    p = sub.add_parser("run", help="train the model on a corpus and a known vocabulary",
                       description="Train the decipherment model and write metrics.json, matches.csv and a "
                                   "checkpoint to --out (or store the run in --project).")
    src = p.add_argument_group("input files (or --project)")
    src.add_argument("--lost", type=Path, help="LOST.csv: id,text")
    src.add_argument("--lost-notation", choices=LOST_NOTATIONS, default="signs",
                     help="how LOST's text column writes the signs: signs (as they are; default) or linear-b "
                          "(the conventional transliteration a-e-ri-qo-ta, read into the Unicode signs)")
    add_dotted_argument(src)
    src.add_argument("--known", type=Path, help="KNOWN.csv: form,ipa[,gloss]")
    add_known_system_argument(src)
    src.add_argument("--gold", type=Path, help="GOLD.csv: inscription_id,start,word_end,known")
    src.add_argument("--prior", type=Path, help="PRIOR.csv: lost,known_ipa[,weight]: pinned values")
    proj = p.add_argument_group("project file")
    proj.add_argument("--project", type=Path, help="a .decipher project: read data from it and store the run")
    proj.add_argument("--corpus", help="corpus name in the project (default: the only one)")
    proj.add_argument("--language", help="known language in the project (default: the only one)")
    cfg = p.add_argument_group("settings")
    cfg.add_argument("--config", type=Path, help="a TOML file of settings (see engine/config.py)")
    cfg.add_argument("--preset", choices=sorted(PRESETS), help=presets_help())
    cfg.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                     help="override one setting, e.g. --set edit_mode=max (repeatable)")
    cfg.add_argument("--steps", type=int, help="training steps (default 3000, or the --config file's)")
    cfg.add_argument("--seed", type=int, help="random seed: the same seed, data and settings give the same run (default 0)")
    cfg.add_argument("--device", choices=["auto", "cpu", "cuda"],
                     help="where to train (default auto: cuda when torch sees a GPU, else cpu)")
    cfg.add_argument("--segmented", action="store_true", default=None,
                     help="whole-word spans only (each written word is one candidate span)")
    cfg.add_argument("--resume", type=Path, help="continue from a checkpoint (with its own settings and target "
                                                 "number of steps, unless given here)")
    cfg.add_argument("--force-resume", action="store_true",
                     help="with --resume: continue a checkpoint of another format or trained on another known "
                          "vocabulary all the same (refused without it; recorded in metrics.json or the project's run)")
    cfg.add_argument("--checkpoint-every", type=float, default=10.0, metavar="MINUTES",
                     help="write a checkpoint at least this often (default 10; also at every evaluation, "
                          "after the first step, at the end and on Ctrl-C)")
    p.add_argument("--out", type=Path, help="output folder (required without --project)")
    p.add_argument("--force", action="store_true",
                   help="replace the outputs of an earlier run already in --out (without it they are refused, "
                        "unless --resume continues from that folder's checkpoint.pt)")
    p.add_argument("--quiet", action="store_true", help="no progress bar and no time estimate")


def _add_import_cog_parser(sub) -> None:
    p = sub.add_parser("import-cog", help="turn a .cog cognate file into LOST/KNOWN/GOLD CSVs")
    p.add_argument("cog", type=Path, help="the .cog file: a header naming the languages, one tab-separated "
                                          "row per word, _ for none, | between alternatives")
    p.add_argument("--out", type=Path, required=True, help="folder for lost.csv, known.csv and gold.csv")
    p.add_argument("--system", default="semitic", help="transcription of the known column (default: semitic)")
    p.add_argument("--lost-column", type=int, default=0, help="0-based column of the lost words (default 0)")
    p.add_argument("--known-column", type=int, default=1, help="0-based column of the known words (default 1)")
    p.add_argument("--skip-unknown", action="store_true",
                   help="skip known forms with characters the transcription does not know (listed on stderr)")
    p.add_argument("--encoding", metavar="NAME",
                   help="the file's encoding, e.g. latin-1 (default: UTF-8, or UTF-16 by its BOM)")
    p.add_argument("--force", action="store_true",
                   help="replace lost.csv, known.csv and gold.csv already in --out (a symbolic link there is "
                        "refused all the same)")


SAMPLE_FILES = ("sample.cog", "lost.csv", "known.csv", "gold.csv", "ATTRIBUTION.md")


def _add_sample_parser(sub) -> None:
    p = sub.add_parser("sample", help="copy the bundled sample data (sample.cog and its CSVs) to a folder",
                       description="Copy the bundled Ugaritic-Hebrew sample (160 words: sample.cog, lost.csv, "
                                   "known.csv, gold.csv and ATTRIBUTION.md) to --out, to try `decipher "
                                   "import-cog`, `decipher run` and `decipher project import` on. Prints the "
                                   "paths written.")
    p.add_argument("--out", type=Path, required=True,
                   help="folder to write to (created if needed; a sample file already there is an error)")
    p.add_argument("--json", action="store_true", help="one JSON object per file written (name, path)")


def _make_out_folder(out: Path) -> None:
    """Make the folder ``--out`` names (and its parents), or one line saying why not."""
    from engine.io.atomic import WriteError, describe_os_error

    if out.exists() and not out.is_dir():
        raise WriteError(out, "it is a file, not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise WriteError(out, f"cannot make the folder: {describe_os_error(e)}") from None


def cmd_sample(args) -> int:
    from engine.io.atomic import atomic_path
    from engine.resources import resource

    folder = resource("sample")
    taken = [name for name in SAMPLE_FILES if os.path.lexists(args.out / name)]   # a dangling link too
    if taken:
        raise DecipherError(f"{args.out}: {', '.join(taken)} already there; choose another --out")
    _make_out_folder(args.out)
    for name in SAMPLE_FILES:
        with atomic_path(args.out / name, replace=False) as tmp:
            tmp.write_bytes((folder / name).read_bytes())
    for name in SAMPLE_FILES:
        if args.json:
            print(json.dumps({"name": name, "path": str(args.out / name)}, ensure_ascii=False))
        else:
            print(args.out / name)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="decipher", description=__doc__)
    parser.add_argument("--version", action="version", version=f"decipher {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    _add_run_parser(sub)
    from engine.cli.sweep import add_seeds_arguments, add_sweep_parser  # issue 11: several seeds, sweeps
    add_seeds_arguments(sub.choices["run"])
    add_sweep_parser(sub)
    from engine.cli.closeness import add_closeness_parser  # issue 12: which known language is closest
    add_closeness_parser(sub)
    _add_import_cog_parser(sub)
    _add_sample_parser(sub)
    try:
        from engine.cli.project import add_project_parser
        add_project_parser(sub)
    except ImportError:  # the project store is optional for the file-based commands
        pass
    d = sub.add_parser("dataset", help="build a lost-language dataset from the shared corpora",
                       description="Build LOST/KNOWN/GOLD CSVs (`decipher dataset gothic --help`), the Iberian "
                                   "LOST CSV (`decipher dataset iberian --help`), a candidate "
                                   "KNOWN CSV for closeness (`decipher dataset candidates --help`) or a synthetic "
                                   "syllabary cipher drawn from a seed (`decipher dataset synthetic-syllabary "
                                   "--help`), or an invented lost language derived from a real vocabulary and "
                                   "written in a seeded alphabet or syllabary (`decipher dataset invented --help`).")
    d.add_argument("name", choices=["gothic", "candidates", "iberian", "synthetic-syllabary", "invented"],
                   help="which dataset builder")
    d.add_argument("args", nargs=argparse.REMAINDER, help="the builder's own options (see its --help)")
    sub.add_parser("bench", add_help=False,
                   help="time training steps on the benchmark workloads (benchmarks/speed.py of a source checkout; "
                        "`decipher bench --help` lists its options)")
    return parser


SOURCE_ROOT = Path(__file__).resolve().parents[2]


def run_bench(argv: Sequence[str]) -> int:
    """``decipher bench …``: runs ``python -m benchmarks.speed …`` of a source checkout in a child
    process (the product never imports benchmarks/; a wheel does not ship it)."""
    import os
    import subprocess

    if not (SOURCE_ROOT / "benchmarks" / "speed.py").is_file():
        raise DecipherError("decipher bench runs benchmarks/speed.py of a source checkout, and this "
                            f"installation has none ({SOURCE_ROOT / 'benchmarks'} is missing)")
    path = os.pathsep.join([str(SOURCE_ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    cmd = [sys.executable, "-m", "benchmarks.speed", *argv]
    return subprocess.run(cmd, cwd=SOURCE_ROOT, env={**os.environ, "PYTHONPATH": path}).returncode


def cmd_dataset(args) -> int:
    if args.name == "candidates":
        from engine.datasets.candidates import main as candidates_main
        return candidates_main(args.args)
    if args.name == "iberian":
        from engine.datasets.iberian import main as iberian_main
        return iberian_main(args.args)
    if args.name == "synthetic-syllabary":
        from engine.datasets.synthetic_syllabary import main as syllabary_main
        return syllabary_main(args.args)
    if args.name == "invented":
        from engine.datasets.invented import main as invented_main
        return invented_main(args.args)
    from engine.datasets.gothic import main as gothic_main
    return gothic_main(args.args)


#: What ``decipher run --out DIR`` writes into DIR (engine/runs/outputs.py and the session's checkpoint).
RUN_FILES = ("checkpoint.pt", "metrics.json", "matches.csv", "steps.csv")


def _check_run_outputs(args) -> None:
    """An earlier run's outputs in --out are refused in one line before anything runs (unless
    --force, or --resume continues that folder's own checkpoint); a link there always is."""
    from engine.io.atomic import FORCE_HINT, check_new

    if args.out is None:
        return
    own = args.resume is not None and os.path.realpath(args.resume) == os.path.realpath(args.out / "checkpoint.pt")
    check_new([args.out / name for name in RUN_FILES], force=args.force or own,
              hint=FORCE_HINT + " (or --resume DIR/checkpoint.pt to continue that run)")


def cmd_run(args) -> int:
    """``decipher run``: a thin caller of the run session (engine/runs/session.py)."""
    if args.project is not None and args.lost_notation != "signs":
        raise DecipherError("--lost-notation reads a --lost file; a project's corpus is already in signs "
                            "(give it to `decipher project import P --lost FILE --lost-notation ...`)")
    if args.project is not None and args.dotted is not None:
        raise DecipherError("--dotted reads a --lost file; a project's corpus was read when imported "
                            "(give it to `decipher project import P --lost FILE --dotted ...`)")
    if args.project is not None and args.system is not None:
        raise DecipherError("--system reads a --known file; a project's known language was read when imported "
                            "(give it to `decipher project import P --known FILE --system ...`)")
    if getattr(args, "seeds", None):  # several seeds and their consensus: engine/runs/seeds.py
        from engine.cli.sweep import cmd_run_seeds
        return cmd_run_seeds(args)
    if getattr(args, "force_rerun", False):
        raise DecipherError("--force-rerun goes with --seeds (a single run into --out always trains anew)")
    if args.force_resume and args.resume is None:
        raise DecipherError("--force-resume goes with --resume CHECKPOINT")
    from engine.runs.outputs import ProgressBar, prepare_output_folder, run_in_folder

    config = config_of(args)
    overrides = resume_overrides(**setting_options(args)) if args.resume else {}
    every = getattr(args, "checkpoint_every", 10.0)
    if not (every > 0 and every < float("inf")):
        raise DecipherError(f"--checkpoint-every must be a positive number of minutes, not {every}")
    import contextlib

    from engine.runs.sweep import FolderLock

    _check_run_outputs(args)

    def out_lock(folder):  # one process at a time writes into an --out folder
        return FolderLock(prepare_output_folder(folder), log=lambda line: print(line, file=sys.stderr)) \
            if folder is not None else contextlib.nullcontext()

    if args.project is not None:
        from engine.project.runner import run_in_project

        keep_settings(args, config)
        with out_lock(args.out):
            _, outcome = run_in_project(args.project, config=config, corpus=args.corpus, language=args.language,
                                        resume=args.resume, overrides=overrides, out=args.out,
                                        sinks=[ProgressBar(quiet=args.quiet)], handle_signals=True,
                                        checkpoint_every_s=every * 60, force_resume=args.force_resume)
        from engine.runs.outputs import diagnosis_lines

        for line in diagnosis_lines(outcome.diagnosis):
            print(line, file=sys.stderr)
        return 130 if outcome.reason == "interrupted" else 0
    if args.out is None or args.lost is None or args.known is None:
        raise DecipherError("decipher run needs --lost, --known and --out (or --project)")
    from engine.runs.inputs import inputs_from_files

    inputs = inputs_from_files(args.lost, args.known, config, gold=args.gold, prior=args.prior,
                               resume=args.resume, overrides=overrides, lost_notation=args.lost_notation,
                               dotted=args.dotted, known_system=args.system)
    if args.force_resume:
        import dataclasses

        inputs = dataclasses.replace(inputs, force_resume=True)
    out = prepare_output_folder(args.out)
    with out_lock(out):
        outcome = run_in_folder(inputs, out, sinks=[ProgressBar(quiet=args.quiet)], checkpoint_every_s=every * 60,
                                handle_signals=True)
    from engine.runs.outputs import diagnosis_lines, outcome_summary

    for line in diagnosis_lines(outcome.diagnosis):   # gold-free: may this reading be a poor basin?
        print(line, file=sys.stderr)
    print(outcome_summary(outcome, f"results in {out}"), file=sys.stderr)   # the last line, as ever
    return 130 if outcome.reason == "interrupted" else 0


def cmd_import_cog(args) -> int:
    from engine.io.cog import read_cog
    from engine.io.tables import write_gold, write_known, write_lost

    from engine.io.atomic import FORCE_HINT, check_new

    names = [args.out / n for n in ("lost.csv", "known.csv", "gold.csv")]
    check_new(names, force=args.force, hint=FORCE_HINT)   # before the file is read: nothing is written
    result = read_cog(args.cog, system=args.system, lost_column=args.lost_column, encoding=args.encoding,
                      known_column=args.known_column, on_unknown="skip" if args.skip_unknown else "error")
    _make_out_folder(args.out)
    # files the user did not name: made new (or, with --force, replacing a file), never through a link;
    # with the one formula guard, which every table reader (decipher run, project import) takes off again
    kw = {"replace": args.force, "guard_formulas": True}
    write_lost(names[0], result.inscriptions, **kw)
    write_known(names[1], result.stems, **kw)
    write_gold(names[2], result.gold, **kw)
    for line, form, problem in result.skipped:
        print(f"{args.cog}, line {line}: skipped {form!r}: {problem}", file=sys.stderr)
    print(f"{len(result.inscriptions)} lost words, {len(result.stems)} known stems, {len(result.gold)} gold rows "
          f"-> {args.out}", file=sys.stderr)
    return 0


class StdoutClosed(BrokenPipeError):
    """The reader of stdout went away (``| head``); told apart from any other broken pipe (a
    worker's connection), which is still an error."""


class _GuardedStdout:
    """sys.stdout while ``main`` runs: the same stream, but a closed pipe on it raises StdoutClosed."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text):
        try:
            return self._stream.write(text)
        except BrokenPipeError as e:
            raise StdoutClosed(*e.args) from None

    def flush(self):
        try:
            return self._stream.flush()
        except BrokenPipeError as e:
            raise StdoutClosed(*e.args) from None

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _reader_went_away(stdout) -> int:
    """stdout's reader closed the pipe (``decipher project runs P --json | head -c 10``): the
    reader has what it wanted, so end quietly with status 0. stdout goes to the null device so
    that the interpreter's last flush of what is left in its buffer has nowhere to fail."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # stdout without a file descriptor (a test's StringIO)
        pass
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    stdout = sys.stdout
    if stdout is not None:
        sys.stdout = _GuardedStdout(stdout)
    try:
        return _main(argv)
    except StdoutClosed:
        return _reader_went_away(stdout)
    finally:
        if isinstance(sys.stdout, _GuardedStdout):
            sys.stdout = stdout


def _main(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if argv[:1] == ["bench"]:       # every option goes to benchmarks/speed.py
        try:
            return run_bench(argv[1:])
        except DecipherError as e:
            print(f"error: {e}", file=sys.stderr)
            return EXIT_INPUT
    args = parser.parse_args(argv)  # --help and --version print here
    for stream in (sys.stdout, sys.stderr):  # a file name that is not UTF-8 is shown as \xNN, never a crash
        if hasattr(stream, "reconfigure") and getattr(stream, "errors", "") == "strict":
            stream.reconfigure(errors="backslashreplace")
    from engine.cli.sweep import cmd_sweep
    handlers = {"run": cmd_run, "import-cog": cmd_import_cog, "dataset": cmd_dataset, "sweep": cmd_sweep,
                "sample": cmd_sample}
    try:
        code = handlers[args.command](args) if args.command in handlers else args.handler(args)
        sys.stdout.flush()  # a reader that left (`| head`) shows here, not at interpreter exit
        return code
    except DecipherError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_INPUT
    except FloatingPointError as e:  # the training diverged (engine.training.trainer.TrainingDiverged)
        print(f"error: the training diverged: {e}; try a lower learning rate (the last good checkpoint "
              "is kept)", file=sys.stderr)
        return EXIT_INPUT
    except UnicodeEncodeError as e:
        if "surrogates" not in str(e.reason):
            raise
        # a name from the command line that is not UTF-8 (Python carries its bytes as surrogates)
        shown = str(e.object).encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        print(f"error: a file name given is not UTF-8 text ('{shown}'); rename the file to a UTF-8 name",
              file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
