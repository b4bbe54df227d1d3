"""Load torch's shared libraries without holding the GIL, before ``import torch``.

Importing torch maps several hundred MB of shared libraries. When Python's import machinery (or
ctypes.CDLL) does the dlopen, it holds the GIL for the whole call, so the GUI thread stalls for
~0.2 s on the CPU build (seconds on CUDA builds). Calling libc's ``dlopen`` through a ctypes
function pointer releases the GIL during the call; the later ``import torch`` then finds the
libraries already mapped. Any failure here is ignored: the real import reports real problems.

Not used by the app since its runs train in a child process (torch is never imported in the
app's process); kept for decipher_gui/trainer_factory.py's in-process path, which
benchmarks/gui_worker_check.py measures.
"""

from __future__ import annotations

import ctypes
import glob
import importlib.util
import os
import sys

RTLD_NOW = 0x2
RTLD_GLOBAL = 0x100 if sys.platform.startswith("linux") else 0x8

#: In dependency order; globs, relative to torch/lib (the CUDA ones exist only on CUDA builds).
LIBRARIES = ("libgomp*.so*", "libtorch_global_deps.*", "libc10.*", "libc10_cuda.*", "libtorch_cpu.*",
             "libtorch_cuda.*", "libtorch.*", "libtorch_python.*")

_done = False


def preload_torch_libraries() -> list[str]:
    """dlopen torch's libraries with the GIL released; returns the files loaded (once per process)."""
    global _done
    if _done or "torch" in sys.modules or not (sys.platform.startswith("linux") or sys.platform == "darwin"):
        return []
    _done = True
    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        return []
    if spec is None or spec.origin is None:
        return []
    root = os.path.dirname(spec.origin)
    lib = os.path.join(root, "lib")
    try:
        libc = ctypes.CDLL(None)
        dlopen = libc.dlopen
    except (OSError, AttributeError):
        return []
    dlopen.restype = ctypes.c_void_p
    dlopen.argtypes = [ctypes.c_char_p, ctypes.c_int]
    loaded = []
    paths = [p for pattern in LIBRARIES for p in sorted(glob.glob(os.path.join(lib, pattern)))]
    paths += sorted(glob.glob(os.path.join(root, "_C.*")))
    for path in paths:
        if os.path.isfile(path) and dlopen(os.fsencode(path), RTLD_NOW | RTLD_GLOBAL):
            loaded.append(path)
    return loaded


def prepare_cuda_context(device: int = 0) -> bool:
    """Initialise the CUDA driver and retain the device's primary context with the GIL released.

    torch does both (cuInit, cuDevicePrimaryCtxRetain) inside calls that hold the GIL, stalling
    the window for ~0.1-0.2 s; done here first through ctypes, torch later finds them done (the
    primary context is shared and reference-counted). Returns whether it worked; harmless if not.
    """
    names = ("libcuda.so.1", "libcuda.so") if sys.platform.startswith("linux") else ("nvcuda.dll",)
    for name in names:
        try:
            cuda = ctypes.CDLL(name)
            break
        except OSError:
            continue
    else:
        return False
    try:
        if cuda.cuInit(0) != 0:
            return False
        dev = ctypes.c_int()
        if cuda.cuDeviceGet(ctypes.byref(dev), device) != 0:
            return False
        ctx = ctypes.c_void_p()
        return cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev) == 0
    except (AttributeError, OSError):
        return False
