"""Qt-free decipherment engine: data, phonology, model, training, evaluation, project store, CLI."""

import os

__version__ = "0.1.0"

# torch's OpenMP threads spin while they wait for work. When another process (or the app's GUI
# thread) holds a core, spinning threads steal it and a training step ran 10-20x slower here.
# Sleeping waits cost little when the machine is idle. Set before torch is first imported; an
# explicit OMP_WAIT_POLICY in the environment wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def _tune_malloc() -> None:
    """Keep freed tensor memory in the process instead of handing it back to the OS.

    glibc returns the top of the heap to the kernel whenever more than a (dynamically raised)
    trim threshold is free, and serves big blocks by mmap. A training step or an evaluation batch
    frees and reallocates the same tens of megabytes of DP rows every time, so the kernel zeroes
    and maps those pages again: a 3,000-step Gothic run spent 123 s of 557 in the kernel on 36
    million page faults. Serving blocks up to 32 MB from the heap and trimming only above 512 MB
    removed almost all of them (Gothic evaluation 44.7 -> 35.5 s). Only glibc has ``mallopt``; elsewhere, or
    when the user set any MALLOC_* variable or DECIPHER_MALLOC_TUNING=0, nothing changes.
    """
    import sys
    if not sys.platform.startswith("linux") or os.environ.get("DECIPHER_MALLOC_TUNING", "1") == "0":
        return
    if any(k.startswith("MALLOC_") for k in os.environ):
        return
    try:
        import ctypes
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
    mallopt(M_MMAP_THRESHOLD, 32 * 2**20)
    mallopt(M_TRIM_THRESHOLD, 512 * 2**20)


_tune_malloc()
