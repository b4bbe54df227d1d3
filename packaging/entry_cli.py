"""Bundle entry point of ``decipher``: the command line.

PyInstaller runs this file as a top-level ``__main__`` module (no parent package), so it imports
the CLI absolutely.
"""

import multiprocessing
import sys

from engine.cli.main import main

if __name__ == "__main__":
    # sweep and seed workers are spawned from this executable: let them be workers, not a
    # second command line
    multiprocessing.freeze_support()
    sys.exit(main())
