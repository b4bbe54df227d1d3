"""A guard against a reference-counting bug of PySide6 6.12.0 on Python < 3.12.

There, emitting a ``Signal(object)``, ``QGraphicsScene.removeItem`` and Python overrides of some
virtual methods release one reference too many to ``True`` or ``None`` (measured: 500 emits take
500 from ``True``'s count; PySide6 6.9-6.11 do not). After enough of them the interpreter aborts
with "Fatal Python error: bool_dealloc" or "none_dealloc", usually at exit, sometimes while the
user works. Python 3.12 made these objects immortal, so the bug is harmless there; for older
Pythons we give them a reference count so large that no session can use it up, which is what
3.12 does. Better: Python >= 3.12, or PySide6 != 6.12.0 (see the report to the lead).
"""

from __future__ import annotations

import ctypes
import sys

_MARGIN = 1 << 40


def protect_singletons() -> bool:
    """Make None, True and False effectively immortal on CPython < 3.12 (no-op elsewhere)."""
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython" or hasattr(sys, "gettotalrefcount"):
        return False  # immortal already / another layout / a debug build with another header
    for obj in (None, True, False):
        refcount = ctypes.c_ssize_t.from_address(id(obj))  # ob_refcnt is the first field
        if refcount.value < _MARGIN:
            refcount.value += _MARGIN
    return True
