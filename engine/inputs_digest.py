"""What a run's results depend on, as digests: the record a sweep, seed group or comparison keeps
in each run folder (``inputs.json``), so that a resume reuses a folder only when its settings,
steps, code version and input data are the ones that made it; and the corpus digest a checkpoint
carries, so that a resume on another corpus is refused.

Torch-free (the app's process and a sweep's parent use it). The data are digested as the run
sees them (NFC text after reading), so an edit that changes nothing a run reads (a comment, the
line endings) is no change, and any edit of an inscription, stem, gold row or pin is.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Iterable, Mapping

#: The name of the record in a run folder.
RECORD_FILE = "inputs.json"
#: What the record's layout is (a record of another format is treated as changed).
RECORD_FORMAT = "decipher-run-inputs/1"


def _sha(parts: Iterable[str]) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\x1f")
    return h.hexdigest()


def corpus_digest(corpus) -> str:
    """The inscriptions a run trains on (ids and texts, in order)."""
    return _sha(f"{i.id}\x1e{i.text}" for i in corpus.inscriptions)


def vocabulary_digest(vocabulary, *, glosses: bool = True) -> str:
    """The stems of a known vocabulary (form, IPA and gloss: every column a result shows; in order).
    ``glosses=False``: what training reads (form and IPA), which a checkpoint carries, so that a
    resume refuses another vocabulary but not a corrected gloss."""
    stems = getattr(vocabulary, "stems", vocabulary)
    if not glosses:
        return _sha(f"{s.form}\x1e{s.ipa}" for s in stems)
    return _sha(f"{s.form}\x1e{s.ipa}\x1e{s.gloss}" for s in stems)


def values_digest(values: Iterable[Any] | None) -> str:
    """Gold rows or pins (frozen dataclasses: their repr is their content)."""
    return _sha(repr(v) for v in (values or ()))


def record_version() -> str:
    """The version of the code that made a result, as a run's record holds it (``engine X``; a
    project's run rows hold engine.project.code_version, which adds the source tree's commit)."""
    from engine import __version__

    return f"engine {__version__}"


def make_record(settings: Mapping[str, Any], inputs: Mapping[str, str]) -> dict:
    """A run's record: its settings (the steps among them), the code version and a digest per input
    (``inputs``: name -> digest, e.g. ``{"lost file": …, "known file": …}``), and one digest of it all."""
    body = {"format": RECORD_FORMAT, "version": record_version(),
            "settings": json.loads(json.dumps(dict(settings), sort_keys=True, default=str)),
            "inputs": dict(sorted(inputs.items()))}
    return _digested(body)


def _without_added(record: dict, old_settings: Mapping[str, Any]) -> dict:
    """``record`` as a program from before the settings added since (engine.config.ADDED_SETTINGS)
    would have made it, where each holds its neutral value and ``old_settings`` does not name it."""
    from engine.config import ADDED_SETTINGS

    settings = {k: v for k, v in record["settings"].items()
                if not (k in ADDED_SETTINGS and k not in old_settings and v == ADDED_SETTINGS[k])}
    return _digested({k: v for k, v in record.items() if k != "digest"} | {"settings": settings})


def _without_after(record: dict) -> dict:
    """``record`` with its digest made again without the settings of what is checked after a run."""
    from engine.config import AFTER_THE_RUN

    settings = record.get("settings") if isinstance(record.get("settings"), dict) else {}
    return _digested({k: v for k, v in record.items() if k != "digest"}
                     | {"settings": {k: v for k, v in settings.items() if k not in AFTER_THE_RUN}})


def _digested(body: dict) -> dict:
    body["digest"] = hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()
    return body


def read_record(run_dir: Path) -> dict | None:
    """The record in ``run_dir``, or None when there is none or it is not one (a symlink, a damaged
    or foreign file: each is treated as "no record")."""
    path = Path(run_dir) / RECORD_FILE
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > 1_000_000:
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != RECORD_FORMAT or not isinstance(data.get("digest"), str):
        return None
    return data


def _shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False) if isinstance(value, (dict, list)) else str(value)


def changes(old: dict | None, new: dict) -> list[str]:
    """What differs between the record a folder holds and the one this run would make, in words
    (``lr: 0.1 -> 0.3``, ``steps: 5 -> 50``, ``lost file changed``); empty when they match."""
    if old is None:
        return ["no record of its inputs (made by an older version, or its record is damaged)"]
    old_s = old.get("settings") if isinstance(old.get("settings"), dict) else {}
    new = _without_added(new, old_s)       # settings added since, at their neutral value, change nothing
    if old.get("digest") == new["digest"]:
        return []
    # nor do the settings of what is checked after the run (engine.config.AFTER_THE_RUN: a run with a
    # reference run and one without read the same; Config.identity leaves them out as well)
    old, new = _without_after(old), _without_after(new)
    old_s = old["settings"]
    if old["digest"] == new["digest"]:
        return []
    out = []
    if old.get("version") != new["version"]:
        out.append(f"code version: {old.get('version')} -> {new['version']}")
    new_s = new["settings"]
    for key in list(new_s) + [k for k in old_s if k not in new_s]:
        if old_s.get(key, "(unset)") != new_s.get(key, "(unset)"):
            out.append(f"{key}: {_shown(old_s.get(key, '(unset)'))} -> {_shown(new_s.get(key, '(unset)'))}")
    old_i = old.get("inputs") if isinstance(old.get("inputs"), dict) else {}
    for name in list(new["inputs"]) + [k for k in old_i if k not in new["inputs"]]:
        if old_i.get(name) != new["inputs"].get(name):
            if name not in old_i:
                out.append(f"{name} added")
            elif name not in new["inputs"]:
                out.append(f"{name} removed")
            else:
                out.append(f"{name} changed")
    return out or ["its record differs"]


__all__ = ["RECORD_FILE", "corpus_digest", "vocabulary_digest", "values_digest", "make_record", "read_record",
           "changes", "record_version"]
