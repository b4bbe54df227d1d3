"""Options that several commands share, defined once so that a hint naming one works wherever it
is given (``decipher run``, ``decipher sweep``, ``decipher closeness``, ``decipher project import``),
and the run settings that ``decipher run`` and ``decipher run --seeds`` read from them."""

from __future__ import annotations

import argparse
import sys

from engine.config import FLAG_SETTINGS, Config, config_from_options
from engine.io.text import DOTTED_CHOICES, DOTTED_MODES


def add_dotted_argument(parser, *, legacy: bool = False) -> None:
    """``--dotted letter|uncertain``: what a dot below (U+0323) in a lost text is. Not given, a
    lost text with such a letter is refused, naming the letters (engine.io.text.DottedLettersUnchosen).
    ``legacy``: also take ``--dotted-letters`` (= ``--dotted letter``), as ``project import`` did."""
    parser.add_argument("--dotted", choices=DOTTED_MODES, default=None,
                        help="what a dot below a letter of the lost text is: letter (" + DOTTED_CHOICES["letter"]
                             + ") or uncertain (" + DOTTED_CHOICES["uncertain"] + "); needed when the text "
                             "has such letters, refused otherwise")
    if legacy:
        parser.add_argument("--dotted-letters", dest="dotted", action="store_const", const="letter",
                            help=argparse.SUPPRESS)


def add_known_system_argument(parser) -> None:
    """``--system NAME``: a KNOWN file's ipa column is written in this transcription system (a
    transliteration such as semitic-translit) and is transcribed into IPA when read, as the
    refusal of a transliteration in an IPA column suggests (engine.io.tables.read_known)."""
    parser.add_argument("--system", metavar="TRANSCRIPTION",
                        help="the KNOWN file's ipa column is written in this transcription system (e.g. "
                             "semitic-translit) and is transcribed into IPA when read")


def config_of(args) -> Config:
    """The settings of ``decipher run`` from its options (engine.config.config_from_options); with
    ``--project`` and neither ``--preset`` nor ``--config``, the project's stored run settings are
    the base (as the app's Run panel starts from them), ``--set`` and the flags on top."""
    stored = None
    if getattr(args, "project", None) is not None and getattr(args, "resume", None) is None:
        from engine.datasets.sample import RUN_CONFIG_KEY
        from engine.project.store import Project

        with Project.open(args.project) as project:
            stored = project.setting(RUN_CONFIG_KEY)
        if stored and not (args.preset or args.config):
            # a value a newer check refuses falls back to its default, said (as the app's Run panel does)
            usable, notes = Config.from_stored(stored)
            for line in notes:
                print(f"note: {args.project}'s run settings: {line}", file=sys.stderr)
            stored = usable.to_dict()
    return config_from_options(stored=stored, **setting_options(args))


def keep_settings(args, config: Config) -> None:
    """``decipher run --project P --preset NAME`` (or ``--config FILE``): P keeps the run's settings
    as its run settings, as the app's "Save as defaults" does, so that the app (and the next ``run
    --project`` without a preset) trains with them; said on stderr."""
    if getattr(args, "project", None) is None or getattr(args, "resume", None) is not None \
            or not (args.preset or args.config):
        return
    from engine.datasets.sample import RUN_CONFIG_KEY
    from engine.project.store import Project

    with Project.open(args.project) as project:
        project.set_setting(RUN_CONFIG_KEY, config.to_dict())
    what = f"preset {args.preset}" if args.preset else f"settings of {args.config}"
    print(f"note: {args.project} keeps this run's settings ({what}) as its run settings: the app's Run panel "
          "and `decipher run --project` without --preset start from them", file=sys.stderr)


def setting_options(args) -> dict:
    return dict(preset=args.preset, config_file=args.config, assignments=args.set,
                **{name: getattr(args, name) for name in FLAG_SETTINGS})
