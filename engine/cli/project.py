"""``decipher project …``: make, fill, inspect and export project files from the command line.

Hook into the main entry point with::

    sub = parser.add_subparsers(dest="command")
    add_project_parser(sub)          # adds "project" with func=handle (also as args.handler)
    args = parser.parse_args(argv); return args.func(args)

or call :func:`main` with the words after ``project`` (``main(["info", "my.decipher"])``).
Every failure prints one line to stderr and returns exit status 2 (as every ``decipher`` command).
"""

from __future__ import annotations

import argparse
import json
import math
import sqlite3
import sys
from datetime import datetime
from pathlib import Path
from typing import Sequence, TextIO

from engine.cli.options import add_dotted_argument
from engine.errors import DecipherError, InputError
from engine.project import exporting, importing
from engine.project.store import Project

IMPORT_KINDS = ("lost", "known", "gold", "prior", "text", "cog", "hesperia", "cldf", "wordlist", "matches")
EXPORT_KINDS = ("matches", "prior", "lost", "known", "gold", "sign_values", "cldf", "edictor")
#: Imports that make one corpus or one known language (which --glottocode/--iso639-3 describe).
CODED_KINDS = {"lost": "corpus", "text": "corpus", "hesperia": "corpus", "known": "language",
               "cldf": "language", "wordlist": "language"}

#: Metric names shown as P@1 / P@10 by ``decipher project runs`` (compared case-insensitively).
P_AT_1 = ("p@1", "precision@1", "p_at_1")
P_AT_10 = ("p@10", "precision@10", "p_at_10")

#: The exit status of every user error (bad input, unreadable or unwritable file).
EXIT_USER_ERROR = 2

_DELIMITERS = {"tab": "\t", "\\t": "\t", "comma": ",", "semicolon": ";", "pipe": "|"}


def _columns(text: str) -> dict[str, str]:
    out = {}
    for part in text.split(","):
        ours, sep, theirs = part.partition("=")
        if not sep or not ours.strip() or not theirs.strip():
            raise argparse.ArgumentTypeError(f"expected OURS=THEIRS pairs like id=REF,text=TEXTO, "
                                             f"not {part!r}")
        out[ours.strip()] = theirs.strip()
    return out


def _delimiter(text: str) -> str:
    value = _DELIMITERS.get(text.lower(), text)
    if len(value) != 1:
        raise argparse.ArgumentTypeError(f"a delimiter is one character or TAB, not {text!r}")
    return value


def _add_verbs(parser: argparse.ArgumentParser) -> None:
    verbs = parser.add_subparsers(dest="verb", metavar="VERB")

    p = verbs.add_parser("new", help="make a new, empty project file")
    p.add_argument("file", type=Path, help="the project file to make (e.g. my.decipher)")
    p.add_argument("--force", action="store_true", help="replace an existing file")
    p.add_argument("--preset", metavar="NAME",
                   help="the project's run settings: a preset (paper, ugaritic, iberian, linear-b), as File > New "
                        "offers; the app's Run panel and `decipher run --project` start from them")

    p = verbs.add_parser("import", help="import data into a project (all or nothing)")
    p.add_argument("file", type=Path, help="the project file")
    kind = p.add_mutually_exclusive_group(required=True)
    for k, what in (("lost", "LOST.csv/.tsv: a lost-language corpus"),
                    ("known", "KNOWN.csv/.tsv: a known language's stems"),
                    ("gold", "GOLD.csv/.tsv: gold annotations of a corpus (--corpus)"),
                    ("prior", "PRIOR.csv/.tsv: pinned sound values (merged; --replace to replace)"),
                    ("text", "plain text, one inscription per line"),
                    ("cog", "a .cog file: corpus, known language and gold"),
                    ("hesperia", "a Hesperia export (Iberian)"),
                    ("cldf", "a CLDF Wordlist (metadata JSON or folder)"),
                    ("wordlist", "a word list to transcribe to IPA (--system)"),
                    ("matches", "a match report exported earlier (--run to re-import into a run)")):
        kind.add_argument(f"--{k}", metavar="PATH", type=Path, help=what)
    p.add_argument("--name", help="name of the new corpus or known language (default: file name)")
    p.add_argument("--language", help="known language: its name for --known/--cog/--wordlist; "
                                      "which one to take from --cldf; the run's language for --matches")
    p.add_argument("--corpus", help="corpus the --gold (or --matches) file belongs to")
    p.add_argument("--system", help="transcription system for --wordlist, --cog (default semitic), "
                                    "CLDF forms without Segments, and --known whose ipa column is written in "
                                    "a transliteration (e.g. semitic-translit)")
    p.add_argument("--skip-unknown", action="store_true",
                   help="--wordlist/--cog: leave out words that cannot be transcribed instead of failing")
    p.add_argument("--columns", type=_columns, metavar="OURS=THEIRS,…",
                   help="map our column names to the file's, e.g. id=REF,text=TEXTO")
    p.add_argument("--delimiter", type=_delimiter, metavar="CHAR",
                   help="field delimiter: TAB, or one character (default: tab for .tsv, else comma, "
                        "or what the header shows)")
    p.add_argument("--encoding", metavar="NAME",
                   help="the file's encoding, e.g. latin-1 or cp1252 (default: UTF-8, or UTF-16 by its BOM)")
    add_dotted_argument(p, legacy=True)   # --lost/--text
    p.add_argument("--lost-notation", choices=("signs", "linear-b"), default="signs",
                   help="--lost: how the text column writes the signs: signs (as they are; default) or linear-b "
                        "(the conventional transliteration a-e-ri-qo-ta, read into the Unicode signs)")
    p.add_argument("--replace", action="store_true", help="--prior: the file's pins replace all pins")
    p.add_argument("--run", type=int, metavar="ID", help="--matches: re-import into this run")
    p.add_argument("--unguard", action=argparse.BooleanOptionalAction, default=True,
                   help="--lost/--known/--gold/--prior/--matches: drop the apostrophe the formula guard of an "
                        "export put before a cell (on by default, so a guarded export, a report's code columns "
                        "included, reads back as it was exported; --no-unguard reads a file written with "
                        "--no-guard-formulas as it is)")
    p.add_argument("--glottocode", metavar="CODE",
                   help="the Glottocode of the corpus or known language imported (e.g. ugar1238); "
                        "stored in the project, written by --cldf/--edictor exports")
    p.add_argument("--iso639-3", dest="iso639_3", metavar="CODE",
                   help="its ISO 639-3 code (e.g. uga); stored in the project like --glottocode")

    p = verbs.add_parser("export", help="export a match report, pins, a corpus, a vocabulary or gold")
    p.add_argument("file", type=Path, help="the project file")
    kind = p.add_mutually_exclusive_group(required=True)
    for k, what in (("matches", "the match report of a run (default: the newest with matches)"),
                    ("prior", "the pinned values as PRIOR.csv"),
                    ("lost", "a corpus as LOST.csv (--corpus)"),
                    ("known", "a known language as KNOWN.csv (--language)"),
                    ("gold", "a corpus's gold as GOLD.csv (--corpus)"),
                    ("sign-values", "each sign's best sounds with probabilities, pinned or learned (--run); a syllable "
                                    "run: its best onsets and vowels by P(sound | sign)"),
                    ("cldf", "a run's accepted matches as a CLDF Wordlist into the folder OUT (validated)"),
                    ("edictor", "a run's accepted matches as an EDICTOR/LingPy wordlist TSV")):
        kind.add_argument(f"--{k}", metavar="OUT", type=Path, help=what)
    p.add_argument("--run", type=int, metavar="ID",
                   help="--matches/--sign-values/--cldf/--edictor: which run (default for --cldf/--edictor: "
                        "the newest run with accepted decisions; the run exported is said and written)")
    p.add_argument("--corpus", help="--lost/--gold: which corpus (by name)")
    p.add_argument("--language", help="--known: which known language (by name)")
    p.add_argument("--tsv", action="store_true", help="tab-separated (also chosen by a .tsv name)")
    p.add_argument("--force", action="store_true",
                   help="--cldf: replace the files of an earlier export in OUT (the file a CSV/TSV export names is "
                        "replaced without it; a symbolic link is refused either way)")
    p.add_argument("--bom", action="store_true", help="start with a UTF-8 BOM (for Excel)")
    p.add_argument("--guard-formulas", action=argparse.BooleanOptionalAction, default=True,
                   help="prefix ' to text cells a spreadsheet would run as formulas (=, +, -, @, tab, CR); "
                        "on by default, --no-guard-formulas writes the data unchanged (e.g. to re-import it)")
    for side, what in (("lost", "the run's corpus"), ("known", "the run's known language")):
        p.add_argument(f"--{side}-glottocode", metavar="CODE",
                       help=f"--cldf/--edictor: store this Glottocode for {what} before exporting")
        p.add_argument(f"--{side}-iso639-3", dest=f"{side}_iso639_3", metavar="CODE",
                       help=f"--cldf/--edictor: store this ISO 639-3 code for {what} before exporting")
    p.add_argument("--lost-display", metavar="TABLE",
                   help="--cldf/--edictor: store a display table for the run's corpus (as View > Display table "
                        "does), which gives its letters' transliteration and sounds: ugaritic-transliteration, "
                        "ugaritic-script, gothic-script, hebrew-script, or none")
    p.add_argument("--known-display", metavar="TABLE",
                   help="--cldf/--edictor: store a display table for the run's known language, so its forms "
                        "are written in transliteration: hebrew-transliteration, hebrew-script, "
                        "ugaritic-transliteration, or none")

    p = verbs.add_parser("decide", help="accept or reject a match of a run (as the app's Accept/Reject)",
                         description="Accept, reject or open again one stem of one match of a run, as the app's "
                                     "Matches panel does: a span has at most one accepted stem, so accepting one "
                                     "takes back another's acceptance. The exports (--cldf, --edictor) write "
                                     "the accepted pairs.")
    p.add_argument("file", type=Path, help="the project file")
    p.add_argument("decision", choices=("accept", "reject", "open"), help="what to decide")
    p.add_argument("--run", type=int, metavar="ID", required=True, help="the run (decipher project runs)")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--match", type=int, metavar="ID", help="the match: its match_id in the match report")
    which.add_argument("--span", metavar="INSCRIPTION:START-END",
                       help="the match: its inscription_id, span_start and span_end in the match report")
    stem = p.add_mutually_exclusive_group()
    stem.add_argument("--stem", metavar="FORM", help="the stem (stem_code or stem of the report; default: rank 1)")
    stem.add_argument("--rank", type=int, metavar="K", help="the stem of this rank (default 1, the best)")

    p = verbs.add_parser("runs", help="list the runs of a project")
    p.add_argument("file", type=Path, help="the project file")
    p.add_argument("--json", action="store_true",
                   help="one JSON object per line per run (id, status, steps, last_step, checkpoint, pins, metrics)")

    p = verbs.add_parser("info", help="what a project holds")
    p.add_argument("file", type=Path, help="the project file")
    p.add_argument("--json", action="store_true",
                   help="one JSON object: schema, corpora (letters, lacunae, language codes), known languages, "
                        "pins, runs")


def add_project_parser(subparsers) -> argparse.ArgumentParser:
    """Add the ``project`` command (with its verbs) to an argparse subparsers object."""
    parser = subparsers.add_parser("project", help="project files: new, import, export, decide, runs, info",
                                   description="Make, fill, inspect and export project files.")
    _add_verbs(parser)
    parser.set_defaults(func=handle, handler=handle, _project_parser=parser)
    return parser


def handle(args: argparse.Namespace, *, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run a parsed ``project`` command; returns the exit code: 0 done, 2 a user error (bad
    input, a file that cannot be read or written; one line on ``err``), as for every command."""
    out = out or sys.stdout
    err = err or sys.stderr
    verb = getattr(args, "verb", None)
    if verb is None:
        parser = getattr(args, "_project_parser", None)
        if parser is not None:
            parser.print_usage(err)
        print("decipher project: error: say what to do: new, import, export, decide, runs or info", file=err)
        return 2
    try:
        return _VERBS[verb](args, out)
    except DecipherError as e:
        print(f"decipher project {verb}: error: {_one_line(e)}", file=err)
        return EXIT_USER_ERROR
    except BrokenPipeError:  # the reader of stdout left (`| head`): engine.cli.main ends quietly
        raise
    except OSError as e:
        where = f"{e.filename}: " if getattr(e, "filename", None) else ""
        print(f"decipher project {verb}: error: {where}{e.strerror or e}", file=err)
        return EXIT_USER_ERROR
    except sqlite3.Error as e:  # the store wraps these; a last guard against a traceback
        print(f"decipher project {verb}: error: {getattr(args, 'file', '')}: {e}", file=err)
        return EXIT_USER_ERROR


def _one_line(error: Exception) -> str:
    return " ".join(str(error).splitlines())


def main(argv: Sequence[str] | None = None) -> int:
    """``decipher project`` as a function: the words after ``project``; returns the exit code."""
    parser = argparse.ArgumentParser(prog="decipher project",
                                     description="Make, fill, inspect and export project files.")
    _add_verbs(parser)
    parser.set_defaults(_project_parser=parser)
    try:
        args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as e:
        return int(e.code or 0)
    return handle(args)


# ---------------------------------------------------------------------------------------------


def _new(args, out: TextIO) -> int:
    settings = _preset_settings(getattr(args, "preset", None))   # checked before the file is made
    project = Project.create(args.file, overwrite=args.force)
    try:
        if settings is not None:
            from engine.datasets.sample import RUN_CONFIG_KEY

            project.set_setting(RUN_CONFIG_KEY, settings)
    finally:
        project.close()
    print(f"created {args.file}" + (f" (run settings: preset {args.preset})" if settings is not None else ""),
          file=out)
    return 0


def _preset_settings(name: str | None) -> dict | None:
    """The run settings of preset ``name`` (None: none given); an unknown name is an InputError."""
    if name is None:
        return None
    from engine.config import PRESET_INFO

    if name not in PRESET_INFO:
        raise InputError(f"unknown preset {name!r}; the presets are {', '.join(PRESET_INFO)}")
    return PRESET_INFO[name].config().to_dict()


def _import(args, out: TextIO) -> int:
    kind = next(k for k in IMPORT_KINDS if getattr(args, k) is not None)
    source: Path = getattr(args, kind)
    csv_options = {"columns": args.columns, "delimiter": args.delimiter, "encoding": args.encoding}
    warnings: Sequence[str] = ()
    markup = ""
    codes = {"glottocode": getattr(args, "glottocode", None), "iso639_3": getattr(args, "iso639_3", None)}
    if any(v is not None for v in codes.values()):
        from engine.project.fieldexport import check_codes

        check_codes(**codes)  # a bad code is refused before anything is imported
        if kind not in CODED_KINDS:
            raise InputError(f"--glottocode/--iso639-3 describe one corpus or known language; --{kind} "
                             "imports " + ("two (set their codes with `decipher project export P --cldf "
                                           "DIR --lost-glottocode … --known-glottocode …`)"
                                           if kind == "cog" else "none"))
    notation = getattr(args, "lost_notation", "signs") or "signs"
    if notation != "signs" and kind != "lost":
        raise InputError(f"--lost-notation reads a --lost file, not --{kind}")
    if args.system is not None and kind not in ("known", "wordlist", "cog", "cldf"):
        raise InputError(f"--system says how a --known, --wordlist, --cog or --cldf file writes its forms, "
                         f"not --{kind}")
    if getattr(args, "dotted", None) is not None and kind not in ("lost", "text"):
        raise InputError(f"--dotted says how a --lost or --text file writes its letters, not --{kind}")
    with Project.open(args.file) as project:
        dotted = getattr(args, "dotted", None)
        if kind == "lost":
            cid = importing.import_lost(project, source, name=args.name, dotted=dotted, notation=notation,
                                        unguard=args.unguard, **csv_options)
            message = _corpus_message(project, cid)
        elif kind == "text":
            cid = importing.import_text(project, source, name=args.name, encoding=args.encoding,
                                        dotted=dotted)
            message = _corpus_message(project, cid)
        elif kind == "hesperia":
            cid = importing.import_hesperia(project, source, name=args.name, encoding=args.encoding)
            message = _corpus_message(project, cid)
        elif kind == "known":
            lid = importing.import_known(project, source, name=args.name or args.language, system=args.system,
                                         unguard=args.unguard, **csv_options)
            message = _language_message(project, lid)
        elif kind == "cldf":
            lid = importing.import_cldf(project, source, name=args.name, language=args.language,
                                        system=args.system)
            message = _language_message(project, lid)
        elif kind == "wordlist":
            if not args.system:
                raise InputError("--wordlist needs --system TRANSCRIPTION (the transcription system)")
            lid = importing.import_wordlist(project, source, args.system, name=args.name,
                                            language=args.language,
                                            on_unknown="skip" if args.skip_unknown else "error",
                                            **csv_options)
            message = _language_message(project, lid)
        elif kind == "gold":
            n = importing.import_gold(project, source, corpus=args.corpus or args.name, unguard=args.unguard,
                                    **csv_options)
            message = f"{n} gold annotations"
            warnings = n.warnings
        elif kind == "prior":
            n = importing.import_prior(project, source, replace=args.replace, unguard=args.unguard, **csv_options)
            message = f"{n} pinned values ({'replacing' if args.replace else 'merged with'} the project's)"
        elif kind == "cog":
            cid, lid = importing.import_cog(project, source, name=args.name, language=args.language,
                                            system=args.system or "semitic", encoding=args.encoding,
                                            on_unknown="skip" if args.skip_unknown else "error")
            message = f"{_corpus_message(project, cid)} and {_language_message(project, lid)}"
        else:  # matches
            rid = importing.import_matches(project, source, run_id=args.run, corpus=args.corpus,
                                           language=args.language, unguard=args.unguard, **csv_options)
            message = f"{len(project.match_records(rid))} matches into run {rid}"
        if kind in ("lost", "text", "hesperia", "cog"):   # what an import of lost texts read
            markup = _markup(project, next(c for c in project.corpora() if c.id == cid))
        if kind in CODED_KINDS and any(v is not None for v in codes.values()):
            from engine.project.fieldexport import set_language_codes

            stored = set_language_codes(project, CODED_KINDS[kind], cid if CODED_KINDS[kind] == "corpus" else lid,
                                        **codes)
            message += " (" + ", ".join(f"{k} {v}" for k, v in stored.items()) + ")"
    print(f"imported {message} from {source} into {args.file}", file=out)
    if markup:
        print(f"  lacunae: {markup}", file=out)
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return 0


def _corpus_message(project: Project, corpus_id: int) -> str:
    info = next(c for c in project.corpora() if c.id == corpus_id)
    return f"corpus {info.name!r} ({info.inscriptions} inscriptions)"


def _markup(project: Project, info) -> str:
    """``2 (1 restored, …)``: the lacunae and other editorial markup read in a corpus's texts."""
    from engine.io.text import describe_leiden

    return describe_leiden(importing.markup_totals(project.inscriptions(info.id), info.format),
                           label=False)


def _letter_list(project: Project, corpus_id: int) -> list[str]:
    """The corpus's letters: the lost alphabet the model sees."""
    from engine.corpus import Corpus

    return list(Corpus("c", tuple(project.inscriptions(corpus_id))).lost_alphabet())


def _letters(project: Project, corpus_id: int) -> str:
    """The corpus's letters, space-separated, and how many."""
    letters = _letter_list(project, corpus_id)
    return f"{' '.join(letters)} ({len(letters)})"


def _language_message(project: Project, language_id: int) -> str:
    info = next(x for x in project.languages() if x.id == language_id)
    return f"known language {info.name!r} ({info.stems} stems)"


def _export(args, out: TextIO) -> int:
    kind = next(k for k in EXPORT_KINDS if getattr(args, k) is not None)
    target: Path = getattr(args, kind)
    field_only = [f"--{name.replace('_', '-')}" for name in ("lost_glottocode", "lost_iso639_3", "known_glottocode",
                                                           "known_iso639_3") if getattr(args, name, None) is not None]
    if field_only and kind not in ("cldf", "edictor"):
        raise InputError(f"{', '.join(field_only)} go with --cldf or --edictor, not --{kind.replace('_', '-')}")
    shown = [f"--{side}-display" for side in ("lost", "known") if getattr(args, f"{side}_display", None) is not None]
    if shown and kind not in ("cldf", "edictor", "matches", "sign_values"):
        raise InputError(f"{', '.join(shown)} go with --cldf, --edictor, --matches or --sign-values, "
                         f"not --{kind.replace('_', '-')}")
    options = {"delimiter": "\t" if args.tsv else None, "bom": args.bom,
               "guard_formulas": args.guard_formulas}
    with Project.open(args.file) as project:
        if shown and kind in ("matches", "sign_values"):   # as the app's View > Display table, then its export
            _store_display_tables(args, project, _exported_run(project, kind, args.run))
        if kind == "matches":
            n = exporting.export_matches(project, target, run_id=args.run, **options)
            what = "report rows"
            _unfinished_note(project, args.run if args.run is not None else exporting.default_run(project).id)
        elif kind == "prior":
            n = exporting.export_prior(project, target, **options)
            what = "pinned values"
        elif kind == "lost":
            n = exporting.export_lost(project, target, args.corpus, **options)
            what = "inscriptions"
        elif kind == "known":
            n = exporting.export_known(project, target, args.language, **options)
            what = "stems"
        elif kind == "sign_values":
            from engine.project.signvalues import export_sign_values

            n = export_sign_values(project, target, run_id=args.run, **options)
            what = "sign values"
            if args.run is not None:
                _unfinished_note(project, args.run)
        elif kind in ("cldf", "edictor"):
            return _field_export(args, project, kind, target, out)
        else:
            n = exporting.export_gold(project, target, args.corpus, **options)
            what = "gold annotations"
    print(f"wrote {n} {what} to {target}", file=out)
    _guard_note(n, args)
    return 0


def _unfinished_note(project: Project, run_id: int) -> None:
    """An export of a run that has not finished says so, with the step it holds (the app's words too)."""
    note = exporting.unfinished_note(project, run_id)
    if note is not None:
        print(f"note: {note}", file=sys.stderr)


def _guard_note(n, args) -> None:
    guarded = getattr(n, "guarded", 0)
    if guarded:
        print(f"note: {guarded} text cells that a spreadsheet would run as formulas start with an added ' "
              "(--no-guard-formulas writes them unchanged)", file=sys.stderr)


def _field_export(args, project: Project, kind: str, target: Path, out: TextIO) -> int:
    """--cldf DIR / --edictor FILE: the app's exports (engine.project.fieldexport), the run said."""
    from engine.project import fieldexport

    if args.tsv or args.bom:
        raise InputError(f"--tsv and --bom are for the CSV exports, not --{kind}")
    run, why = fieldexport.choose_run(project, args.run)
    # every option is checked before any is stored, so a bad one changes nothing
    for side in ("lost", "known"):
        fieldexport.check_codes(getattr(args, f"{side}_glottocode"), getattr(args, f"{side}_iso639_3"))
    _check_display_tables(args)
    for side, kind_, item in (("lost", "corpus", run.corpus_id), ("known", "language", run.language_id)):
        glotto, iso = getattr(args, f"{side}_glottocode"), getattr(args, f"{side}_iso639_3")
        if glotto is None and iso is None:
            continue
        if item is None:
            raise InputError(f"run {run.id} has no {kind_} to give codes to")
        fieldexport.set_language_codes(project, kind_, item, glottocode=glotto, iso639_3=iso)
    _store_display_tables(args, project, run)
    if kind == "cldf":
        from engine.io.atomic import FORCE_HINT

        n = fieldexport.export_cldf(project, target, run_id=run.id, guard_formulas=args.guard_formulas,
                                    replace=args.force, hint=FORCE_HINT)
    else:
        n = fieldexport.export_edictor(project, target, run_id=run.id, guard_formulas=args.guard_formulas)
    print(f"wrote {int(n)} accepted pairs of run {n.run_id} ({why}) "
          f"{'as a CLDF Wordlist into' if kind == 'cldf' else 'to'} {target}", file=out)
    for warning in n.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    _unfinished_note(project, n.run_id)
    _guard_note(n, args)
    return 0


def _decide(args, out: TextIO) -> int:
    """``decide``: the app's Accept/Reject (engine.project.decisions, one code path)."""
    from engine.project import decisions

    span = decisions.parse_span(args.span) if args.span is not None else None
    status = decisions.VERBS[args.decision]
    with Project.open(args.file) as project:
        key = decisions.find_decision_key(project, args.run, match_id=args.match, span=span, stem=args.stem,
                                          rank=args.rank)
        before = decisions.decide_span(project, args.run, key, status)
    ins, start, end, form = key
    taken = [k[3] for k, v in before.items() if k != key and v == "accepted" and status == "accepted"]
    said = {"accepted": "accepted", "rejected": "rejected", None: "opened again"}[status]
    print(f"run {args.run}: {said} {form!r} for letters {start}-{end} of inscription {ins!r}"
          + (f" (the acceptance of {', '.join(map(repr, taken))} taken back)" if taken else ""), file=out)
    return 0


def _check_display_tables(args) -> None:
    """--lost-display/--known-display name known tables (checked before anything is stored)."""
    from engine.project import fieldexport
    from engine.io.display import preset

    if args.lost_display is not None:
        preset(args.lost_display)
    if args.known_display is not None:
        fieldexport.known_table(args.known_display)


def _store_display_tables(args, project: Project, run) -> None:
    """Store --lost-display/--known-display for the exported run's corpus and known language, as
    View > Display table does (every export then shows the data through them)."""
    from engine.project import fieldexport

    _check_display_tables(args)
    if args.lost_display is not None:
        if run is None or run.corpus_id is None:
            raise InputError(f"{'no run' if run is None else f'run {run.id} has no corpus'} to give a display table to")
        fieldexport.set_corpus_table(project, run.corpus_id, args.lost_display)
    if args.known_display is not None:
        if run is None or run.language_id is None:
            raise InputError(f"{'no run' if run is None else f'run {run.id} has no known language'} to give a "
                             "display table to")
        fieldexport.set_known_table(project, run.language_id, args.known_display)


def _exported_run(project: Project, kind: str, run_id: int | None):
    """The run a --matches or --sign-values export writes (None: sign values of no run)."""
    if run_id is None:
        if kind == "matches":
            return exporting.default_run(project)
        from engine.project.signvalues import newest_run_with_mapping

        run_id = newest_run_with_mapping(project)
        if run_id is None:
            return None
    try:
        return project.run(run_id)
    except DecipherError:
        raise InputError(f"no run {run_id} in {project.path.name}") from None


def _pick(metrics: dict[str, float], names: Sequence[str]) -> str:
    for key, value in metrics.items():
        if key.lower() in names:
            return "-" if math.isnan(value) else f"{value:.3f}"
    return ""


def _time(value: str | None) -> str:
    if not value:
        return ""
    try:
        return datetime.fromisoformat(value).astimezone().strftime("%Y-%m-%d %H:%M:%S")
    except ValueError:
        return value


def run_table(project: Project) -> list[list[str]]:
    """The rows ``decipher project runs`` prints (header first)."""
    from engine.project.recording import compared_diagnoses

    languages = {x.id: x.name for x in project.languages()}
    diagnoses = compared_diagnoses(project)
    rows = [["id", "status", "language", "steps", "P@1", "P@10", "started", "ended", "diagnosis", "checkpoint"]]
    for run in project.runs():
        metrics = project.latest_metrics(run.id)
        steps = run.last_step
        if steps is None:
            found = [s for s, _, _ in project.metrics(run.id)]
            steps = max(found) if found else None
        rows.append([str(run.id), run.status, languages.get(run.language_id, ""),
                     "" if steps is None else str(steps), _pick(metrics, P_AT_1),
                     _pick(metrics, P_AT_10), _time(run.started_at), _time(run.ended_at),
                     _verdict(diagnoses.get(run.id)), run.checkpoint or ""])
    return rows


def _verdict(diagnosis: dict | None) -> str:
    """A run's diagnosis in one word for the table: "flagged", "ok", or "no diagnosis"."""
    from engine.training.diagnosis import NO_DIAGNOSIS, diagnosis_from

    d = diagnosis_from(diagnosis)
    return NO_DIAGNOSIS if d is None else ("flagged" if d.flagged else "ok")


def _print_table(rows: list[list[str]], out: TextIO) -> None:
    from engine.io.text import for_terminal   # a stored name can neither drive the terminal nor split a row

    rows = [[for_terminal(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip(), file=out)


def _runs(args, out: TextIO) -> int:
    if getattr(args, "json", False):
        from engine.project.recording import compared_diagnoses, run_summary

        with Project.open(args.file) as project:
            diagnoses = compared_diagnoses(project)
            for run in project.runs():
                print(json.dumps(run_summary(project, run.id, diagnoses=diagnoses), ensure_ascii=False), file=out)
        return 0
    with Project.open(args.file) as project:
        rows = run_table(project)
        for run_id in project.interrupted:
            print(f"note: run {run_id} was left running by a process that is gone; marked "
                  "interrupted", file=out)
    if len(rows) == 1:
        print(f"{args.file}: no runs yet", file=out)
    else:
        _print_table(rows, out)
    return 0


def _info_json(project: Project) -> dict:
    """What ``project info`` says, as one JSON-ready object."""
    from engine.project.fieldexport import language_codes

    s = project.summary()
    return {
        "path": str(s["path"]), "schema_version": s["schema_version"], "application_id": s["application_id"],
        "created_with": s["created_with"] or None, "migrated_from": project.migrated_from,
        "corpora": [{"id": c.id, "name": c.name, "inscriptions": c.inscriptions, "gold": c.gold,
                     "format": c.format, "source": c.source or None, "letters": _letter_list(project, c.id),
                     "lacunae": _markup(project, c), **language_codes(project, "corpus", c.id)}
                    for c in s["corpora"]],
        "known_languages": [{"id": x.id, "name": x.name, "stems": x.stems, "format": x.format,
                             "source": x.source or None, **language_codes(project, "language", x.id)}
                            for x in s["languages"]],
        "pinned_values": s["pins"],
        "runs": dict(sorted(s["runs"].items())),
        "checkpoints": [{"run": r.id, "status": r.status, "step": r.last_step, "checkpoint": r.checkpoint}
                        for r in project.runs() if r.checkpoint],
        "interrupted": list(project.interrupted),
    }


def _info(args, out: TextIO) -> int:
    if getattr(args, "json", False):
        with Project.open(args.file) as project:
            print(json.dumps(_info_json(project), ensure_ascii=False), file=out)
        return 0
    from engine.io.text import for_terminal as t   # control characters escaped, long text cut

    with Project.open(args.file) as project:
        s = project.summary()
        print(f"{t(s['path'])}: project file, schema v{s['schema_version']} (application_id "
              f"{s['application_id']})", file=out)
        if project.migrated_from is not None:
            print(f"  upgraded from schema v{project.migrated_from}; backup: {t(project.backup)}", file=out)
        if s["created_with"]:
            print(f"  created with: {t(s['created_with'])}", file=out)
        print(f"  corpora: {len(s['corpora'])}", file=out)
        for c in s["corpora"]:
            print(f"    {c.id}: {t(c.name)} ({c.inscriptions} inscriptions, {c.gold} gold; {t(c.format)} "
                  f"from {t(c.source or '-')})", file=out)
            print(f"      letters: {t(_letters(project, c.id), 2000)}", file=out)
            print(f"      lacunae: {_markup(project, c)}", file=out)
        print(f"  known languages: {len(s['languages'])}", file=out)
        for x in s["languages"]:
            print(f"    {x.id}: {t(x.name)} ({x.stems} stems; {t(x.format)} from {t(x.source or '-')})", file=out)
        print(f"  pinned values: {s['pins']}", file=out)
        runs = ", ".join(f"{n} {st}" for st, n in sorted(s["runs"].items())) or "none"
        print(f"  runs: {runs}", file=out)
        for run in project.runs():  # where each run can be resumed from
            if run.checkpoint:
                print(f"    run {run.id} ({run.status}, step {run.last_step}): checkpoint {t(run.checkpoint)}", file=out)
        for run_id in project.interrupted:
            print(f"  note: run {run_id} was left running by a process that is gone; marked "
                  "interrupted", file=out)
    return 0


_VERBS = {"new": _new, "import": _import, "export": _export, "decide": _decide, "runs": _runs, "info": _info}
