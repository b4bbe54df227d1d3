"""The packaging files stay usable without building the bundle: entry scripts import absolutely
and run as top-level scripts, the spec parses, and the desktop entry, AppStream metainfo and
shared-mime-info XML parse, agree with each other and match a real project file."""

from __future__ import annotations

import ast
import configparser
import os
import shutil
import struct
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGING = ROOT / "packaging"
APP_ID = "io.github.decipher_workbench.DecipherWorkbench"
DESKTOP = PACKAGING / f"{APP_ID}.desktop"
METAINFO = PACKAGING / f"{APP_ID}.metainfo.xml"
MIME = PACKAGING / f"{APP_ID}.mime.xml"
MIME_NS = "{http://www.freedesktop.org/standards/shared-mime-info}"
ENTRY_SCRIPTS = [PACKAGING / "entry_gui.py", PACKAGING / "entry_cli.py", ROOT / "decipher_gui" / "__main__.py"]


def relative_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [f"line {n.lineno}: from {'.' * n.level}{n.module or ''}" for n in ast.walk(tree)
            if isinstance(n, ast.ImportFrom) and n.level > 0]


@pytest.mark.parametrize("script", ENTRY_SCRIPTS, ids=lambda p: p.name)
def test_entry_scripts_import_absolutely(script):
    assert relative_imports(script) == []


def _run_as_top_level_script(script: Path, *args: str) -> subprocess.CompletedProcess:
    """The way PyInstaller runs an entry script: as __main__, not as part of a package."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), QT_QPA_PLATFORM="offscreen")
    return subprocess.run([sys.executable, str(script), *args], cwd=ROOT / "tests", env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("script, prog", [(ENTRY_SCRIPTS[0], "decipher-gui"), (ENTRY_SCRIPTS[1], "decipher"),
                                          (ENTRY_SCRIPTS[2], "decipher-gui")], ids=lambda x: str(x)[-14:])
def test_entry_scripts_run_as_top_level_modules(script, prog):
    proc = _run_as_top_level_script(script, "--help")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"usage: {prog}")


def test_spec_builds_both_executables_from_the_entry_scripts():
    spec = (PACKAGING / "decipher-workbench.spec").read_text(encoding="utf-8")
    tree = ast.parse(spec)
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level > 0]
    names = {kw.value.value for n in ast.walk(tree) if isinstance(n, ast.Call)
             for kw in n.keywords if kw.arg == "name" and isinstance(kw.value, ast.Constant)}
    assert {"decipher-gui", "decipher", "decipher-workbench"} <= names
    for script in ("entry_gui.py", "entry_cli.py"):
        assert script in spec and (PACKAGING / script).is_file()
    for package in ("epitran", "panphon", "jamo", "ipapy"):  # data files read at run time
        assert f'"{package}"' in spec
    assert '"resources" / "__init__.py"), RESOURCES)' in spec and 'RESOURCES = "decipher_resources"' in spec
    for folder in ("fonts", "icons", "sample", "sample-gothic", "priors", "transcription"):
        assert f'"resources" / "{folder}"), f"{{RESOURCES}}/{folder}")' in spec and (ROOT / "resources" / folder).is_dir()
    assert (ROOT / "resources" / "fonts" / "OFL.txt").is_file()
    assert (ROOT / "resources" / "sample" / "ATTRIBUTION.md").is_file()


def test_package_extra_declares_pyinstaller():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert any(req.lower().startswith("pyinstaller") for req in meta["project"]["optional-dependencies"]["package"])


# --- desktop entry, metainfo, mime type ----------------------------------------------------------


def desktop_entry() -> dict[str, str]:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # keys are case-sensitive
    parser.read(DESKTOP, encoding="utf-8")
    return dict(parser["Desktop Entry"])


def mime_type() -> ET.Element:
    root = ET.parse(MIME).getroot()
    assert root.tag == f"{MIME_NS}mime-info"
    (mt,) = root.findall(f"{MIME_NS}mime-type")
    return mt


def test_desktop_entry_names_the_app_its_icon_and_the_project_type():
    entry = desktop_entry()
    assert entry["Type"] == "Application" and entry["Exec"].split()[0] == "decipher-gui"
    assert entry["Icon"] == APP_ID
    assert entry["MimeType"].rstrip(";").split(";") == [mime_type().get("type")]
    for size in (16, 32, 48, 64, 128, 256, 512):
        png = ROOT / "resources" / "icons" / "hicolor" / f"{size}x{size}" / "apps" / f"{APP_ID}.png"
        header = png.read_bytes()[:24]
        assert header[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", header[16:24]) == (size, size)
    ico = (ROOT / "resources" / "icons" / "decipher-workbench.ico").read_bytes()
    assert ico[:4] == b"\0\0\1\0" and struct.unpack("<H", ico[4:6])[0] >= 5
    assert (ROOT / "resources" / "icons" / "decipher-workbench.icns").read_bytes()[:4] == b"icns"


def test_decipher_gui_app_uses_the_same_desktop_file_name():
    assert f'setDesktopFileName("{APP_ID}")' in (ROOT / "decipher_gui" / "app.py").read_text(encoding="utf-8")


def test_metainfo_is_complete_and_absolute():
    root = ET.parse(METAINFO).getroot()
    assert root.get("type") == "desktop-application" and root.findtext("id") == APP_ID
    assert root.findtext("launchable") == DESKTOP.name
    assert root.findtext("url[@type='homepage']", "").startswith("https://")
    assert root.find("developer/name") is not None
    images = [i.text for i in root.iter("image")]
    assert images and all(i.startswith("https://") for i in images)
    for image in images:  # each points at a picture that is in the repository
        assert (ROOT / "docs" / "screenshots" / Path(image).name).is_file()
    assert mime_type().get("type") in [m.text for m in root.iter("mediatype")]


def test_mime_magic_matches_a_real_project_file(tmp_path):
    from engine.project.schema import APPLICATION_ID
    from engine.project.store import Project

    mt = mime_type()
    assert [g.get("pattern") for g in mt.findall(f"{MIME_NS}glob")] == ["*.decipher"]
    (outer,) = mt.find(f"{MIME_NS}magic").findall(f"{MIME_NS}match")
    (inner,) = outer.findall(f"{MIME_NS}match")
    assert (inner.get("type"), int(inner.get("value"), 16)) == ("big32", APPLICATION_ID)
    path = tmp_path / "p.decipher"
    Project.create(path).close()
    data = path.read_bytes()
    assert data.startswith(outer.get("value").encode()) and int(outer.get("offset")) == 0
    offset = int(inner.get("offset"))
    assert data[offset:offset + 4] == struct.pack(">I", int(inner.get("value"), 16)) == b"DCPH"


_QUERY = """
import sys
from PySide6.QtCore import QMimeDatabase
db = QMimeDatabase()
for path in sys.argv[1:]:
    print(db.mimeTypeForFile(path, QMimeDatabase.MatchMode.MatchContent).name())
"""


@pytest.mark.skipif(shutil.which("update-mime-database") is None, reason="needs shared-mime-info")
def test_installed_mime_type_recognises_projects_by_content(tmp_path):
    """With the XML installed, a project renamed without .decipher is still a project; another
    SQLite database is not."""
    import sqlite3

    from engine.project.store import Project

    data_home = tmp_path / "share"
    (data_home / "mime" / "packages").mkdir(parents=True)
    shutil.copy(MIME, data_home / "mime" / "packages" / f"{APP_ID}.xml")
    system = Path("/usr/share/mime/packages/freedesktop.org.xml")
    if system.exists():
        shutil.copy(system, data_home / "mime" / "packages")
    subprocess.run(["update-mime-database", str(data_home / "mime")], check=True, capture_output=True)
    project = tmp_path / "renamed.bin"
    Project.create(tmp_path / "p.decipher").close()
    shutil.copy(tmp_path / "p.decipher", project)
    other = tmp_path / "other.bin"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE t (x)")
    conn.close()
    env = dict(os.environ, XDG_DATA_HOME=str(data_home), XDG_DATA_DIRS=str(data_home))
    proc = subprocess.run([sys.executable, "-c", _QUERY, str(project), str(other)], env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["application/x-decipher-project", "application/vnd.sqlite3"]


# --- the distributions' validators, where installed ---------------------------------------------


@pytest.mark.skipif(shutil.which("desktop-file-validate") is None, reason="needs desktop-file-utils")
def test_desktop_file_validates():
    proc = subprocess.run(["desktop-file-validate", str(DESKTOP)], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.strip() == "", proc.stdout + proc.stderr


@pytest.mark.skipif(shutil.which("appstreamcli") is None, reason="needs appstream")
def test_metainfo_validates():
    proc = subprocess.run(["appstreamcli", "validate", "--no-net", str(METAINFO)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


# --- the smoke check's blank-picture test -------------------------------------------------------


def test_smoke_check_tells_a_blank_picture_from_a_window(tmp_path, qapp):
    sys.path.insert(0, str(PACKAGING))
    try:
        from check_bundle import picture_stats
    finally:
        sys.path.remove(str(PACKAGING))
    from PySide6.QtGui import QImage

    blank = QImage(160, 100, QImage.Format.Format_RGB32)
    blank.fill(0xF0F0F0)
    blank.save(str(tmp_path / "blank.png"))
    assert picture_stats(tmp_path / "blank.png")[2:] == (0.0, 1)
    window = ROOT / "docs" / "screenshots" / "main-window.png"
    if not window.exists():
        pytest.skip("no docs/screenshots/main-window.png")
    w, h, spread, colours = picture_stats(window)
    assert spread > 10 and colours > 50
