"""Merging pages (see ``kgsite.pages`` for what pages share): the merge candidates and
preview of an entity page, the merge and its undo, and the duplicate queue whose pairs are
merged (after a preview) or dismissed in place."""

from __future__ import annotations

import re

from django.contrib import messages
from django.core.paginator import Paginator
from django.db.models import Q
from django.http import HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from kgsite.converters import parse_id
from kgsite.errors import DomainError, InvalidInput
from kgsite.models import AuditEntry
from kgsite.pages import UndoAction, checked_get, curator_required, is_curator, render_page

from . import curation, previews, selectors, services
from .models import DuplicateSuggestion, Entity, EntityMerge
from .views import merged_away_answered

MERGE_ACTION = "entity.merge"
_TARGET = re.compile(r"[a-z0-9-]{1,40}")  # an element id a request may name
CANDIDATE_LIMIT = 10


@require_GET
@curator_required
def merge_candidates(request, entity_id: str):
    """Entities to merge into this one, found as the search box finds them."""
    entity, _w = checked_get(request, Entity, entity_id)
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
    survivor, _w = checked_get(request, Entity, entity_id, write=True)
    ids = [i for i in request.POST.getlist("duplicates") if i]
    if not ids:
        raise InvalidInput(
            _("Choose at least one entity to merge into this one."), field="duplicates"
        )
    # An id with a NUL names no entity (and PostgreSQL refuses to look it up).
    duplicates = list(Entity.objects.filter(pk__in=[i for i in ids if "\x00" not in i]))
    missing = sorted(set(ids) - {d.pk for d in duplicates})
    if missing:
        raise InvalidInput(
            _("One of the chosen entities no longer exists (merged or deleted?)."),
            field="duplicates",
        )
    return survivor, duplicates, bool(request.POST.get("allow_cross_type"))


UNTYPED = gettext_lazy("untyped")


def cross_type_message(survivor: Entity, duplicates: list[Entity]) -> str:
    """The cross-type refusal as a person reads it (the API names its parameter)."""
    others = [d for d in duplicates if d.type != survivor.type]
    names = ", ".join(f"“{d.canonical_name}” ({d.type or UNTYPED})" for d in others)
    return _(
        "%(names)s is not of the same type as “%(survivor)s” (%(type)s). Merge only if "
        "they are really the same thing: the merged entity stays a %(type)s."
    ) % {"names": names, "survivor": survivor.canonical_name, "type": survivor.type or UNTYPED}


def _merge_error(request, entity_id: str, exc: DomainError) -> HttpResponse:
    message = exc.translated
    if exc.code == "cross_type":
        survivor = Entity.objects.filter(pk=entity_id).first()
        duplicates = list(Entity.objects.filter(pk__in=request.POST.getlist("duplicates")))
        if survivor is not None:
            message = cross_type_message(survivor, duplicates)
    return _preview_response(
        request,
        entity_id,
        error=message,
        cross_type=exc.code == "cross_type",
        duplicate_ids=request.POST.getlist("duplicates"),
    )


def _preview_response(request, entity_id: str, **context) -> HttpResponse:
    """The preview (or its error) in the element the request names: the entity page's
    preview, or one row of the duplicate queue."""
    status = 400 if context.get("error") else 200
    target = request.POST.get("target", "")
    # The queue's pair goes along in the preview and in its refusal ("preview anyway"
    # across types), so Confirm answers in the pair's card instead of leaving the queue.
    suggestion = parse_id(request.POST.get("suggestion", ""))
    return render_page(
        request,
        "entities/_merge_preview.html",
        {
            "entity_id": entity_id,
            "target": target if _TARGET.fullmatch(target) else "",
            "suggestion": "" if suggestion is None else suggestion,
            **context,
        },
        status=status,
    )


@require_POST
@curator_required
@merged_away_answered
def merge_preview(request, entity_id: str):
    """What merging the chosen entities into this one would move, side by side; writes
    nothing."""
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
        return _merge_error(request, entity_id, exc)
    return _preview_response(
        request,
        entity_id,
        plan=previews.plan_shown(outcome.plan),
        sides=previews.merge_sides(outcome.plan),
        duplicate_ids=[d.pk for d in duplicates],
        allow_cross_type=cross,
    )


@require_POST
@curator_required
@merged_away_answered
def merge(request, entity_id: str):
    """Merge; from the entity page go to the survivor, from the duplicate queue stay in
    the queue with the pair marked merged (and its undo)."""
    try:
        survivor, duplicates, cross = _merge_request(request, entity_id)
        outcome = services.entity_merge(
            survivor=survivor, duplicates=duplicates, actor=request.user, allow_cross_type=cross
        )
    except DomainError as exc:
        # From the queue the confirm swaps the pair's card: the refusal goes in the card.
        if (suggestion := _posted_suggestion(request)) is not None:
            ids, me = request.POST.getlist("duplicates"), request.user  # Confirm clicked twice
            done = selectors.merge_done_as_asked(survivor_id=entity_id, duplicate_ids=ids, actor=me)
            extra = {"merge": done} if done else {"error": exc.translated}
            return _suggestion_response(request, suggestion, **extra)
        return _merge_error(request, entity_id, exc)
    if (suggestion := _posted_suggestion(request)) is not None:
        return _suggestion_response(request, suggestion, merge=outcome.merge)
    names = ", ".join(f"“{d.canonical_name}”" for d in duplicates)
    messages.success(
        request,
        _("Merged %(names)s into “%(survivor)s”.")
        % {"names": names, "survivor": survivor.canonical_name},
    )
    url = reverse("entities:detail", args=[outcome.plan.survivor.pk])
    if request.htmx:
        response = HttpResponse(status=204)
        response["HX-Redirect"] = url
        return response
    return redirect(url)


def _posted_suggestion(request) -> DuplicateSuggestion | None:
    """The duplicate queue's pair a merge was confirmed from (HTMX only), if any."""
    suggestion_pk = parse_id(request.POST.get("suggestion", ""))
    if not request.htmx or suggestion_pk is None:
        return None
    return DuplicateSuggestion.objects.filter(pk=suggestion_pk).first()


def _undo_merge(merge_obj: EntityMerge, actor) -> None:
    services.entity_merge_undo(merge=merge_obj, actor=actor)


@require_POST
@curator_required
def merge_undo(request, merge_id: int):
    merge_obj, _w = checked_get(request, selectors.merge_list(), merge_id, write=True)
    suggestion_id = request.POST.get("suggestion", "")
    try:
        _undo_merge(merge_obj, request.user)
        error = ""
    except DomainError as exc:  # Undo clicked twice: this curator's first click undid it
        done = selectors.merge_undone_by(merge_id=merge_obj.pk, actor=request.user)
        error = "" if done else exc.translated
    if request.htmx and (suggestion_pk := parse_id(suggestion_id)) is not None:
        suggestion = DuplicateSuggestion.objects.filter(pk=suggestion_pk).first()
        if suggestion is not None:
            return _suggestion_response(request, suggestion, error=error, undone=not error)
    if error:
        messages.error(request, error)
    else:
        messages.success(request, _("Merge undone: the merged entities are back as they were."))
    if merge_obj.survivor_id:
        return redirect("entities:detail", entity_id=merge_obj.survivor_id)
    return redirect("entities:list")


# --- the duplicate queue ----------------------------------------------------------------

QUEUE_PAGE_SIZE = 25


@require_GET
@curator_required
def duplicate_queue(request):
    """Likely duplicate pairs with their evidence, best first: merge (after a preview)
    or dismiss, each in place with its undo; a dismissed pair never comes back."""
    pending = selectors.duplicate_suggestions_pending()
    # "next" continues after the last pair shown, not at page n + 1: pairs are decided in
    # place, so the queue moves up under the page and a page number skips.
    after = parse_id(request.GET.get("after", ""))
    anchor = (
        DuplicateSuggestion.objects.filter(pk=after).values("score", "id").first()
        if after is not None
        else None
    )
    rest = (
        pending.filter(Q(score__lt=anchor["score"]) | Q(score=anchor["score"], id__gt=anchor["id"]))
        if anchor
        else pending
    )
    page = Paginator(rest, QUEUE_PAGE_SIZE).get_page(1 if anchor else request.GET.get("page"))
    shown = list(page.object_list)
    return render_page(
        request,
        "entities/duplicates.html",
        {
            "page": page,
            "can_write": is_curator(request.user),
            "pending_count": pending.count() if anchor else page.paginator.count,
            "continued": anchor is not None or page.number > 1,
            "next_after": shown[-1].pk if page.has_next() else None,
        },
    )


def _suggestion_response(request, suggestion, *, error="", status=None, **extra):
    if not getattr(request, "htmx", False):
        # A plain form post (no script): back to the queue, the outcome as a message.
        if error:
            messages.error(request, error)
        return redirect("entities:duplicates")
    suggestion = selectors.duplicate_suggestion_get(suggestion_id=suggestion.pk)
    # The heading's count follows the decision (swapped out of band beside the card).
    pending_count = selectors.duplicate_suggestions_pending().count()
    return render_page(
        request,
        "entities/duplicates.html",
        {
            "s": suggestion,
            "error": error,
            "can_write": True,
            "count_oob": True,
            "pending_count": pending_count,
            **extra,
        },
        partial="entities/_suggestion.html",
        status=status or (409 if error else 200),
    )


@require_POST
@curator_required
def duplicate_dismiss(request, suggestion_id: int):
    # Any status: a pair dismissed or merged since the page was drawn is answered by the
    # service (dismissed again, or "already merged") in its card, not by a 404.
    suggestion, _w = checked_get(request, DuplicateSuggestion, suggestion_id, write=True)
    error = ""
    try:
        suggestion = services.duplicate_dismiss(suggestion=suggestion, actor=request.user)
    except DomainError as exc:
        error = exc.translated
    return _suggestion_response(request, suggestion, error=error)


@require_POST
@curator_required
def duplicate_undismiss(request, suggestion_id: int):
    suggestion, _w = checked_get(request, DuplicateSuggestion, suggestion_id, write=True)
    error = ""
    try:
        suggestion = curation.duplicate_undismiss(suggestion=suggestion, actor=request.user)
    except DomainError as exc:  # Undo clicked twice: the first reopened it, as asked
        error = "" if curation.duplicate_reopened(suggestion=suggestion) else exc.translated
    return _suggestion_response(request, suggestion, error=error)


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
