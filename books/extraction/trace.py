"""Which step of extraction gave a name its type, recorded while a trace is open.

``train_extraction --cv --misses`` opens one around each ingestion and says, of each
mistyped key, which step typed it: the syntactic rules (and which), the written form,
another book's stored entity, the type model, the structure or spaCy's NER. Outside a
trace nothing is recorded (ingestion pays one context-variable read per name).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

# name as given -> {type: the step that gave it (the first to)}
TypeTrace = dict[str, dict[str, str]]

_TRACE: ContextVar[TypeTrace | None] = ContextVar("type_trace", default=None)


@contextmanager
def types_traced() -> Iterator[TypeTrace]:
    trace: TypeTrace = {}
    token = _TRACE.set(trace)
    try:
        yield trace
    finally:
        _TRACE.reset(token)


def type_traced(name: str, type_: str, step: str) -> None:
    """Record that ``step`` typed ``name`` as ``type_`` (when a trace is open)."""
    trace = _TRACE.get()
    if trace is not None:
        trace.setdefault(name, {}).setdefault(type_, step)
