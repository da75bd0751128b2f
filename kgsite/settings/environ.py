"""Reading settings from the environment: a value that cannot be used stops the site with
one line naming the variable (``manage.py`` prints it and exits 1)."""

from __future__ import annotations

import json
import math
import os
import re

import dj_database_url
from django.core.exceptions import ImproperlyConfigured


def env(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off", ""})


def _misread(name: str, kind: str, value: str) -> ImproperlyConfigured:
    """One line naming the variable: a typo in the environment must not start the site
    with a value nobody chose, nor stop it with a bare ``ValueError``."""
    return ImproperlyConfigured(f"{name} must be {kind}, not {value!r}")


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    word = value.strip().lower()
    if word not in _TRUE | _FALSE:
        raise _misread(name, "one of 1, true, yes, on, 0, false, no, off", value)
    return word in _TRUE


def _at_least(name: str, number, low, value: str, high=None):
    """``number`` unless it is below ``low`` or above ``high``: a size, a count or a
    duration of 0 or less starts the site and fails later, in every job or request that
    uses it; a similarity of 80 (a percentage for a cosine) silently matches nothing."""
    if high is not None and low is not None and not low <= number <= high:
        raise _misread(name, f"between {low} and {high}", value)
    if high is not None and number > high:
        raise _misread(name, f"at most {high}", value)
    if low is not None and number < low:
        raise _misread(name, f"at least {low}", value)
    return number


def env_float(
    name: str, default: float, *, low: float | None = None, high: float | None = None
) -> float:
    value = os.environ.get(name)
    if value is None:
        return default
    try:
        number = float(value)
    except ValueError:
        raise _misread(name, "a number", value) from None
    if not math.isfinite(number):  # 'nan', 'inf': every comparison or duration fails later
        raise _misread(name, "a finite number", value)
    return _at_least(name, number, low, value, high)


def env_int(name: str, default: int, *, low: int | None = None, high: int | None = None) -> int:
    value = os.environ.get(name)
    if value is None:
        return default
    try:
        number = int(value)
    except ValueError:
        raise _misread(name, "a whole number", value) from None
    return _at_least(name, number, low, value, high)


def env_int_above(name: str, default: int, other: str, bound: int) -> int:
    """A whole number above another setting's value ``bound`` (django-q2's retry above
    its timeout: a task still running at the retry is handed to a second worker)."""
    number = env_int(name, default)
    if number <= bound:
        raise _misread(name, f"above {other} ({bound})", os.environ.get(name, str(default)))
    return number


def env_required(name: str, what: str) -> str:
    """A variable the profile cannot run without: unset or blank is one line saying
    what to set (a bare ``KeyError`` traceback named no remedy)."""
    value = os.environ.get(name, "")
    if not value.strip():
        raise ImproperlyConfigured(f"{name} must be set: {what}")
    return value


def database_from_url(url: str, **options) -> dict:
    """``DATABASE_URL`` read by dj-database-url; an unknown scheme or a malformed URL is
    one line naming the variable (it was dj-database-url's traceback)."""
    try:
        return dj_database_url.parse(url, **options)
    except Exception:  # UnknownSchemeError, ValueError (a port that is no number, ...)
        shown = re.sub(r"(//[^/:@]*:)[^/@]*@", r"\1***@", url)  # no password shown
        raise ImproperlyConfigured(
            "DATABASE_URL must be a database URL such as postgres://user:password@host/name "
            f"or sqlite:////path/to/kgsite.sqlite3, not {shown!r}"
        ) from None


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    """One of ``choices`` (any case, spaces around ignored; blank is the default): another
    word started the site, which then failed on each upload or search that used it."""
    value = os.environ.get(name)
    if value is None or not value.strip():
        return default
    word = value.strip().lower()
    if word not in choices:
        raise _misread(name, f"one of {', '.join(choices)}", value)
    return word


def env_choices(name: str, choices: tuple[str, ...]) -> list[str]:
    """A comma list of some of ``choices`` (any case, spaces around ignored); a word not
    among them is one line naming the variable: a typo ("pre-check") switched nothing
    off, silently."""
    words = [w.strip().lower() for w in os.environ.get(name, "").split(",") if w.strip()]
    unknown = [w for w in words if w not in choices]
    if unknown:
        raise _misread(name, f"a comma list of {', '.join(choices)}", unknown[0])
    return words


def env_word_lists(name: str, default: dict[str, list[str]]) -> dict[str, list[str]]:
    """A JSON object of word lists (``{"auth": ["login", "token"]}``); anything else is one
    line naming the variable (it was a JSON traceback, or a 500 on the first request)."""
    value = os.environ.get(name, "")
    if not value.strip():
        return default
    try:
        table = json.loads(value)
    except ValueError:
        raise _misread(name, 'a JSON object of word lists ({"auth": ["login"]})', value) from None
    if not isinstance(table, dict) or not all(
        isinstance(words, list) and all(isinstance(w, str) for w in words)
        for words in table.values()
    ):
        raise _misread(name, 'a JSON object of word lists ({"auth": ["login"]})', value)
    return table


LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def env_log_level(name: str, default: str) -> str:
    """A logging level in any case ("debug" is DEBUG); Python's logging takes upper case
    only, and any other word stopped the site with "Unable to configure root logger"."""
    value = os.environ.get(name)
    if value is None or not value.strip():
        return default
    level = value.strip().upper()
    if level not in LOG_LEVELS:
        raise _misread(name, f"one of {', '.join(LOG_LEVELS)}", value)
    return level


_RATE = re.compile(r"\s*(\d+)\s*/\s*([smhd][a-z]*)\s*", re.IGNORECASE)


def env_rate(name: str, default: str) -> str:
    """A throttle rate, ``<number>/<second|minute|hour|day>`` (DRF reads the period's first
    letter); anything else made every request that reached the throttle a 500."""
    value = os.environ.get(name)
    if value is None or not value.strip():
        return default
    found = _RATE.fullmatch(value)
    if found is None:
        raise _misread(name, "a rate such as 60/min (per s, min, hour or day)", value)
    return f"{found.group(1)}/{found.group(2).lower()}"
