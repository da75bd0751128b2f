"""Curator pages of the entity graph (see ``kgsite.pages`` for what pages share): the
entity list with search as you type, the entity page (aliases inline, facts, mentions
by book, duplicate suggestions), and merging with a preview and an undo."""

from __future__ import annotations

import re
from functools import wraps

from django.contrib import messages
from django.core.paginator import Paginator
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from kgsite.converters import parse_id
from kgsite.errors import DomainError, InvalidInput
from kgsite.models import AuditEntry
from kgsite.pages import (
    Panel,
    UndoAction,
    checked_get,
    curator_required,
    is_curator,
    render_page,
    swap_target,
    wants_partial,
)

from . import confirmations, curation, previews, selectors, services
from .forms import ENTITY_SHOWN, EntityForm, FactForm, latest_entry, state_seen
from .graph.selectors import entity_graph
from .models import DuplicateSuggestion, Entity, EntityMerge, Fact
from .names import normalize_type
from .scopes import page_scopes

MERGE_ACTION = "entity.merge"
_TARGET = re.compile(r"[a-z0-9-]{1,40}")  # an element id a request may name
CANDIDATE_LIMIT = 10
LIST_LIMIT = selectors.SEARCH_LIMIT


def home_panel_context(request: HttpRequest) -> dict:
    return {
        "entity_count": Entity.objects.count(),
        "fact_count": Fact.objects.filter(status=Fact.Status.ACTIVE).count(),
        # As the queue counts them: a pair whose side was merged away or deleted is gone.
        "suggestion_count": selectors.duplicate_suggestions_pending().count(),
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
    with_candidates = request.GET.get("candidates", "").strip().lower() not in ("", "0", "false")
    error = ""
    try:
        found = selectors.entity_search(
            q=q, type=entity_type or None, candidates=with_candidates, limit=LIST_LIMIT + 1
        )
        # The menu shows the filter as applied: ?type=PERSON filters on "person".
        entity_type = normalize_type(entity_type)
    except DomainError as exc:  # a type no entity can have: said above the (empty) results
        found, error = [], exc.message
    return render_page(
        request,
        "entities/list.html",
        {
            "q": q,
            "type": entity_type,
            "with_candidates": with_candidates,
            # The type filter is not part of the results partial: no query for it.
            "types": [] if wants_partial(request) else selectors.entity_types(),
            "results": found[:LIST_LIMIT],
            # The list is cut, not paged: it says so, and that typing narrows it.
            "cut_at": LIST_LIMIT if len(found) > LIST_LIMIT else 0,
            "error": error,
        },
        partial="entities/_results.html",
        status=400 if error else 200,
    )


def merged_away_answered(view):
    """A write from the page of an entity merged away since the page was drawn: say
    where it went (in the swapped element, or on the survivor's page without script)
    instead of answering the 404 page inside a card. Nothing is written."""

    @wraps(view)
    def wrapper(request, entity_id: str, *args, **kwargs):
        try:
            return view(request, entity_id, *args, **kwargs)
        except Http404:
            if "\x00" in entity_id or Entity.objects.filter(pk=entity_id).exists():
                raise
            target = selectors.entity_redirect_target(entity_id=entity_id)
            survivor = Entity.objects.filter(pk=target).first() if target else None
            if survivor is None:
                raise
        message = _(
            "This entity was merged into “%(name)s” since the page was opened: nothing was "
            "changed. Do it again on the page of “%(name)s”."
        ) % {"name": survivor.canonical_name}
        if not request.htmx:
            messages.warning(request, message)
            return redirect("entities:detail", entity_id=survivor.pk)
        context = {
            "target": swap_target(request),
            "message": message,
            "survivor": survivor,
        }
        # Still a 404 (the entity is not here), with a body that fits the swapped element.
        return render_page(request, "entities/_moved.html", context, status=404)

    return wrapper


NEIGHBOURS = 25


def _edges_named(graph: dict) -> list[dict]:
    labels = {n["id"]: n["label"] for n in graph["nodes"]}
    return [
        {
            "source": labels.get(e["source"], ""),
            "relation": e["relation"],
            "target": labels.get(e["target"], ""),
        }
        for e in graph["edges"]
    ]


def _entity_context(request, entity: Entity, **extra) -> dict:
    # Curators see every project's facts; other signed-in readers global memory only.
    scopes = page_scopes(request.user)
    data = selectors.entity_page_data(entity=entity, scopes=scopes)
    undo_problems = (
        services.merge_undo_problems(merge=data.undoable_merge) if data.undoable_merge else []
    )
    graph = entity_graph(entity_id=entity.pk, depth=1, max_nodes=NEIGHBOURS, scopes=scopes)
    return {
        "entity": entity,
        "can_write": is_curator(request.user),
        "aliases": data.aliases,
        "facts": data.facts,
        "fact_count": data.fact_count,
        "books": data.books,
        "undoable_merge": data.undoable_merge,
        "undo_problems": undo_problems,
        "suggestions": data.suggestions,
        "graph": graph if graph["edges"] else None,
        "graph_edges": _edges_named(graph),
        "edit_form": EntityForm(
            initial={
                "canonical_name": entity.canonical_name,
                "type": entity.type,
                "description": entity.description,
            }
        ),
        "entity_seen": state_seen(entity, ENTITY_SHOWN),
        "fact_form": FactForm(),
        "types": selectors.entity_types(),
        **extra,
    }


@require_GET
@curator_required
def entity_detail(request, entity_id: str):
    """The entity page; a merged-away id redirects to the entity that absorbed it."""
    try:
        entity, _w = checked_get(request, Entity, entity_id)
    except Http404:
        target = selectors.entity_redirect_target(entity_id=entity_id)
        if not target:
            raise
        messages.info(request, _("The entity you followed was merged into this one."))
        return redirect("entities:detail", entity_id=target)
    return render_page(request, "entities/detail.html", _entity_context(request, entity))


def aliases_response(
    request,
    entity: Entity,
    *,
    error: str = "",
    value: str = "",
    removed: str = "",
    known: str = "",
    status=200,
):
    return render_page(
        request,
        "entities/detail.html",
        _entity_context(
            request,
            entity,
            alias_error=error,
            alias_value=value,
            removed_alias=removed,
            known_alias=known,
        ),
        partial="entities/_aliases.html",
        status=status,
    )


def facts_response(
    request,
    entity: Entity,
    *,
    fact_form=None,
    added=None,
    confirmed=False,
    retracted=None,
    error="",
    status=200,
):
    """The facts card alone (after adding or retracting one), with the undo of what was
    just done. A text already stored was confirmed, not created: the undo of its
    creation (retracting it, maybe an earlier one of this curator's) is not this one's."""
    undo = None
    if added is not None and not confirmed:
        undo = latest_entry(request.user, "fact.create", added)
    elif retracted is not None:
        undo = latest_entry(request.user, "fact.update", retracted)
    extra = {
        "added": added,
        "confirmed": confirmed,
        "retracted": retracted,
        "fact_undo": undo,
        "fact_error": error,
    }
    if fact_form is not None:
        extra["fact_form"] = fact_form
    return render_page(
        request,
        "entities/detail.html",
        _entity_context(request, entity, **extra),
        partial="entities/_facts.html",
        status=status,
    )


@require_POST
@curator_required
@merged_away_answered
def alias_add(request, entity_id: str):
    entity, _w = checked_get(request, Entity, entity_id, write=True)
    alias = request.POST.get("alias", "")
    try:
        row, created = services.alias_add(entity=entity, alias=alias, actor=request.user)
    except DomainError as exc:
        return aliases_response(request, entity, error=exc.message, value=alias, status=400)
    # Nothing to add: say so, or the curator wonders whether the click was taken.
    return aliases_response(request, entity, known="" if created else row.alias)


@require_POST
@curator_required
@merged_away_answered
def alias_remove(request, entity_id: str):
    entity, _w = checked_get(request, Entity, entity_id, write=True)
    alias = request.POST.get("alias", "")
    try:
        services.alias_remove(entity=entity, alias=alias, actor=request.user)
    except DomainError as exc:
        return aliases_response(request, entity, error=exc.message, status=400)
    return aliases_response(request, entity, removed=alias)


# --- merge ---------------------------------------------------------------------------------


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
    message = exc.message
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
        plan=outcome.plan.as_dict(),
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
            extra = {"merge": done} if done else {"error": exc.message}
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
        error = "" if done else exc.message
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
        error = exc.message
    return _suggestion_response(request, suggestion, error=error)


@require_POST
@curator_required
def duplicate_undismiss(request, suggestion_id: int):
    suggestion, _w = checked_get(request, DuplicateSuggestion, suggestion_id, write=True)
    error = ""
    try:
        suggestion = curation.duplicate_undismiss(suggestion=suggestion, actor=request.user)
    except DomainError as exc:  # Undo clicked twice: the first reopened it, as asked
        error = "" if curation.duplicate_reopened(suggestion=suggestion) else exc.message
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


# --- confirmation evidence ----------------------------------------------------------------


@require_POST
@curator_required
@merged_away_answered
def confirmation_undo(request, entity_id: str, confirmation_id: int):
    """Take back a wrong confirmation: the swallowed statement becomes its own fact."""
    entity, _w = checked_get(request, Entity, entity_id, write=True)
    try:
        restored = confirmations.fact_confirmation_undo(
            confirmation_id=confirmation_id, actor=request.user
        )
    except DomainError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            _("Stored “%(text)s” as a fact of its own.") % {"text": restored.text[:80]},
        )
    return redirect("entities:detail", entity_id=entity.pk)
