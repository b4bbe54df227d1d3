"""``python -m decipher_gui``: the same as the ``decipher-gui`` command."""

import sys

from .app import main

sys.exit(main())
