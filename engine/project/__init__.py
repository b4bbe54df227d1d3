"""Project files (``.decipher``): one SQLite file per project, with importers, exports and CLI.

See docs/formats.md ("Project file") for the tables, pragmas, migrations and backups.
"""

from engine.project.exporting import (MATCH_COLUMNS, export_gold, export_known, export_lost, export_matches,
                        export_prior, match_report_rows)
from engine.project.importing import (import_cldf, import_cog, import_gold, import_hesperia, import_known,
                        import_lost, import_matches, import_prior, import_text, import_wordlist,
                        read_match_report)
from engine.project.recording import RunRecorder
from engine.project.schema import APPLICATION_ID, SCHEMA_VERSION, inspect_file
from engine.project.store import (CorpusInfo, LanguageInfo, MatchRecord, PinRecord, Project, RunRecord,
                    code_version, pid_alive)

__all__ = [
    "APPLICATION_ID", "SCHEMA_VERSION", "MATCH_COLUMNS", "Project", "CorpusInfo", "LanguageInfo",
    "MatchRecord", "PinRecord", "RunRecord", "code_version", "pid_alive", "inspect_file",
    "import_lost", "import_text", "import_known", "import_gold", "import_prior", "import_cog",
    "import_hesperia", "import_wordlist", "import_cldf", "import_matches", "read_match_report",
    "export_matches", "export_prior", "export_lost", "export_known", "export_gold",
    "match_report_rows", "RunRecorder",
]
