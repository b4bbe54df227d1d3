"""The bundled resources (transcription tables, fonts, icons, sample projects, priors), found
through ``importlib.resources``: every reader asks here and none builds a path from ``__file__``.

Installed (wheel, editable install, PyInstaller bundle), they are the package
``decipher_resources`` (the source tree's ``resources/`` folder, mapped in pyproject.toml). In a
source checkout run without installing (``PYTHONPATH=.``) that package is not importable; then the
``resources/`` folder beside ``engine/`` is loaded as that package, so both cases read the same files
through the same API.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.resources
import importlib.util
import sys
from pathlib import Path

PACKAGE = "decipher_resources"
_extracted = contextlib.ExitStack()
atexit.register(_extracted.close)


def _package_root():
    try:
        return importlib.resources.files(PACKAGE)
    except ModuleNotFoundError:
        pass
    # Not installed: the source tree's resources/ package, imported under its installed name.
    init = Path(__file__).resolve().parent.parent / "resources" / "__init__.py"
    if not init.is_file():
        raise ModuleNotFoundError(f"the package {PACKAGE} (the bundled resources) is not installed; "
                                  f"reinstall decipher-workbench") from None
    spec = importlib.util.spec_from_file_location(PACKAGE, init, submodule_search_locations=[str(init.parent)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[PACKAGE] = module
    spec.loader.exec_module(module)
    return importlib.resources.files(PACKAGE)


def resource(*parts: str) -> Path:
    """The file or folder ``parts`` (e.g. ``resource("transcription", "semitic.tsv")``) as a real
    path; a zipped install is extracted once to a temporary folder removed at exit."""
    root = _package_root()
    item = root.joinpath(*parts)
    if isinstance(item, Path):
        return item
    return Path(_extracted.enter_context(importlib.resources.as_file(item)))


__all__ = ["PACKAGE", "resource"]
