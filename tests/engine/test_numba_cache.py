"""Issue 51, item 8: the numba kernels are cached on disk (the first run on a machine compiles them,
later processes load them), and where numba finds no folder it can write the engine still runs,
compiling in each process."""

from __future__ import annotations

import pytest

numba = pytest.importorskip("numba")


def test_every_kernel_is_cached_on_disk():
    from engine.model import kernels

    if not kernels.HAVE_NUMBA:
        pytest.skip("DECIPHER_KERNELS=torch: no compiled kernels")
    dispatchers = [v for v in vars(kernels).values() if isinstance(v, numba.core.registry.CPUDispatcher)]
    assert len(dispatchers) >= 15
    assert all(type(d._cache).__name__ == "FunctionCache" for d in dispatchers), \
        [d.__name__ for d in dispatchers if type(d._cache).__name__ != "FunctionCache"]


def test_no_writable_cache_folder_falls_back_to_compiling_in_the_process(monkeypatch):
    from numba.core import caching, config

    from engine.model.kernels import cached_njit

    monkeypatch.setattr(caching.CacheImpl, "_locator_classes", [])   # no folder numba may write
    monkeypatch.setattr(config, "CACHE_LOCATOR_CLASSES", "", raising=False)

    def twice(x):
        return 2 * x

    with pytest.raises(RuntimeError, match="no locator available"):
        numba.njit(cache=True)(twice)     # what a bare cache=True does there
    fallback = cached_njit()(twice)
    assert fallback(21) == 42 and type(fallback._cache).__name__ == "NullCache"


def test_every_kernel_reads_and_writes_its_cache_under_a_lock():
    from engine.model import kernels

    if not kernels.HAVE_NUMBA:
        pytest.skip("DECIPHER_KERNELS=torch: no compiled kernels")
    dispatchers = [v for v in vars(kernels).values() if isinstance(v, numba.core.registry.CPUDispatcher)]
    assert dispatchers and all(type(d._cache._cache_file) is kernels.LockedCacheFiles for d in dispatchers), \
        [d.__name__ for d in dispatchers if type(d._cache._cache_file) is not kernels.LockedCacheFiles]


# One of two processes that compile one signature each of the same cached function at once. Their
# cache writes are held at the points where numba's unlocked save interleaves badly (each read the
# index before the other wrote it; `a` writes the index first and its data last), each hold ending
# when the other process has got there or after HOLD_S (it never gets there while `a` holds the lock).
SAVER = """
import sys, time
from pathlib import Path

from numba.core import caching

role, flags = sys.argv[1], Path(sys.argv[2])
other = "b" if role == "a" else "a"
HOLD_S = 2.0


def flag(name):
    (flags / name).touch()


def wait_for(name, seconds=HOLD_S):
    end = time.monotonic() + seconds
    while not (flags / name).exists() and time.monotonic() < end:
        time.sleep(0.01)


save_index, save_data = caching.IndexDataCacheFile._save_index, caching.IndexDataCacheFile._save_data


def held_save_index(self, overloads):
    flag(role + "-read-index")
    wait_for(other + "-read-index")
    if role == "b":
        wait_for("a-wrote-index")
    save_index(self, overloads)
    flag(role + "-wrote-index")


def held_save_data(self, name, data):
    if role == "a":
        wait_for("b-wrote-data")
    save_data(self, name, data)
    flag(role + "-wrote-data")


caching.IndexDataCacheFile._save_index = held_save_index
caching.IndexDataCacheFile._save_data = held_save_data
from engine.model import kernels

kernels.CACHE_LOCK_S = 600   # the holds above, however slow the box, never end a wait for the lock
sys.path.insert(0, str(flags.parent))
import twice

flag(role + "-ready")
wait_for(other + "-ready", 300)   # both compile at once
print(twice.twice(7 if role == "a" else 7.5))
"""


def test_two_processes_caching_two_signatures_at_once_leave_each_its_own_code(tmp_path):
    """numba's save is unlocked: two processes saving an int64 and a float64 version of one function
    at once could leave the index naming the float64 file with the int64 code in it, and a later
    process ran that code for a float (twice(7.5) was 14; numba issue #4807). Under the lock each
    signature is saved whole and a later process loads both, right."""
    import os
    import subprocess
    import sys

    from tests.conftest import ROOT

    (tmp_path / "twice.py").write_text("from engine.model.kernels import cached_njit\n\n\n@cached_njit()\n"
                                       "def twice(x):\n    return x * 2\n", encoding="utf-8")
    flags = tmp_path / "flags"
    flags.mkdir()
    (tmp_path / "saver.py").write_text(SAVER, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "DECIPHER_NUMBA_CACHE")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    savers = [subprocess.Popen([sys.executable, str(tmp_path / "saver.py"), role, str(flags)], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for role in "ab"]
    outs = [p.communicate(timeout=600) for p in savers]   # a hang guard only
    assert [p.returncode for p in savers] == [0, 0], [err for _, err in outs]
    assert [out.strip() for out, _ in outs] == ["14", "15.0"]
    check = ("import sys; sys.path.insert(0, sys.argv[1]); import twice\n"
             "print(twice.twice(7.5), twice.twice(7), sorted(map(str, twice.twice.stats.cache_hits)))")
    done = subprocess.run([sys.executable, "-c", check, str(tmp_path)], env=env, capture_output=True, text=True,
                          timeout=600, check=True)
    assert done.stdout.split() == ["15.0", "14", "['(float64,)',", "'(int64,)']"], done.stdout


def test_a_lock_held_elsewhere_past_the_wait_means_compiling_without_the_cache(tmp_path, monkeypatch):
    """A lock nobody releases (one left behind where the file system has no real locks) costs one
    wait, then the process compiles without the cache: never a wrong kernel, never a wait per kernel."""
    from filelock import FileLock

    from engine.model import kernels

    if not kernels.HAVE_NUMBA:
        pytest.skip("DECIPHER_KERNELS=torch: no compiled kernels")
    monkeypatch.setattr(kernels, "CACHE_LOCK_S", 0.2)
    monkeypatch.setattr(kernels.LockedCacheFiles, "timed_out", False)
    files = kernels.LockedCacheFiles(str(tmp_path), "twice-1.py311", "stamp")
    files.save("key", b"saved")
    assert files.load("key") == b"saved" and files.load("other key") is None
    elsewhere = FileLock(str(tmp_path / "decipher-numba-cache.lock"), thread_local=False)
    import threading

    holder = threading.Thread(target=elsewhere.acquire)   # filelock: another thread is as good as another process
    holder.start()
    holder.join()
    try:
        assert files.load("key") is None and kernels.LockedCacheFiles.timed_out
        files.save("new key", b"new")
        assert files._load_index() == {"key": "twice-1.py311.1.nbc"}, "nothing written without the lock"
    finally:
        elsewhere.release(force=True)
