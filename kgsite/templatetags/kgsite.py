"""Template helpers the curator pages share."""

from __future__ import annotations

from datetime import timedelta

from django import template
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext

from kgsite.pages import state_seen

register = template.Library()

UNDO_TAG = "undo:"


@register.filter
def undo_entry(message) -> str:
    """The audit entry a flash message offers to undo ("undo:<id>" in its extra tags)."""
    for tag in (getattr(message, "extra_tags", "") or "").split():
        if tag.startswith(UNDO_TAG) and tag[len(UNDO_TAG) :].isdigit():
            return tag[len(UNDO_TAG) :]
    return ""


@register.filter
def duration(value) -> str:
    """A job's length as people say it: "8 s", "2 min 5 s", "1 h 3 min" (never
    "0 minutes" for a job that took seconds)."""
    if value is None:
        return ""
    seconds = int(value.total_seconds() if isinstance(value, timedelta) else value)
    seconds = max(seconds, 0)
    if seconds < 60:
        return ngettext("%(n)d second", "%(n)d seconds", seconds) % {"n": seconds}
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return _("%(m)d min %(s)d s") % {"m": minutes, "s": seconds}
    hours, minutes = divmod(minutes, 60)
    return _("%(h)d h %(m)d min") % {"h": hours, "m": minutes}


@register.simple_tag
def elapsed(start, end):
    """The time between two datetimes, as ``duration`` says it."""
    if not start or not end:
        return ""
    return duration(end - start)


@register.filter
def seen(obj, fields: str) -> str:
    """``state_seen`` of ``obj`` for the comma-separated ``fields``, for a row's button
    (a retraction) to say what its page showed."""
    return state_seen(obj, tuple(f.strip() for f in fields.split(",") if f.strip()))


@register.filter
def other_side(suggestion, entity):
    """The entity of a duplicate pair that is not ``entity``."""
    return suggestion.entity_b if suggestion.entity_a_id == entity.pk else suggestion.entity_a


# Labels of the models' choices the pages show (``{% translate obj.get_status_display %}``):
# listed here so makemessages finds them.
CHOICE_LABELS = (
    gettext_noop("Active"),
    gettext_noop("Superseded"),
    gettext_noop("Retracted"),
    gettext_noop("Queued"),
    gettext_noop("Running"),
    gettext_noop("Done"),
    gettext_noop("Failed"),
    gettext_noop("Ready"),
    gettext_noop("Ingesting"),
    gettext_noop("Date"),
    gettext_noop("Number"),
    gettext_noop("Name"),
    gettext_noop("Preference"),
    gettext_noop("Status"),
    gettext_noop("Negation"),
    gettext_noop("Llm"),
)
