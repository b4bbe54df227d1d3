"""The guard around every :class:`~engine.project.store.Project` call: one thread at a time, an
open project only, and SQLite errors turned into ProjectError."""

from __future__ import annotations

import functools
import sqlite3
from typing import Callable, TypeVar

from engine.errors import DecipherError, ProjectError
from engine.project import access

T = TypeVar("T")


def locked(method: Callable[..., T]) -> Callable[..., T]:
    """Serialise calls across threads, refuse calls on a closed project, and turn SQLite errors
    into ProjectError."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):  # self: a Project
        with self._lock:
            if self._conn is None:
                raise ProjectError(f"{self.path}: the project is closed")
            try:
                return method(self, *args, **kwargs)
            except DecipherError:
                raise
            except sqlite3.IntegrityError as e:
                raise ProjectError(f"{self.path}: {method.__name__}: refused by the file's "
                                   f"constraints ({e})") from None
            except sqlite3.Error as e:
                if access.overran(self._conn):
                    raise ProjectError(f"{self.path}: {method.__name__}: {access.overrun_message(self._conn)}") from None
                raise ProjectError(f"{self.path}: {method.__name__}: {e}") from None

    return wrapper
