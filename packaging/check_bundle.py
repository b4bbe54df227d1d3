"""Smoke check of a built bundle (``make package-check``), headless and outside the source tree.

    python packaging/check_bundle.py dist/decipher-workbench [--out DIR] [--startup-runs N]

Runs the bundle's own executables with a clean environment (no PYTHONPATH, a fresh HOME and XDG
folders, the working directory outside the repository) and checks that:

1. the layout is right: decipher-gui and decipher at the top, resources and dependency data
   inside, no CUDA libraries and no test suites;
2. ``decipher`` makes a project, imports a corpus and a word list transcribed by epitran
   (spa-Latn), trains 5 steps (``decipher run``), and ``decipher project info`` opens the project;
   the project file carries the application id the shared-mime-info magic looks for;
3. ``decipher-gui --screenshot OUT.png --steps 5`` writes a picture that is not blank, both on
   the sample project and on the project made in 2; its run completes in a child process the
   frozen app spawned (``multiprocessing.freeze_support``), the app starts no other copy of
   itself (a second window) besides multiprocessing's resource tracker, and nothing it started
   is left running after it exits (Linux: watched through /proc).
4. with --startup-runs N: the time from launching decipher-gui to its window being shown
   (``--exit-when-shown``), for the bundle and, in turn, for the source tree
   (``python -m decipher_gui`` with this interpreter): one first launch (fresh profile) and N
   more; prints each and the medians.

Exit status 0 when every check passes, 1 otherwise. The screenshots stay in --out.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SMOKE = HERE / "smoke"
APPLICATION_ID = b"DCPH"  # engine/project/schema.py APPLICATION_ID, big-endian at offset 68
CUDA_PREFIXES = ("libcudart", "libcublas", "libcudnn", "libnccl", "libcusparse", "libcufft", "libcurand",
                 "libcusolver", "libnvrtc", "libnvJitLink", "libtorch_cuda", "libc10_cuda")
SCREEN_SIZE = (1600, 1000)


class CheckFailed(Exception):
    pass


def clean_env(home: Path) -> dict[str, str]:
    """The environment a user's desktop would give: no Python settings, a fresh profile, no display."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHON", "QT_", "XDG_", "VIRTUAL_ENV", "DECIPHER_", "LC_", "LANG"))
           and k not in ("DISPLAY", "WAYLAND_DISPLAY", "LD_LIBRARY_PATH")}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), XDG_DATA_HOME=str(home / ".local/share"),
               XDG_CACHE_HOME=str(home / ".cache"), XDG_RUNTIME_DIR=str(home / "runtime"),
               QT_QPA_PLATFORM="offscreen", LANG="C.UTF-8")
    (home / "runtime").mkdir(parents=True, exist_ok=True, mode=0o700)
    return env


def run(cmd: list[str], env: dict[str, str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    print("$ " + " ".join(str(c) for c in cmd), flush=True)
    t0 = time.perf_counter()
    proc = subprocess.run([str(c) for c in cmd], env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)
    out = (proc.stdout + proc.stderr).strip()
    for line in out.splitlines()[-12:]:
        print("    " + line)
    print(f"    (exit {proc.returncode}, {time.perf_counter() - t0:.1f} s)", flush=True)
    if proc.returncode != 0:
        raise CheckFailed(f"{cmd[0]} {cmd[1] if len(cmd) > 1 else ''} exited with {proc.returncode}")
    return proc


def check_layout(bundle: Path) -> None:
    for exe in ("decipher-gui", "decipher"):
        if not os.access(bundle / exe, os.X_OK):
            raise CheckFailed(f"{bundle / exe} is missing or not executable")
    internal = bundle / "_internal"
    needed = ["decipher_resources/__init__.py", "decipher_resources/fonts/OFL.txt",
              "decipher_resources/icons/decipher-workbench.svg",
              "decipher_resources/sample/ATTRIBUTION.md", "decipher_resources/sample/sample.toml",
              "decipher_resources/transcription/semitic.tsv", "epitran/data/map/spa-Latn.csv",
              "panphon/data/ipa_all.csv", "jamo/data", "ipapy/data"]
    missing = [n for n in needed if not (internal / n).exists()]
    if missing:
        raise CheckFailed(f"missing from {internal}: {', '.join(missing)}")
    cuda = [p.name for p in internal.rglob("*.so*") if p.name.startswith(CUDA_PREFIXES)]
    if cuda:
        raise CheckFailed(f"CUDA libraries in a CPU bundle: {', '.join(sorted(cuda)[:5])}")
    tests = [str(p.relative_to(internal)) for p in internal.rglob("tests") if p.is_dir()]
    tests += [d for d in ("torch/test", "torch/bin/protoc", "torch/bin/TCPStoreTest") if (internal / d).exists()]
    if not (internal / "torch" / "bin" / "torch_shm_manager").is_file():
        raise CheckFailed("torch/bin/torch_shm_manager is missing (import torch checks for it)")
    if tests:
        raise CheckFailed(f"test suites in the bundle: {', '.join(sorted(tests)[:5])}")
    print(f"layout: ok ({bundle_size(bundle) / 2**20:.0f} MiB in {bundle})")


def bundle_size(bundle: Path) -> int:
    return sum(p.stat().st_size for p in bundle.rglob("*") if p.is_file() and not p.is_symlink())


def picture_stats(path: Path) -> tuple[int, int, float, int]:
    """(width, height, standard deviation of grey levels, number of distinct colours) of a PNG."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # only reads pictures; no display needed
    from PySide6.QtGui import QGuiApplication, QImage

    _app = QGuiApplication.instance() or QGuiApplication(["check"])  # noqa: F841 (image plugins)
    image = QImage(str(path))
    if image.isNull():
        raise CheckFailed(f"{path}: not a readable picture")
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    w, h = image.width(), image.height()
    greys, colours = [], set()
    for y in range(0, h, 4):
        for x in range(0, w, 4):
            rgb = image.pixel(x, y) & 0xFFFFFF
            colours.add(rgb)
            greys.append((rgb >> 16 & 0xFF) * 0.299 + (rgb >> 8 & 0xFF) * 0.587 + (rgb & 0xFF) * 0.114)
    return w, h, statistics.pstdev(greys), len(colours)


def _processes_of(exe: Path) -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, command line) of every running process of ``exe`` (Linux /proc)."""
    found: dict[int, tuple[int, str]] = {}
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            if Path(os.readlink(entry / "exe")) == exe:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                found[int(entry.name)] = (ppid, (entry / "cmdline").read_bytes().replace(b"\0", b" ")
                                          .decode(errors="replace").strip())
        except (OSError, ValueError, IndexError):  # not ours to read, or it ended meanwhile
            continue
    return found


def _descendants(root: int, table: dict[int, tuple[int, str]]) -> dict[int, str]:
    out: dict[int, str] = {}
    grew = True
    while grew:
        grew = False
        for pid, (ppid, line) in table.items():
            if pid not in out and (ppid == root or ppid in out):
                out[pid] = line
                grew = True
    return out


def run_watched(cmd: list, env, cwd, timeout: float = 900,
                linger_s: float = 15) -> tuple[subprocess.CompletedProcess, dict[int, str]]:
    """Run ``cmd`` like :func:`run`, noting every process of the same executable it starts
    (pid -> command line) while it runs; fails if any of them is still running ``linger_s``
    after it ended."""
    exe = Path(cmd[0]).resolve()
    print("$ " + " ".join(str(c) for c in cmd), flush=True)
    t0 = time.perf_counter()
    started: dict[int, str] = {}
    with tempfile.TemporaryFile("w+") as out:
        proc = subprocess.Popen([str(c) for c in cmd], env=env, cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                                text=True)
        while proc.poll() is None:
            started.update(_descendants(proc.pid, _processes_of(exe)))
            if time.perf_counter() - t0 > timeout:
                proc.kill()
                raise CheckFailed(f"{cmd[0]} did not end within {timeout:.0f} s")
            time.sleep(0.2)
        out.seek(0)
        text = out.read()
    lingering: dict[int, str] = {}
    for _ in range(max(1, int(linger_s / 0.2))):  # what the app started must end with it
        alive = _processes_of(exe)
        lingering = {pid: line for pid, line in started.items() if pid in alive}
        if not lingering:
            break
        time.sleep(0.2)
    for line in text.strip().splitlines()[-12:]:
        print("    " + line)
    print(f"    (exit {proc.returncode}, {time.perf_counter() - t0:.1f} s)", flush=True)
    if proc.returncode != 0:
        raise CheckFailed(f"{cmd[0]} {cmd[1] if len(cmd) > 1 else ''} exited with {proc.returncode}")
    if lingering:
        raise CheckFailed(f"still running after {cmd[0]} ended: {lingering}")
    return subprocess.CompletedProcess(cmd, proc.returncode, text, ""), started


def check_run_process(app_output: str, started: dict[int, str]) -> None:
    """The GUI's run trained in a child process of the frozen app (multiprocessing spawn through
    freeze_support), and nothing else was started from the executable: no second app, no window."""
    runs = {pid: line for pid, line in started.items() if "--multiprocessing-fork" in line}
    trackers = {pid: line for pid, line in started.items() if "multiprocessing.resource_tracker" in line}
    others = {pid: line for pid, line in started.items() if pid not in runs and pid not in trackers}
    said = [line for line in app_output.splitlines() if line.startswith("decipher-gui: run ")]
    if others:
        raise CheckFailed(f"the app started other copies of itself (a second app?): {others}")
    if not said or not said[-1].startswith("decipher-gui: run completed"):
        raise CheckFailed(f"the screenshot's run did not complete: {said or 'no run line'}")
    child = said[-1].partition("trained in process ")[2].split(" ", 1)[0]
    if not child.isdigit():  # "?" or "None": the app did not see its run's process start
        raise CheckFailed(f"the app did not say which process trained the run: {said[-1]!r}")
    if not runs or int(child) not in runs:
        raise CheckFailed(f"the run's process {child} was not a spawned child of the app (seen: {started})")
    print(f"run process: ok (trained in spawned child {child}; the app also started "
          f"{len(trackers)} resource tracker(s), nothing else; none left running)")


def check_screenshot(bundle: Path, out_png: Path, env, cwd, project: Path | None = None) -> None:
    cmd = [bundle / "decipher-gui", "--screenshot", out_png, "--steps", "5"]
    proc, started = run_watched(cmd + ([project] if project else []), env, cwd)
    if sys.platform.startswith("linux"):
        check_run_process(proc.stdout, started)
    if not out_png.is_file():
        raise CheckFailed(f"no picture written at {out_png}")
    w, h, spread, colours = picture_stats(out_png)
    print(f"screenshot: {out_png} {w}x{h}, grey-level std {spread:.1f}, {colours} colours")
    if (w, h) != SCREEN_SIZE or spread < 10 or colours < 50:
        raise CheckFailed(f"{out_png} looks blank or wrong ({w}x{h}, std {spread:.1f}, {colours} colours)")


def check_cli(bundle: Path, work: Path, env) -> Path:
    decipher = bundle / "decipher"
    project = work / "smoke.decipher"
    run([decipher, "project", "new", project], env, work)
    run([decipher, "project", "import", project, "--lost", SMOKE / "lost.csv", "--name", "smoke"], env, work)
    run([decipher, "project", "import", project, "--wordlist", SMOKE / "spanish_words.txt",
         "--system", "spa-Latn", "--name", "Spanish"], env, work)
    run([decipher, "run", "--project", project, "--steps", "5", "--quiet"], env, work)
    info = run([decipher, "project", "info", project], env, work).stdout
    for expected in ("10 inscriptions", "wordlist:spa-Latn", "runs: 1 completed"):
        if expected not in info:
            raise CheckFailed(f"decipher project info does not say {expected!r}")
    with open(project, "rb") as f:
        header = f.read(72)
    if not header.startswith(b"SQLite format 3\0") or header[68:72] != APPLICATION_ID:
        raise CheckFailed(f"{project}: bytes 68-71 are {header[68:72]!r}, not {APPLICATION_ID!r}")
    print(f"project: ok (SQLite header, application id {APPLICATION_ID.decode()} at offset 68)")
    return project


def launch_to_shown(cmd: list[str], env, cwd) -> tuple[float, str]:
    """Seconds from launching ``cmd`` to its window shown (it prints SHOWN <epoch> … and quits)."""
    t0 = time.time()
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=300)
    shown = [line for line in proc.stdout.splitlines() if line.startswith("SHOWN ")]
    if proc.returncode != 0 or not shown:
        raise CheckFailed(f"{' '.join(cmd)} failed (exit {proc.returncode}): {proc.stderr.strip()[-500:]}")
    return float(shown[0].split()[1]) - t0, shown[0].split(" ", 2)[2]


def check_desktop_integration(bundle: Path, work: Path, env) -> None:
    """install-linux.sh puts the menu entry, icons, mime type and metainfo under XDG_DATA_HOME."""
    app_id = "io.github.decipher_workbench.DecipherWorkbench"
    data = work / "xdg-data"
    env = dict(env, XDG_DATA_HOME=str(data))
    run(["sh", bundle / "install-linux.sh"], env, work)
    desktop = data / "applications" / f"{app_id}.desktop"
    installed = [desktop, data / "metainfo" / f"{app_id}.metainfo.xml", data / "mime" / "packages" / f"{app_id}.xml",
                 data / "icons" / "hicolor" / "256x256" / "apps" / f"{app_id}.png",
                 data / "icons" / "hicolor" / "scalable" / "apps" / f"{app_id}.svg"]
    if shutil.which("update-mime-database"):
        installed.append(data / "mime" / "mime.cache")
    missing = [str(p) for p in installed if not p.is_file()]
    if missing:
        raise CheckFailed(f"install-linux.sh did not install {', '.join(missing)}")
    if f'Exec="{bundle / "decipher-gui"}" %f' not in desktop.read_text(encoding="utf-8"):
        raise CheckFailed(f"{desktop}: Exec does not point at {bundle / 'decipher-gui'}")
    if shutil.which("desktop-file-validate"):
        run(["desktop-file-validate", desktop], env, work)
    run(["sh", bundle / "install-linux.sh", "--uninstall"], env, work)
    left = [str(p) for p in installed[:5] if p.exists()]
    if left:
        raise CheckFailed(f"install-linux.sh --uninstall left {', '.join(left)}")
    print("desktop integration: ok (installed, validated, uninstalled)")


def startup_times(bundle: Path, runs: int, work: Path) -> dict[str, list[float]]:
    """Launch to shown window, the bundle and the source tree (``python -m decipher_gui``) in turn,
    each with its own fresh profile; the first launch of each makes the sample project."""
    commands = {"bundle": [str(bundle / "decipher-gui"), "--exit-when-shown"],
                "source": [sys.executable, "-m", "decipher_gui", "--exit-when-shown"]}
    envs = {name: clean_env(work / f"startup-{name}") for name in commands}
    envs["source"]["PYTHONPATH"] = str(HERE.parent)
    times: dict[str, list[float]] = {name: [] for name in commands}
    for i in range(runs + 1):
        for name, cmd in commands.items():
            seconds, detail = launch_to_shown(cmd, envs[name], work)
            times[name].append(seconds)
            print(f"start-up {name} {i}: launch to shown window {seconds:.2f} s ({detail})", flush=True)
    return times


def check_closeness_figure(bundle: Path, work: Path, out: Path, env) -> None:
    """``decipher closeness`` in the bundle writes closeness.png: the engine has the figure drawn by
    ``sys.executable -m decipher_gui.figure``, which in the bundle is the ``decipher`` executable
    itself (packaging/entry_cli.py dispatches those arguments)."""
    samples = bundle / "_internal" / "decipher_resources"
    folder = work / "closeness"
    proc = run([bundle / "decipher", "closeness", "--lost", samples / "sample" / "lost.csv", "--known",
                f"sample={samples / 'sample' / 'known.csv'}", f"gothic={samples / 'sample-gothic' / 'known.csv'}",
                "--seeds", "0", "--null", "1", "--steps", "5", "--workers", "1", "--out", folder], env, work)
    png = folder / "closeness.png"
    if not png.is_file() or "closeness.png not drawn" in proc.stderr:
        raise CheckFailed(f"decipher closeness wrote no closeness.png: {proc.stderr.strip()[-500:]}")
    shutil.copy(png, out / "bundle-closeness.png")
    w, h, spread, colours = picture_stats(png)
    print(f"closeness figure: {out / 'bundle-closeness.png'} {w}x{h}, grey-level std {spread:.1f}, {colours} colours")
    if (w, h) != (1000, 600) or spread < 5 or colours < 20:
        raise CheckFailed(f"{png} looks blank or wrong ({w}x{h}, std {spread:.1f}, {colours} colours)")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("bundle", type=Path, help="the bundle folder, e.g. dist/decipher-workbench")
    p.add_argument("--out", type=Path, default=Path("build/package-check"), help="where the screenshots go")
    p.add_argument("--startup-runs", type=int, default=0, help="also time N launches to a shown window")
    args = p.parse_args(argv)
    bundle = args.bundle.resolve()
    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out.resolve()
    work = Path(tempfile.mkdtemp(prefix="decipher-package-check-"))
    try:
        env = clean_env(work / "home")
        check_layout(bundle)
        project = check_cli(bundle, work, env)
        check_closeness_figure(bundle, work, out, env)
        if sys.platform.startswith("linux"):
            check_desktop_integration(bundle, work, env)
        check_screenshot(bundle, out / "bundle-sample.png", env, work)
        check_screenshot(bundle, out / "bundle-project.png", env, work, project)
        if args.startup_runs:
            times = startup_times(bundle, args.startup_runs, work)
            for name, seconds in times.items():
                later = seconds[1:]
                print(f"start-up {name}: first launch (fresh profile, makes the sample project) "
                      f"{seconds[0]:.2f} s; later launches median {statistics.median(later):.2f} s "
                      f"(min {min(later):.2f}, max {max(later):.2f}, n={len(later)})")
            ratio = statistics.median(times["bundle"][1:]) / statistics.median(times["source"][1:])
            print(f"start-up: bundle / source tree = {ratio:.2f}; load average {os.getloadavg()[0]:.1f}")
    except (CheckFailed, subprocess.TimeoutExpired) as e:
        print(f"package-check FAILED: {e}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("package-check: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
