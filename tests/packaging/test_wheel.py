"""The wheel works anywhere (issue 29, item 1): built from a copy of the sources, installed into a
fresh virtual environment, it runs from an empty folder with no source tree on the path.

To stay fast the fresh venv gets the wheel with ``--no-deps`` and sees the dependencies through a
``.pth`` file listing this interpreter's site-packages (a plain path line: the editable install's
own ``.pth`` hooks there are not run, so ``engine`` can only come from the wheel).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import site
import subprocess
import sys
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("engine", "decipher_gui", "resources", "pyproject.toml", "README.md", "LICENSE")


def _packages_in_pyproject() -> list[str]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"]


def test_every_subpackage_is_listed_in_pyproject():
    found = {".".join(p.parent.relative_to(ROOT).parts) for top in ("engine", "decipher_gui")
             for p in (ROOT / top).rglob("__init__.py") if "__pycache__" not in p.parts}
    listed = set(_packages_in_pyproject())
    assert found - listed == set(), "add these to [tool.setuptools] packages in pyproject.toml"
    assert "decipher_resources" in listed


def test_ray_is_only_in_the_cluster_extra_and_make_install_leaves_it_out():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert not [d for d in meta["dependencies"] if d.lower().startswith("ray")]
    extras = meta["optional-dependencies"]
    assert [name for name, deps in extras.items() if any(d.lower().startswith("ray") for d in deps)] == ["cluster"]
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    installs = [line for line in makefile.splitlines() if "pip install" in line and not line.startswith("#")]
    assert installs and not [line for line in installs if "cluster" in line]


def _copy_sources(dst: Path) -> Path:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".*.part")
    for name in SOURCES:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dst / name, ignore=ignore)
        else:
            shutil.copy2(src, dst / name)
    return dst


def _setuptools_is_new_enough() -> bool:
    try:
        return int(importlib.metadata.version("setuptools").split(".")[0]) >= 77
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return False


def _run(cmd, *, cwd: Path, env: dict, timeout: float = 300) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True,
                          encoding="utf-8", timeout=timeout)
    assert proc.returncode == 0, f"{cmd} exited with {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("wheel")
    src = _copy_sources(work / "src")
    cmd = [sys.executable, "-m", "pip", "wheel", str(src), "--no-deps", "-q", "-w", str(work / "dist")]
    if _setuptools_is_new_enough():
        cmd.append("--no-build-isolation")  # offline and fast; otherwise pip fetches setuptools
    _run(cmd, cwd=work, env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}, timeout=600)
    (built,) = (work / "dist").glob("decipher_workbench-*.whl")
    return built


def test_the_wheel_carries_every_resource_and_the_licences(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    resources = [p.relative_to(ROOT / "resources").as_posix() for p in (ROOT / "resources").rglob("*")
                 if p.is_file() and "__pycache__" not in p.parts and not p.name.endswith(".pyc")]
    missing = [r for r in resources if f"decipher_resources/{r}" not in names]
    assert resources and missing == []
    for needed in ("transcription/semitic.tsv", "fonts/OFL.txt", "fonts/OFL-NotoSans-scripts.txt",
                   "sample/sample.cog", "sample-gothic/sample.toml", "priors/gothic-partial.csv",
                   "icons/decipher-workbench.svg"):
        assert f"decipher_resources/{needed}" in names
    for licence in ("LICENSE", "resources/fonts/OFL.txt", "resources/fonts/OFL-NotoSans-scripts.txt"):
        assert any(n.endswith(f".dist-info/licenses/{licence}") for n in names), licence
    assert not [n for n in names if n.startswith(("tests/", "benchmarks/"))]


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> dict:
    """A fresh venv with the wheel; returns its scripts folder and a clean environment."""
    home = tmp_path_factory.mktemp("fresh")
    env_dir = home / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    bindir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    python = bindir / ("python.exe" if os.name == "nt" else "python")
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP", "PYTHONSAFEPATH")}
    env.update(HOME=str(home / "home"), XDG_CONFIG_HOME=str(home / "config"), XDG_DATA_HOME=str(home / "data"),
               XDG_CACHE_HOME=str(home / "cache"), QT_QPA_PLATFORM="offscreen",
               PIP_DISABLE_PIP_VERSION_CHECK="1", PYTHONNOUSERSITE="1")
    purelib = _run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                   cwd=home, env=env).stdout.strip()
    # the test's own site-packages and any a .pth file of it adds (a venv that borrows another's
    # packages that way found no numpy in the fresh venv)
    deps = list(dict.fromkeys(p for p in [*site.getsitepackages(), *sys.path]
                              if p.endswith(("site-packages", "dist-packages")) and Path(p).is_dir()))
    Path(purelib, "_decipher_test_dependencies.pth").write_text("\n".join(deps) + "\n", encoding="utf-8")
    _run([sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index", "-q", wheel],
         cwd=home, env=env)
    empty = home / "empty"
    empty.mkdir()
    return {"bin": bindir, "python": python, "env": env, "cwd": empty, "purelib": Path(purelib)}


def _script(installed: dict, name: str) -> Path:
    path = installed["bin"] / (f"{name}.exe" if os.name == "nt" else name)
    assert path.exists(), f"the wheel installed no {name} script"
    return path


def test_the_installed_packages_come_from_the_wheel_not_the_source_tree(installed):
    out = _run([installed["python"], "-c",
                "import json, sys, engine, decipher_gui, decipher_resources;"
                "from engine.resources import resource;"
                "print(json.dumps([engine.__file__, decipher_gui.__file__, decipher_resources.__file__,"
                " str(resource('transcription', 'semitic.tsv')), sys.path]))"],
               cwd=installed["cwd"], env=installed["env"]).stdout
    *files, path = json.loads(out)
    purelib = installed["purelib"].resolve()
    for f in files:
        assert Path(f).resolve().is_relative_to(purelib), f
    assert not [p for p in path if p and Path(p).resolve() == ROOT.resolve()]


def test_a_new_user_session_from_an_empty_folder(installed):
    decipher, cwd, env = _script(installed, "decipher"), installed["cwd"], installed["env"]
    assert "decipher" in _run([decipher, "--version"], cwd=cwd, env=env).stdout
    listed = _run([decipher, "sample", "--out", "s"], cwd=cwd, env=env).stdout.split()
    assert str(Path("s") / "sample.cog") in listed
    cog = _run([decipher, "import-cog", "s/sample.cog", "--out", "d"], cwd=cwd, env=env)
    assert "160 lost words" in cog.stderr
    assert (cwd / "d" / "known.csv").read_text(encoding="utf-8").startswith("form,ipa")
    _run([decipher, "run", "--lost", "d/lost.csv", "--known", "d/known.csv", "--steps", "10", "--out", "r",
          "--quiet"], cwd=cwd, env=env)
    assert json.loads((cwd / "r" / "metrics.json").read_text(encoding="utf-8"))
    _run([decipher, "project", "new", "p.decipher"], cwd=cwd, env=env)
    _run([decipher, "project", "import", "p.decipher", "--lost", "d/lost.csv"], cwd=cwd, env=env)
    _run([decipher, "project", "import", "p.decipher", "--known", "d/known.csv"], cwd=cwd, env=env)
    (cwd / "words.txt").write_text("aqua\nrosa\n", encoding="utf-8")  # a second rule table from the wheel
    _run([decipher, "project", "import", "p.decipher", "--wordlist", "words.txt", "--system", "latin",
          "--language", "Latin"], cwd=cwd, env=env)
    _run([decipher, "run", "--project", "p.decipher", "--language", "known", "--steps", "10", "--quiet"],
         cwd=cwd, env=env)
    info = _run([decipher, "project", "info", "p.decipher"], cwd=cwd, env=env).stdout
    assert "corpora: 1" in info and "known languages: 2" in info
    runs = _run([decipher, "project", "runs", "p.decipher", "--json"], cwd=cwd, env=env).stdout
    assert [json.loads(line)["status"] for line in runs.splitlines() if line.strip()] == ["completed"]


def test_the_app_renders_the_bundled_sample_from_an_empty_folder(installed):
    pytest.importorskip("PySide6")
    gui, cwd, env = _script(installed, "decipher-gui"), installed["cwd"], installed["env"]
    assert "decipher-gui" in _run([gui, "--version"], cwd=cwd, env=env).stdout
    _run([gui, "--screenshot", "s.png", "--steps", "5"], cwd=cwd, env=env, timeout=600)
    assert (cwd / "s.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_readme_install_section_gives_the_commands_tested_here():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Install\n", 1)[1].split("\n## ", 1)[0]
    for command in ("decipher sample --out s", "decipher import-cog s/sample.cog --out d",
                    "decipher run --lost d/lost.csv --known d/known.csv --steps 10 --out r",
                    "decipher project new p.decipher", "decipher project runs p.decipher --json",
                    "QT_QPA_PLATFORM=offscreen decipher-gui --screenshot s.png --steps 5"):
        assert command in section, command
