"""python -m engine.cli: the same as `decipher`."""

import sys

from engine.cli.main import main

sys.exit(main())
