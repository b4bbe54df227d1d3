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
    if sys.argv[1:3] == ["-m", "decipher_gui.figure"]:
        # closeness.png: the engine has the figure drawn by ``sys.executable -m decipher_gui.figure``
        # (engine/closeness/plot.py, DRAWER; tests/gui/test_figure.py holds the two to the same words),
        # which in the bundle is this executable
        from decipher_gui.figure import main as draw_figure

        sys.exit(draw_figure(sys.argv[3:]))
    sys.exit(main())
