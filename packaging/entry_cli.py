"""Bundle entry point of ``decipher``: the command line.

PyInstaller runs this file as a top-level ``__main__`` module (no parent package), so it imports
the CLI absolutely.
"""

import multiprocessing
import sys

if __name__ == "__main__":
    # first: in a bundle, a spawned child (the app's training run, a sweep worker) starts this
    # same executable, and freeze_support() turns it into that child instead of a second app
    multiprocessing.freeze_support()
    from engine.cli import main

    sys.exit(main())
