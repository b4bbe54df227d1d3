"""Options that several commands share, defined once so that a hint naming one works wherever it
is given (``decipher run``, ``decipher sweep``, ``decipher closeness``, ``decipher project import``)."""

from __future__ import annotations

import argparse

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
