"""The layers the code obeys (issue 53, item 5): every import of every module under engine/ and
decipher_gui/, read with ``ast`` (module level, inside functions, under ``TYPE_CHECKING``), makes
no circle between modules, goes to a module of the same stage or an earlier one in the table of
docs/architecture.md ("The layers as folders"), and the app reaches the project file only through
the package ``engine.project``, never one of its modules.

The table is read from the document itself, so the document and the code cannot drift apart: a
stage moved in the document moves here. Nothing here imports the modules it reads."""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "decipher_gui")
DOC = ROOT / "docs" / "architecture.md"


@dataclass(frozen=True)
class Import:
    source: str      # the importing module
    target: str      # the module it imports (the deepest one of ours the statement names)
    line: int


def module_files(root: Path = ROOT) -> dict[str, Path]:
    """Dotted module name -> file, for every module of the two packages (a package is its __init__)."""
    out = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def _ours(name: str, modules) -> str | None:
    """The deepest module of ours that ``name`` is or is inside (``engine.project.store.Project``
    -> ``engine.project.store``); None for anything else (the standard library, PySide6, torch)."""
    parts = name.split(".")
    while parts:
        if ".".join(parts) in modules:
            return ".".join(parts)
        parts.pop()
    return None


def imports_of(module: str, source: str, modules) -> list[Import]:
    """Every import statement of ``source`` anywhere in it, resolved to modules of ours.
    ``from P import name`` counts as importing the module ``P.name`` when there is one (a
    submodule), else ``P`` itself; relative imports are resolved against ``module``."""
    is_package = modules[module].name == "__init__.py"
    package = module if is_package else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(source, filename=str(modules[module]))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([node.module] if node.module else []))
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
        else:
            continue
        for name in names:
            target = _ours(name, modules)
            if target is not None and target != module:
                found.append(Import(module, target, node.lineno))
    return found


def import_graph(root: Path = ROOT) -> tuple[dict[str, Path], list[Import]]:
    modules = module_files(root)
    edges = []
    for module, path in modules.items():
        edges.extend(imports_of(module, path.read_text(encoding="utf-8"), modules))
    return modules, edges


def cycles(modules, edges: list[Import]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    graph: dict[str, list[str]] = {m: [] for m in modules}
    for e in edges:
        graph[e.source].append(e.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out = []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(graph[start]))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        m = stack.pop()
                        on_stack.discard(m)
                        component.append(m)
                        if m == node:
                            break
                    if len(component) > 1:
                        out.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = counter
                counter += 1
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(graph[child])))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return out


def documented_stages(text: str) -> dict[str, int]:
    """Path pattern -> stage, from the table under "## The layers as folders": each row's first
    cell is the stage, its second cell the folders (``engine/io/``), modules (``engine/io/text.py``)
    and top-level modules (``engine/*.py``) it holds, in backticks."""
    section = text.split("## The layers as folders", 1)[1].split("\n## ", 1)[0]
    stages = {}
    for row in re.finditer(r"^\| (\d+) \| ([^|]+) \|", section, re.M):
        for pattern in re.findall(r"`([^`]+)`", row.group(2)):
            assert pattern not in stages, f"{pattern} is in two stages of the table"
            stages[pattern] = int(row.group(1))
    return stages


def stage_of(module: str, path: Path, stages: dict[str, int], root: Path = ROOT) -> int:
    """The stage of the most specific pattern that holds ``module``'s file: the module itself,
    else its nearest folder, else (a module directly in a package) the package's ``*.py``."""
    rel = path.relative_to(root).as_posix()
    if rel in stages:
        return stages[rel]
    folder = path.parent.relative_to(root)
    if f"{folder.as_posix()}/*.py" in stages:
        return stages[f"{folder.as_posix()}/*.py"]
    while folder.parts:
        if f"{folder.as_posix()}/" in stages:
            return stages[f"{folder.as_posix()}/"]
        folder = folder.parent
    raise AssertionError(f"{rel}: in no stage of docs/architecture.md")


def against_the_order(modules, edges, stages, root: Path = ROOT) -> list[str]:
    stage = {m: stage_of(m, p, stages, root) for m, p in modules.items()}
    return [f"{modules[e.source].relative_to(root)}:{e.line}: {e.source} (stage {stage[e.source]}) imports "
            f"{e.target} (stage {stage[e.target]})" for e in edges if stage[e.target] > stage[e.source]]


def into_the_project_package(modules, edges, root: Path = ROOT) -> list[str]:
    return [f"{modules[e.source].relative_to(root)}:{e.line}: {e.source} imports {e.target}"
            for e in edges if e.source.startswith("decipher_gui") and e.target.startswith("engine.project.")]


@pytest.fixture(scope="module")
def graph():
    return import_graph()


def test_no_module_imports_itself_back_through_others(graph):
    modules, edges = graph
    assert cycles(modules, edges) == []


def test_every_import_goes_to_the_same_stage_or_an_earlier_one(graph):
    modules, edges = graph
    stages = documented_stages(DOC.read_text(encoding="utf-8"))
    assert against_the_order(modules, edges, stages) == []


def test_every_documented_path_exists():
    for pattern in documented_stages(DOC.read_text(encoding="utf-8")):
        target = ROOT / pattern.replace("*.py", "")
        assert target.exists(), f"docs/architecture.md names {pattern}, which is not in the code"


def test_the_app_reaches_the_project_file_through_the_package_only(graph):
    modules, edges = graph
    assert into_the_project_package(modules, edges) == []


# ---- the checks catch what they are for (a made-up tree, so the real one is not touched) ---------

def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in {"engine/__init__.py": "", "decipher_gui/__init__.py": "", **files}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def test_a_late_circle_a_later_stage_and_a_project_module_are_each_found(tmp_path):
    root = _tree(tmp_path, {
        "engine/io/__init__.py": "",
        "engine/io/a.py": "def f():\n    from engine.project import b\n",
        "engine/project/__init__.py": "from engine.project.b import g\n",
        "engine/project/b.py": "from engine.io.a import f\ndef g():\n    from ..io import a\n",
        "decipher_gui/view.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                "    from engine.project.b import g\nfrom engine.project import g\n",
    })
    modules, edges = import_graph(root)
    stages = documented_stages("## The layers as folders\n\n| stage | x | y |\n|---|---|---|\n"
                               "| 1 | `engine/*.py`, `engine/io/` | |\n| 2 | `engine/project/` | |\n"
                               "| 3 | `decipher_gui/` | |\n")
    assert cycles(modules, edges) == [["engine.io.a", "engine.project.b"]]
    assert against_the_order(modules, edges, stages, root) == [
        "engine/io/a.py:2: engine.io.a (stage 1) imports engine.project.b (stage 2)"]
    assert into_the_project_package(modules, edges, root) == [
        "decipher_gui/view.py:3: decipher_gui.view imports engine.project.b"]
