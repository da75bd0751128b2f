"""Curator pages of the entity graph (see ``kgsite.pages`` for what pages share): the
entity list with search as you type, the entity page (aliases inline, facts, mentions
by book, duplicate suggestions) with its aliases, and the undo of a confirmation. Merging
and the duplicate queue are in ``merging_pages``."""

from __future__ import annotations

from functools import wraps

from django.contrib import messages
from django.http import Http404, HttpRequest
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from kgsite.errors import DomainError, in_page_language
from kgsite.pages import (
    Panel,
    checked_get,
    curator_required,
    is_curator,
    render_page,
    state_seen,
    swap_target,
    wants_partial,
)

from . import confirmations, selectors, services
from .forms import ENTITY_SHOWN, EntityForm, FactForm, latest_entry
from .graph.selectors import entity_graph
from .models import Entity, Fact
from .names import normalize_type
from .scopes import page_scopes

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
        found, error = [], exc.translated
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
        [in_page_language(p) for p in services.merge_undo_problems(merge=data.undoable_merge)]
        if data.undoable_merge
        else []
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
        return aliases_response(request, entity, error=exc.translated, value=alias, status=400)
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
        return aliases_response(request, entity, error=exc.translated, status=400)
    return aliases_response(request, entity, removed=alias)


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
        messages.error(request, exc.translated)
    else:
        messages.success(
            request,
            _("Stored “%(text)s” as a fact of its own.") % {"text": restored.text[:80]},
        )
    return redirect("entities:detail", entity_id=entity.pk)
