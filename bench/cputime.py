"""CPU seconds for the benches: this process's and those of its children it has waited
for (forked render workers, the processes a command starts)."""

from __future__ import annotations

import resource


def cpu() -> tuple[float, float]:
    """User + system CPU seconds of this process, and of its finished children."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime
