"""``python -m eti_print``: the same command line as ``eti-print``."""

from .cli import run

run()
