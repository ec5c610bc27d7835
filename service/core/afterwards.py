"""Work a request sets going that its caller need not wait for.

A move that ends a game is stored, with its mark in ``FINISHING``, in the append's own round
trip.  What the end then sets going (its tournament's advance, ``game.finished`` webhooks, its
place in the listing) takes several more round trips, and every one of them, on a busy web
worker, waits its turn behind the requests in flight there: at 16 clients, the last move of a
game took some seven times a move's median to be answered (``docs/performance.md``).  The mark
makes that work safe to do after the answer: should the process die first, the workers do it
(:func:`service.core.appending.finish_pending`), and a listing read lists an end still pending
before it reads (:meth:`service.core.listing.Listing.list_pending_ends`).

The web layer collects such work for each request (:func:`collected`) and runs it once the answer
is sent, when the WSGI server closes the answer's body; anywhere else (the workers, the command
line, the core called directly) :func:`later` runs it at once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar, copy_context
from functools import partial

log = logging.getLogger("naipes.afterwards")

_PENDING: ContextVar[list[Callable[[], object]] | None] = ContextVar("naipes_afterwards", default=None)


def later(fn: Callable[..., object], *args) -> None:
    """Run ``fn(*args)`` once the current request is answered, or now outside a request that collects;
    in the context it was given in (the log lines it writes name the request's game)."""
    pending = _PENDING.get()
    if pending is None:
        fn(*args)
    else:
        pending.append(partial(copy_context().run, fn, *args))


@contextmanager
def collected() -> Iterator[list[Callable[[], object]]]:
    """Collect what :func:`later` is given inside the block (the work of one request)."""
    pending: list[Callable[[], object]] = []
    token = _PENDING.set(pending)
    try:
        yield pending
    finally:
        _PENDING.reset(token)


def run(pending: list[Callable[[], object]]) -> None:
    """Run and forget what was collected, each once whatever happens to the others (the work it
    drops on a failure is the workers' to do, from the marks the append left)."""
    while pending:
        work = pending.pop(0)
        try:
            work()
        except Exception:
            log.exception("work left for after an answer failed")
