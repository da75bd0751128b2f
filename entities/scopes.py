"""Project scopes: which facts a reader sees.

A fact's ``scope`` is a project key; empty is global memory. A reader naming a project
sees that project's facts plus global ones; a reader naming none sees global memory
only; ``all_scopes`` (the opt-in "global recall") sees every project. Another project's
facts never surface otherwise.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from django.db.models import Q

from kgsite.errors import InvalidInput
from kgsite.pages import is_curator

from .names import refuse_invisible

GLOBAL = ""
MAX_SCOPE_LENGTH = 128


# Every control character, tab and newline included: a key is one line, and a pasted
# "shop\n" must not become a project of its own.
_KEY_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def key_clean(value: object, *, field: str, limit: int = MAX_SCOPE_LENGTH) -> str:
    """A key as stored (a project, a session id): trimmed, Unicode NFC (so "café" typed
    either way is one project; case is kept: keys are case-sensitive), at most ``limit``
    characters, no control characters."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InvalidInput(f"{field} must be a string", field=field)
    value = unicodedata.normalize("NFC", value.strip())
    if len(value) > limit:
        raise InvalidInput(f"{field} is longer than {limit} characters", field=field)
    if _KEY_CONTROL.search(value):
        raise InvalidInput(f"{field} contains control characters (newline, tab, ...)", field=field)
    return value


def scope_clean(value: object, *, field: str = "scope") -> str:
    """A project key as stored (see ``key_clean``); None is global memory. A zero-width
    space, joiner or bidi mark is refused, as in a name: "shop\u200b" read as "shop"
    and was another project, and "\u200b" alone a project that looked like global memory."""
    if value is None:
        return GLOBAL
    cleaned = key_clean(value, field=field)
    refuse_invisible(cleaned, field)
    return cleaned


def scope_owns(memory_scope: str, writer_scope: object) -> bool:
    """Whether a write of ``writer_scope`` may change memory of ``memory_scope``: only
    its own. A project reads global memory but never changes it (a finding that restates
    a global fact raised a confidence every project shares), nor another project's."""
    return memory_scope == scope_clean(writer_scope)


@dataclass(frozen=True)
class ScopeFilter:
    """Who is reading: a project (or global only), and whether every project is opted in."""

    scope: str = GLOBAL
    all_scopes: bool = False

    @classmethod
    def of(cls, scope: object = None, all_scopes: object = False) -> ScopeFilter:
        if not isinstance(all_scopes, bool):
            raise InvalidInput("all_scopes must be true or false", field="all_scopes")
        return cls(scope=scope_clean(scope), all_scopes=all_scopes)

    def q(self, prefix: str = "") -> Q:
        """The condition on a model with a ``scope`` column (``prefix`` for a relation)."""
        if self.all_scopes:
            return Q()
        column = f"{prefix}scope"
        if not self.scope:
            return Q(**{column: GLOBAL})
        return Q(**{f"{column}__in": [self.scope, GLOBAL]})

    def sees(self, scope: str) -> bool:
        return self.all_scopes or scope in (GLOBAL, self.scope)

    def describe(self) -> str:
        if self.all_scopes:
            return "every project"
        return f"project '{self.scope}' and global memory" if self.scope else "global memory"


def page_scopes(user) -> ScopeFilter:
    """What a signed-in user sees in the pages: curators every project (they resolve
    and merge across them), other readers global memory only."""
    return ScopeFilter(all_scopes=is_curator(user))
