"""Both cores for one cold build: the jobs split between this process and a forked child.

A build without a build cache (the command line's) resolves and draws its jobs one
after another; they share nothing but the loaded, checked context, and each job's
outputs are a function of it alone (``tests/test_watch.py`` shows a job drawn in a
forked child is byte for byte the one drawn here).  So, where ``os.fork`` exists and
a second core is idle, the first job (the decks) runs here while children forked after
the check stage, one per other job, resolve and draw them, and send back their
outputs, the lines they reported, or their problems.

Nothing changes for the user: the same files, byte for byte; every problem of every
output, in job order, and nothing drawn is kept when any job failed; progress lines
in job order.  A child that crashes or dies is not trusted: its jobs run again here,
so an unexpected error surfaces as it would have without the split.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .errors import InputError, Problem, combine
from .progress import advance, start

if TYPE_CHECKING:  # pragma: no cover
    from .context import Context, Output, Progress
    from .jobs import Job


def idle_core() -> bool:
    """A fork can run beside this process: more than one core and, on a machine that
    reports its load, one of them free (a child on a busy machine only adds work)."""
    cores = os.cpu_count() or 1
    if cores < 2 or not hasattr(os, "fork"):
        return False
    try:
        return os.getloadavg()[0] < cores - 0.5
    except (AttributeError, OSError):  # pragma: no cover - not on this platform
        return True


def _run(ctx: Context, found: list[Job]) -> tuple:
    """Resolve every job, then draw them: ``("ok", [(outputs, lines)] per job)``, or
    ``("input", problems)`` when a job failed to resolve."""
    plans: list[tuple[Job, Any]] = []
    problems: list[Problem] = []
    for job in found:
        try:
            plans.append((job, job.resolve(ctx)))
        except InputError as exc:
            problems.extend(exc.problems)
    if problems:
        return ("input", problems)
    drawn = []
    for job, plan in plans:
        lines: list[str] = []
        drawn.append((job.draw(ctx, plan, lines.append), lines))
    return ("ok", drawn)


def start_child(work: Callable[[], tuple]) -> tuple[int, int]:
    """Fork a child that runs ``work()`` and sends back its result, pickled (an
    unexpected exception as ``("crash", message, traceback)``); its pid and pipe."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child (coverage does not follow)
        try:
            os.close(read)
            try:
                payload = work()
            except BaseException as exc:
                import traceback
                payload = ("crash", f"{type(exc).__name__}: {exc}",
                           "".join(traceback.format_exception(exc)))
            data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(write, "wb") as pipe:
                pipe.write(data)
        finally:
            os._exit(0)
    os.close(write)
    return pid, read


def collect(pid: int, fd: int) -> tuple | None:
    """What a child of ``start_child`` sent; None if it died before it sent everything."""
    chunks = []
    with os.fdopen(fd, "rb") as pipe:
        while chunk := pipe.read(1 << 20):
            chunks.append(chunk)
    os.waitpid(pid, 0)
    try:
        return pickle.loads(b"".join(chunks))
    except Exception:
        return None


def render(ctx: Context, found: list[Job], progress: Progress = None) -> list[Output]:
    """Resolve and draw ``found``: the first job here, each other in a forked child of
    its own (the system shares the cores among them); every problem of every job
    together, in job order."""
    results = _split(found, lambda job: _run(ctx, [job]))
    outputs: list[Output] = []
    start(progress, len(found), "jobs")
    for result in results:
        for drawn, lines in result[1]:
            for line in lines:
                if progress is not None:
                    progress(line)
            outputs.extend(drawn)
            advance(progress)
    return outputs


def summaries(ctx: Context, found: list[Job], summarize: Callable[[Job, Any], Any]
              ) -> list[tuple[Job, Any]]:
    """``validate``'s resolve: each job's ``summarize``d plan, the first job here and each
    other in a forked child of its own (a plan may hold closures; its summary is small);
    every problem of every job together, in job order."""
    def one(job: Job) -> tuple:
        try:
            return ("ok", summarize(job, job.resolve(ctx)))
        except InputError as exc:
            return ("input", exc.problems)
    return [(job, result[1]) for job, result in zip(found, _split(found, one))]


def _split(found: list[Job], one: Callable[[Job], tuple]) -> list[tuple]:
    """``one(job)`` (``("ok", ...)`` or ``("input", problems)``) for the first job here
    and for each other in a forked child of its own, in job order; a crashed or dead
    child's job run again here; every problem of every job raised together."""
    children = [(job, *start_child(lambda job=job: one(job))) for job in found[1:]]
    results: list[tuple] = []
    try:
        results.append(one(found[0]))
    finally:
        for job, pid, fd in children:
            result = collect(pid, fd)
            crashed = result is None or result[0] == "crash"
            results.append(one(job) if crashed else result)
    problems = [p for result in results if result[0] == "input" for p in result[1]]
    if problems:
        raise InputError(combine(problems))
    return results
