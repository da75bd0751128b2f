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
  log offers an undo button without knowing the app.
"""

from __future__ import annotations

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
            return redirect_to_login(request.get_full_path())
        if request.method not in SAFE_METHODS and not is_curator(request.user):
            raise PermissionDenied("writing needs the curator permission")
        return view(request, *args, **kwargs)

    return wrapper


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


def form_error(exc: DomainError, fields, field: str | None = None) -> ValidationError:
    """A service's DomainError as a form error on the field it names (if the form has
    it; else a non-field error)."""
    name = field or exc.field
    return ValidationError({name if name in fields else NON_FIELD_ERRORS: exc.message})


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
    chosen = partial if partial and getattr(request, "htmx", False) else template
    response = render(request, chosen, context, status=status)
    if partial:
        patch_vary_headers(response, ("HX-Request",))
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
