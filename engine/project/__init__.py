"""Project files (``.decipher``): one SQLite file per project, with importers, exports and CLI.

The package is the front door: the app (decipher_gui/) imports only the names below, never a
submodule (tests/test_import_order.py holds it to that). What lives where:

* ``store`` — :class:`Project` (open/create, transactions, settings, backups), its mixins
  ``corpora`` (corpora, known languages, gold), ``pins`` (the project's pins, each run's pin
  history) and ``runs`` (runs, metrics, matches, decisions); ``records`` the values it hands out;
  ``schema``, ``access``, ``liveness``, ``locking``, ``rawfile`` below it.
* ``recording`` (the one run recorder, the learned mapping), ``runner`` (a run put together in a
  project), ``decisions`` (Accept/Reject), ``resolve``.
* ``importing`` and ``exporting`` (tables), ``signvalues`` (sign values, a syllable run's grid),
  ``fieldexport`` (CLDF and EDICTOR, language codes).

See docs/formats.md ("Project file") for the tables, pragmas, migrations and backups.
"""

from engine.project.decisions import decide_span, span_decisions
from engine.project.exporting import (MATCH_COLUMNS, default_run, export_gold, export_known, export_lost,
                                      export_matches, export_prior, inscription_ref, match_report_rows,
                                      unfinished_note)
from engine.project.fieldexport import check_codes, export_cldf, export_edictor, language_codes, set_language_codes
from engine.project.importing import (import_cldf, import_cog, import_gold, import_hesperia, import_known,
                                      import_lost, import_matches, import_prior, import_text, import_wordlist,
                                      read_match_report)
from engine.project.liveness import code_version, pid_alive
from engine.project.pins import PinChange, pin_history, record_pins
from engine.project.records import CorpusInfo, DecisionKey, LanguageInfo, MatchRecord, PinRecord, RunRecord
from engine.project.recording import (LEGACY_MAPPING_KEY, RunRecorder, compared_diagnoses, mapping_of,
                                      record_mapping, resolve_checkpoint, run_summary)
from engine.project.runner import ProjectRunSpec, assemble_run
from engine.project.schema import APPLICATION_ID, SCHEMA_VERSION, inspect_file, read_header
from engine.project.signvalues import (GRID_PIN_MARK, SignValue, SyllableGrid, export_sign_values,
                                       export_syllable_grid, sign_values, syllable_grid, syllable_values)
from engine.project.store import Project, clean_copy

__all__ = [
    "APPLICATION_ID", "SCHEMA_VERSION", "MATCH_COLUMNS", "LEGACY_MAPPING_KEY", "GRID_PIN_MARK",
    # the store and its values
    "Project", "CorpusInfo", "LanguageInfo", "MatchRecord", "PinRecord", "RunRecord", "DecisionKey", "PinChange",
    "code_version", "pid_alive", "inspect_file", "read_header", "clean_copy",
    # runs: recording, assembling, pins, decisions
    "RunRecorder", "ProjectRunSpec", "assemble_run", "record_mapping", "mapping_of", "resolve_checkpoint",
    "run_summary", "compared_diagnoses", "pin_history", "record_pins", "decide_span", "span_decisions",
    # imports
    "import_lost", "import_text", "import_known", "import_gold", "import_prior", "import_cog",
    "import_hesperia", "import_wordlist", "import_cldf", "import_matches", "read_match_report",
    # exports
    "export_matches", "export_prior", "export_lost", "export_known", "export_gold", "match_report_rows",
    "default_run", "unfinished_note", "inscription_ref", "SignValue", "SyllableGrid", "sign_values",
    "syllable_values", "syllable_grid", "export_sign_values", "export_syllable_grid", "language_codes",
    "check_codes", "set_language_codes", "export_cldf", "export_edictor",
]
