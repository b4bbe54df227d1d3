"""``python -m engine``: the same as the ``decipher`` command (``prog`` is set so that help and
errors name ``decipher``, not ``__main__.py``)."""

import sys

from engine.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
