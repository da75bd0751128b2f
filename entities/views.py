"""Curator pages of the entity graph (see ``kgsite.pages`` for what pages share): the
entity list with search as you type, the entity page (aliases inline, facts, mentions
by book, duplicate suggestions), and merging with a preview and an undo."""

from __future__ import annotations

import re

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from kgsite.errors import DomainError, InvalidInput
from kgsite.models import AuditEntry
from kgsite.pages import (
    Panel,
    UndoAction,
    checked_get,
    curator_required,
    is_curator,
    render_page,
)

from . import confirmations, selectors, services
from .models import DuplicateSuggestion, Entity, EntityMerge, Fact

MERGE_ACTION = "entity.merge"
CANDIDATE_LIMIT = 10


def home_panel_context(request: HttpRequest) -> dict:
    return {
        "entity_count": Entity.objects.count(),
        "fact_count": Fact.objects.filter(status=Fact.Status.ACTIVE).count(),
        "suggestion_count": DuplicateSuggestion.objects.filter(
            status=DuplicateSuggestion.Status.PENDING
        ).count(),
    }


HOME_PANEL = Panel(
    name="entities", template="entities/panel_home.html", context=home_panel_context, order=10
)


@require_GET
@curator_required
def entity_list(request):
    """Entities by name, alias or word prefix (normalised like lookup), filtered by type;
    an HTMX request (typing in the search box) gets only the results."""
    q = request.GET.get("q", "")
    entity_type = request.GET.get("type", "")
    results = selectors.entity_search(q=q, type=entity_type or None)
    return render_page(
        request,
        "entities/list.html",
        {
            "q": q,
            "type": entity_type,
            # The type filter is not part of the results partial: no query for it.
            "types": [] if request.htmx else selectors.entity_types(),
            "results": results,
        },
        partial="entities/_results.html",
    )


def _entity_context(request, entity: Entity, **extra) -> dict:
    data = selectors.entity_page_data(entity=entity)
    undo_problems = (
        services.merge_undo_problems(merge=data.undoable_merge) if data.undoable_merge else []
    )
    return {
        "entity": entity,
        "can_write": is_curator(request.user),
        "aliases": data.aliases,
        "facts": data.facts,
        "books": data.books,
        "undoable_merge": data.undoable_merge,
        "undo_problems": undo_problems,
        "suggestions": data.suggestions,
        **extra,
    }


@require_GET
@curator_required
def entity_detail(request, entity_id: str):
    """The entity page; a merged-away id redirects to the entity that absorbed it."""
    try:
        entity, _ = checked_get(request, Entity, entity_id)
    except Http404:
        target = selectors.entity_redirect_target(entity_id=entity_id)
        if not target:
            raise
        messages.info(request, f"{entity_id} was merged into this entity.")
        return redirect("entities:detail", entity_id=target)
    return render_page(request, "entities/detail.html", _entity_context(request, entity))


def _aliases_response(request, entity: Entity, *, error: str = "", value: str = "", status=200):
    return render_page(
        request,
        "entities/detail.html",
        _entity_context(request, entity, alias_error=error, alias_value=value),
        partial="entities/_aliases.html",
        status=status,
    )


@require_POST
@curator_required
def alias_add(request, entity_id: str):
    entity, _ = checked_get(request, Entity, entity_id, write=True)
    alias = request.POST.get("alias", "")
    try:
        services.alias_add(entity=entity, alias=alias, actor=request.user)
    except DomainError as exc:
        return _aliases_response(request, entity, error=exc.message, value=alias, status=400)
    return _aliases_response(request, entity)


@require_POST
@curator_required
def alias_remove(request, entity_id: str):
    entity, _ = checked_get(request, Entity, entity_id, write=True)
    try:
        services.alias_remove(
            entity=entity, alias=request.POST.get("alias", ""), actor=request.user
        )
    except DomainError as exc:
        return _aliases_response(request, entity, error=exc.message, status=400)
    return _aliases_response(request, entity)


# --- merge ---------------------------------------------------------------------------------


@require_GET
@curator_required
def merge_candidates(request, entity_id: str):
    """Entities to merge into this one, found as the search box finds them."""
    entity, _ = checked_get(request, Entity, entity_id)
    q = request.GET.get("q", "")
    found = [
        e for e in selectors.entity_search(q=q, limit=CANDIDATE_LIMIT + 1) if e.pk != entity.pk
    ]
    return render_page(
        request,
        "entities/_merge_candidates.html",
        {"entity": entity, "candidates": found[:CANDIDATE_LIMIT] if q.strip() else [], "q": q},
    )


def _merge_request(request, entity_id: str) -> tuple[Entity, list[Entity], bool]:
    survivor, _ = checked_get(request, Entity, entity_id, write=True)
    ids = [i for i in request.POST.getlist("duplicates") if i]
    if not ids:
        raise InvalidInput("choose at least one entity to merge into this one", field="duplicates")
    duplicates = list(Entity.objects.filter(pk__in=ids))
    missing = sorted(set(ids) - {d.pk for d in duplicates})
    if missing:
        raise InvalidInput(
            f"no entity with id '{missing[0]}' (merged or deleted?)", field="duplicates"
        )
    return survivor, duplicates, bool(request.POST.get("allow_cross_type"))


_TARGET = re.compile(r"[a-z0-9-]{1,40}")


def _preview_response(request, entity_id: str, **context) -> HttpResponse:
    """The preview (or its error) in the element the request names: the entity page's
    preview, or one row of the duplicate queue."""
    status = 400 if context.get("error") else 200
    target = request.POST.get("target", "")
    return render_page(
        request,
        "entities/_merge_preview.html",
        {"entity_id": entity_id, "target": target if _TARGET.fullmatch(target) else "", **context},
        status=status,
    )


@require_POST
@curator_required
def merge_preview(request, entity_id: str):
    """What merging the chosen entities into this one would move; writes nothing."""
    try:
        survivor, duplicates, cross = _merge_request(request, entity_id)
        outcome = services.entity_merge(
            survivor=survivor,
            duplicates=duplicates,
            actor=request.user,
            allow_cross_type=cross,
            preview=True,
        )
    except DomainError as exc:
        return _preview_response(
            request,
            entity_id,
            error=exc.message,
            cross_type=exc.code == "cross_type",
            duplicate_ids=request.POST.getlist("duplicates"),
        )
    return _preview_response(
        request,
        entity_id,
        plan=outcome.plan.as_dict(),
        duplicate_ids=[d.pk for d in duplicates],
        allow_cross_type=cross,
    )


@require_POST
@curator_required
def merge(request, entity_id: str):
    try:
        survivor, duplicates, cross = _merge_request(request, entity_id)
        outcome = services.entity_merge(
            survivor=survivor, duplicates=duplicates, actor=request.user, allow_cross_type=cross
        )
    except DomainError as exc:
        return _preview_response(
            request,
            entity_id,
            error=exc.message,
            cross_type=exc.code == "cross_type",
            duplicate_ids=request.POST.getlist("duplicates"),
        )
    names = ", ".join(f"“{d.canonical_name}”" for d in duplicates)
    messages.success(request, f"Merged {names} into “{survivor.canonical_name}”.")
    url = reverse("entities:detail", args=[outcome.plan.survivor.pk])
    if request.htmx:
        response = HttpResponse(status=204)
        response["HX-Redirect"] = url
        return response
    return redirect(url)


def _undo_merge(merge_obj: EntityMerge, actor) -> None:
    services.entity_merge_undo(merge=merge_obj, actor=actor)


@require_POST
@curator_required
def merge_undo(request, merge_id: int):
    merge_obj, _ = checked_get(request, selectors.merge_list(), merge_id, write=True)
    try:
        _undo_merge(merge_obj, request.user)
    except DomainError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, "Merge undone: the merged entities are back as they were.")
    if merge_obj.survivor_id:
        return redirect("entities:detail", entity_id=merge_obj.survivor_id)
    return redirect("entities:list")


# --- the duplicate queue ----------------------------------------------------------------

QUEUE_PAGE_SIZE = 25


@require_GET
@curator_required
def duplicate_queue(request):
    """Likely duplicate pairs with their evidence, best first: merge (after a preview)
    or dismiss; a dismissed pair never comes back."""
    page = Paginator(selectors.duplicate_suggestions_pending(), QUEUE_PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    return render_page(
        request,
        "entities/duplicates.html",
        {"page": page, "can_write": is_curator(request.user)},
    )


@require_POST
@curator_required
def duplicate_dismiss(request, suggestion_id: int):
    suggestion, _ = checked_get(
        request, selectors.duplicate_suggestions_pending(), suggestion_id, write=True
    )
    error = ""
    try:
        suggestion = services.duplicate_dismiss(suggestion=suggestion, actor=request.user)
    except DomainError as exc:
        error = exc.message
    return render_page(
        request,
        "entities/duplicates.html",
        {"s": suggestion, "error": error, "can_write": True},
        partial="entities/_suggestion.html",
        status=409 if error else 200,
    )


# --- undo from the audit log -----------------------------------------------------------


def _merge_of(entry: AuditEntry) -> EntityMerge | None:
    merge_id = entry.payload.get("merge") if isinstance(entry.payload, dict) else None
    return EntityMerge.objects.filter(pk=merge_id).first() if merge_id else None


def _merge_undoable(entry: AuditEntry) -> bool:
    found = _merge_of(entry)
    return found is not None and not found.undone


def _merge_audit_undo(entry: AuditEntry, actor) -> None:
    _undo_merge(selectors.merge_get(merge_id=entry.payload["merge"]), actor)


MERGE_UNDO = UndoAction(action=MERGE_ACTION, undo=_merge_audit_undo, available=_merge_undoable)


# --- confirmation evidence ----------------------------------------------------------------


@require_POST
@curator_required
def confirmation_undo(request, entity_id: str, confirmation_id: int):
    """Take back a wrong confirmation: the swallowed statement becomes its own fact."""
    entity, _ = checked_get(request, Entity, entity_id, write=True)
    try:
        restored = confirmations.fact_confirmation_undo(
            confirmation_id=confirmation_id, actor=request.user
        )
    except DomainError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, f"Stored “{restored.text[:80]}” as a fact of its own.")
    return redirect("entities:detail", entity_id=entity.pk)
