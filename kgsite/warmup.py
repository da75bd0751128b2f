"""Warm a web process before it serves its first request (issue 25: writes that keep up).

The first write of a process used to load torch and the sentence encoder, open the
vector index and read the pair model and the word lists inside a request: seconds, and
on SQLite before the slow work moved out of the transaction, seconds holding the write
lock. Apps register what their first request would load (``warmer`` in ``ready()``);
``kgsite.wsgi`` runs them at start when ``KGSITE_WARM_START`` is on (production), so a
server answers its first client as fast as its thousandth. A warmer that fails is
logged and skipped: the request that needs it loads it as before.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from django.db import connections

logger = logging.getLogger(__name__)

_warmers: list[tuple[str, Callable[[], object]]] = []


def warmer(name: str, fn: Callable[[], object]) -> None:
    """Run ``fn()`` when a web process starts (once per name)."""
    if all(known != name for known, _fn in _warmers):
        _warmers.append((name, fn))


def warm_up() -> dict[str, float]:
    """Run every warmer; returns seconds per warmer (failed ones left out)."""
    took: dict[str, float] = {}
    for name, fn in list(_warmers):
        start = time.perf_counter()
        try:
            fn()
        except Exception:  # noqa: BLE001 - a cold path is slower, never broken
            logger.warning("warm-up %s failed; its first request will load it", name, exc_info=True)
            continue
        took[name] = time.perf_counter() - start
    # The warm-up ran in the importing thread: its connections serve no request.
    connections.close_all()
    logger.info("warm start: %s", ", ".join(f"{n} {s:.1f} s" for n, s in took.items()))
    return took
