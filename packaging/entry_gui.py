"""Bundle entry point of ``decipher-gui``: the desktop app.

PyInstaller runs this file as a top-level ``__main__`` module (no parent package), so it imports
the app absolutely; ``decipher_gui/__main__.py`` is the ``python -m`` entry, not this one.
"""

import multiprocessing
import sys

from decipher_gui.app import main

if __name__ == "__main__":
    # a seed group's worker processes are spawned from this executable: let them be workers,
    # not a second window
    multiprocessing.freeze_support()
    sys.exit(main())
