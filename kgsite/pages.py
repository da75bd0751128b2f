"""The room for HTML pages: what every curator page shares, so none of them re-invents
its permission checks or its error display.

Pages live with the app whose data they show (``<app>/views.py``, ``<app>/urls.py``,
``templates/<app>/``, partials for HTMX swaps). From here they take:

- ``curator_required``: login for every page, the curator permission for writes;
- ``checked_get``: the one way a page fetches an object by id (404 when absent, and
  whether this user may change it), as healthchecks' ``_get_check_for_user`` does;
- ``form_error``: a service's ``DomainError`` as a form error on the field it names,
  for forms and the admin alike;
- ``dashboard_panel``: apps add their panel to the home page from ``ready()``
  (this package imports no app);
- ``render_page``: the whole page, or only its swappable partial for an HTMX request;
- ``undo_action``: apps say how an audited action of theirs is undone, so the audit
  log offers an undo button without knowing the app;
- ``audit_target`` and ``audit_action``: apps say what an audit row's target is called
  and where its page is, and what their actions are called, so the log shows names and
  links ("edited “Ada Lovelace”") instead of model labels and ids.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any, TypeVar

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import NON_FIELD_ERRORS, PermissionDenied, ValidationError
from django.db import models
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.cache import patch_vary_headers
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext_lazy

from .converters import parse_id
from .errors import DomainError
from .models import AuditEntry

CURATE_PERMISSION = "entities.curate"
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")

M = TypeVar("M", bound=models.Model)
View = Callable[..., HttpResponse]


def is_curator(user) -> bool:
    return bool(user and user.is_authenticated and user.has_perm(CURATE_PERMISSION))


def curator_required(view: View) -> View:
    """Login for any request; the curator permission for anything but a read."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not request.user.is_authenticated:
            if getattr(request, "htmx", False):
                return _login_for_swap(request)
            return redirect_to_login(request.get_full_path())
        if request.method not in SAFE_METHODS and not is_curator(request.user):
            raise PermissionDenied("writing needs the curator permission")
        return view(request, *args, **kwargs)

    return wrapper


def _login_for_swap(request: HttpRequest) -> HttpResponse:
    """A swap (the bell's poll, a card's button) after the session ended: followed, the
    redirect would put the login page inside the swapped element. The whole page goes
    to the login instead, and back to that page (ours only) after it."""
    page = request.htmx.current_url_abs_path or "/"
    response = HttpResponse(status=204)
    response["HX-Redirect"] = redirect_to_login(page)["Location"]
    return response


def checked_get(
    request: HttpRequest, queryset: models.QuerySet[M] | type[M], pk: Any, *, write: bool = False
) -> tuple[M, bool]:
    """The object with this primary key and whether the user may change it.

    404 when absent (or the key is malformed), 403 when ``write`` is asked and the user
    is no curator."""
    qs = queryset._default_manager.all() if isinstance(queryset, type) else queryset
    try:
        obj = qs.get(pk=pk)
    except (qs.model.DoesNotExist, ValueError, TypeError, OverflowError):
        raise Http404(f"no {qs.model._meta.verbose_name} {pk}") from None
    can_write = is_curator(request.user)
    if write and not can_write:
        raise PermissionDenied("writing needs the curator permission")
    return obj, can_write


def state_seen(obj, fields: tuple[str, ...]) -> str:
    """A short digest of what a page shows of ``obj``: posted back with a form or a
    button, it tells whether someone changed the object since the page was drawn."""
    state = json.dumps([str(getattr(obj, name)) for name in fields], ensure_ascii=False)
    return hashlib.sha256(state.encode()).hexdigest()[:16]


def form_error(exc: DomainError, fields, field: str | None = None) -> ValidationError:
    """A service's DomainError as a form error on the field it names (if the form has
    it; else a non-field error)."""
    name = field or exc.field
    return ValidationError({name if name in fields else NON_FIELD_ERRORS: exc.translated})


def back_url(request: HttpRequest, fallback: str) -> str:
    """Where a plain form asks to go back to (its ``next``: the page it was on, filters
    included) when that page is one of ours; ``fallback`` otherwise (never another site)."""
    target = request.POST.get("next", "")
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return fallback


@dataclass(frozen=True)
class Panel:
    """One app's part of the home page: a template and the context it needs."""

    name: str
    template: str
    context: Callable[[HttpRequest], dict[str, Any]]
    order: int = 100


_panels: dict[str, Panel] = {}


def dashboard_panel(panel: Panel) -> Panel:
    """Add (or replace) a home page panel; call from an ``AppConfig.ready()``."""
    _panels[panel.name] = panel
    return panel


def dashboard_panels() -> list[Panel]:
    return sorted(_panels.values(), key=lambda p: (p.order, p.name))


_ELEMENT_ID = re.compile(r"[a-z0-9-]{1,40}")  # an element id a swap may name


def swap_target(request: HttpRequest) -> str:
    """The id of the element an HTMX request swaps (``HX-Target``), if it is one of
    ours; a fragment answering it keeps that id so the next swap finds it."""
    target = request.headers.get("HX-Target", "")
    return target if _ELEMENT_ID.fullmatch(target) else ""


def wants_partial(request: HttpRequest) -> bool:
    """An HTMX swap, not htmx restoring a pushed URL its history cache no longer holds:
    that request also says HX-Request, and its answer replaces the whole <body>."""
    htmx = getattr(request, "htmx", None)
    return bool(htmx) and not htmx.history_restore_request


def render_page(
    request: HttpRequest,
    template: str,
    context: dict[str, Any],
    *,
    partial: str | None = None,
    status: int = 200,
) -> HttpResponse:
    """The whole page, or only ``partial`` when HTMX asks (``HX-Request``) for a swap.

    Such a URL answers two shapes, so the answer varies on ``HX-Request`` (the back
    button must not show a cached fragment as the page)."""
    chosen = partial if partial and wants_partial(request) else template
    response = render(request, chosen, context, status=status)
    if partial:
        patch_vary_headers(response, ("HX-Request", "HX-History-Restore-Request"))
    return response


# --- undo from the audit log ------------------------------------------------------------


@dataclass(frozen=True)
class UndoAction:
    """How one audited action is undone.

    ``undo(entry, actor)`` calls the app's undo service (raising a ``DomainError`` when
    it refuses); ``available(entry)`` says whether this entry can still be undone (the
    latest decision, not undone yet)."""

    action: str
    undo: Callable[[AuditEntry, Any], Any]
    available: Callable[[AuditEntry], bool]


_undo_actions: dict[str, UndoAction] = {}


def undo_action(action: UndoAction) -> UndoAction:
    """Register (or replace) the undo of an audit action; call from ``ready()``."""
    _undo_actions[action.action] = action
    return action


def undo_for(entry: AuditEntry) -> UndoAction | None:
    """The undo of this entry's action, if it has one and the entry can still be undone."""
    action = _undo_actions.get(entry.action)
    if action is None or not action.available(entry):
        return None
    return action


# --- names and links in the audit log ---------------------------------------------------

# (entries of one target type) -> {entry id: (name, url or "")}
Describe = Callable[[list[AuditEntry]], dict[int, tuple[str, str]]]
# (entries of one target type, the reader) -> ids of the entries the reader may not see
Hidden = Callable[[list[AuditEntry], Any], set[int]]
_describers: dict[str, Describe] = {}
_hidden: dict[str, Hidden] = {}
_action_labels: dict[str, Any] = {}


def audit_target(target_type: str, describe: Describe, *, hidden: Hidden | None = None) -> Describe:
    """Say how rows about ``target_type`` ("entities.entity") are named and linked; call
    from ``ready()``. ``describe`` gets a page's rows of that type at once (one query);
    ``hidden`` says which of them name something the reader may not see (another
    project's fact): those rows keep their action but neither name nor link."""
    _describers[target_type] = describe
    if hidden is not None:
        _hidden[target_type] = hidden
    return describe


def audit_target_ids(entries: list[AuditEntry]) -> list[int]:
    """The numeric target ids of these rows, for a describer's one query: a target typed
    in the log's address ("²", past 64 bits) is no id, not a server error."""
    return [pk for pk in (parse_id(e.target_id) for e in entries) if pk is not None]


def audit_action(action: str, label) -> None:
    """Name an audited action for people ("entity.update" -> "edited"); a lazy string."""
    _action_labels[action] = label


def audit_action_label(action: str) -> str:
    return str(_action_labels.get(action, action.replace("_", " ").replace(".", ": ")))


def audit_action_labels() -> dict[str, str]:
    return {action: str(label) for action, label in _action_labels.items()}


UNKNOWN_TARGET = gettext_lazy("something since deleted")


def audit_rows(entries, *, can_write: bool, reader=None) -> list[dict]:
    """Audit entries as the log shows them: the action in words, the target's name and
    link (from the owning app's describer), the summary undo repeats, and whether this
    user can undo it. With ``reader``, what that user may not see is left unnamed."""
    entries = list(entries)
    by_type: dict[str, list[AuditEntry]] = {}
    for entry in entries:
        by_type.setdefault(entry.target_type, []).append(entry)
    names: dict[int, tuple[str, str]] = {}
    for target_type, group in by_type.items():
        describe = _describers.get(target_type)
        if describe is not None:
            names.update(describe(group))
        hidden = _hidden.get(target_type)
        if reader is not None and hidden is not None:
            for pk in hidden(group, reader):
                names.pop(pk, None)
    rows = []
    for entry in entries:
        name, url = names.get(entry.pk, ("", ""))
        label = audit_action_label(entry.action)
        rows.append(
            {
                "entry": entry,
                "label": label,
                "name": name,
                "url": url,
                "summary": f"{label} “{name}”" if name else label,
                "undo": can_write and undo_for(entry) is not None,
            }
        )
    return rows
