"""``python -m decipher_gui``: the same as the ``decipher-gui`` command.

The import is absolute so that the file also works when run as a top-level script (PyInstaller,
``python decipher_gui/__main__.py``), where a relative import has no parent package.
"""

import sys

from decipher_gui.app import main

if __name__ == "__main__":
    sys.exit(main())
