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
