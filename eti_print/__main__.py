"""``python -m eti_print``: the same command line as ``eti-print``."""

import sys

from .cli import main

sys.exit(main())
