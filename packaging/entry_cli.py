"""Bundle entry point of ``decipher``: the command line.

PyInstaller runs this file as a top-level ``__main__`` module (no parent package), so it imports
the CLI absolutely.
"""

import sys

from engine.cli import main

if __name__ == "__main__":
    sys.exit(main())
