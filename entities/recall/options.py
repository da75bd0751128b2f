"""Thresholds and limits of the recall triggers: defaults from settings, per-request
overrides within documented bounds, and the switch that turns a trigger off."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from django.conf import settings

from kgsite.errors import DomainError, InvalidInput

from ..scopes import key_clean

TRIGGERS = ("session_start", "pre_check", "unknown", "finding", "domain", "query", "uncertainty")

# name -> (setting, lowest, highest): what a request may ask for.
BOUNDS: dict[str, tuple[str, float, float]] = {
    "similarity": ("KGSITE_RECALL_SIMILARITY", 0.5, 1.0),
    "unknown_similarity": ("KGSITE_RECALL_UNKNOWN_SIMILARITY", 0.5, 1.0),
    "relevance": ("KGSITE_RECALL_RELEVANCE", 0.0, 1.0),
    "min_confidence": ("KGSITE_RECALL_MIN_CONFIDENCE", 0.0, 1.0),
    "max_facts": ("KGSITE_RECALL_MAX_FACTS", 1, 20),
    "max_episodes": ("KGSITE_RECALL_MAX_EPISODES", 0, 10),
    "recent_sessions": ("KGSITE_RECALL_RECENT_SESSIONS", 0, 100),
    "budget_chars": ("KGSITE_RECALL_BUDGET_CHARS", 200, 20_000),
    "uncertainty": ("KGSITE_RECALL_UNCERTAINTY", 0.0, 1.0),
}
INTEGERS = {"max_facts", "max_episodes", "recent_sessions", "budget_chars"}


class TriggerDisabled(DomainError):
    status = 403
    code = "trigger_disabled"


@dataclass(frozen=True)
class RecallOptions:
    """One request's thresholds. ``ai_id`` narrows episodes (and facts) to one agent;
    ``recent_sessions`` (0: all) to the project's latest sessions."""

    similarity: float = 0.8
    unknown_similarity: float = 0.85
    relevance: float = 0.3
    min_confidence: float = 0.5
    max_facts: int = 5
    max_episodes: int = 3
    recent_sessions: int = 0
    budget_chars: int = 4000
    uncertainty: float = 0.5
    ai_id: str = ""
    # The options this request set itself (a cosine threshold it sets is a floor even
    # where the trained scorer decides).
    given: tuple[str, ...] = ()

    @classmethod
    def defaults(cls) -> RecallOptions:
        values = {name: getattr(settings, setting) for name, (setting, _lo, _hi) in BOUNDS.items()}
        return cls(**values)

    @classmethod
    def of(cls, overrides: dict[str, Any] | None = None) -> RecallOptions:
        """Defaults with the given overrides; one out of bounds is a 400 naming it."""
        options = cls.defaults()
        changes: dict[str, Any] = {}
        for name, value in (overrides or {}).items():
            if value is None:
                continue
            if name == "ai_id":
                changes[name] = _ai_id(value)
                continue
            if name not in BOUNDS:
                raise InvalidInput(f"unknown option {name}", field=name)
            _setting, low, high = BOUNDS[name]
            number = _number(value, name, integer=name in INTEGERS)
            if not low <= number <= high:
                raise InvalidInput(f"{name} must be between {low} and {high}", field=name)
            changes[name] = number
        return replace(options, **changes, given=tuple(sorted(changes)))

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "given"}


def _number(value: object, name: str, *, integer: bool) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInput(f"{name} must be a number", field=name)
    if integer and int(value) != value:
        raise InvalidInput(f"{name} must be a whole number", field=name)
    return int(value) if integer else float(value)


def _ai_id(value: object) -> str:
    """The agent to narrow to, as its facts and episodes store it (``key_clean``)."""
    return key_clean(value, field="ai_id")


def trigger_check(trigger: str) -> None:
    """Raise TriggerDisabled (403) when settings switched this trigger off."""
    if trigger in settings.KGSITE_RECALL_DISABLED:
        raise TriggerDisabled(
            f"the {trigger} recall trigger is turned off on this server", field=None
        )
