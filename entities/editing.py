"""Curator pages that write: create and edit entities, add, edit, retract and supersede
facts, take back a removed alias. Each form posts to one service; a ``DomainError``
comes back as the error of the field it names, and a saved change offers its undo (the
audit row's, ``kgsite.pages.undo_action``)."""

from __future__ import annotations

from datetime import UTC, date, datetime, time

from django.contrib import messages
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from kgsite.errors import Conflict, DomainError
from kgsite.models import AuditEntry
from kgsite.pages import checked_get, curator_required, form_error, render_page, state_seen
from kgsite.text import normalize, type_tag

from . import curation, hooks, selectors, services
from .forms import (
    ENTITY_SHOWN,
    FACT_SHOWN,
    EntityForm,
    FactEditForm,
    FactForm,
    latest_entry,
)
from .models import Entity, Fact
from .scopes import page_scopes
from .views import _entity_context, aliases_response, facts_response, merged_away_answered

UNDO_TAG = "undo:{}"


def _saved(request, text: str, action: str, target) -> None:
    entry = latest_entry(request.user, action, target)
    tags = UNDO_TAG.format(entry.pk) if entry else ""
    messages.success(request, text, extra_tags=tags)


def _to_datetime(value: date | None) -> datetime | None:
    return datetime.combine(value, time.min, tzinfo=UTC) if value else None


# --- entities --------------------------------------------------------------------------


def _form_page(request, template: str, context: dict, *, status: int = 200):
    return render_page(
        request, template, {"types": selectors.entity_types(), **context}, status=status
    )


@require_http_methods(["GET", "POST"])
@curator_required
def entity_new(request):
    """A new entity by hand: name, type, description and aliases at once."""
    form = EntityForm(request.POST or None, initial={"canonical_name": request.GET.get("name", "")})
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            entity = services.entity_create(
                name=data["canonical_name"],
                type=data["type"],
                description=data["description"],
                aliases=form.alias_list(),
                actor=request.user,
            )
        except DomainError as exc:
            mine = _just_created(request.user, data["canonical_name"], data["type"])
            if mine is not None and exc.field == "canonical_name":
                # Create clicked twice: the first click made it (the browser shows the
                # answer to the second), so the curator is taken to it, not told it clashes.
                message = _("You created “%(name)s” just before; here it is.")
                messages.info(request, message % {"name": mine.canonical_name})
                return redirect("entities:detail", entity_id=mine.pk)
            field = "aliases" if exc.field == "alias" else exc.field
            form.add_error(None, form_error(exc, form.fields, field))
        else:
            messages.success(request, _("Created “%(name)s”.") % {"name": entity.canonical_name})
            return redirect("entities:detail", entity_id=entity.pk)
    status = 400 if form.errors else 200
    return _form_page(request, "entities/new.html", {"form": form}, status=status)


def _just_created(user, name: str, entity_type: str) -> Entity | None:
    """The entity of this name and type, if creating it was this user's last action."""
    last = AuditEntry.objects.filter(actor=user).order_by("-id").first()
    if last is None or last.action != "entity.create":
        return None
    found = Entity.objects.filter(pk=last.target_id, name_norm=normalize(name)).first()
    return found if found is not None and found.type == type_tag(entity_type) else None


@require_POST
@curator_required
@merged_away_answered
def entity_edit(request, entity_id: str):
    """Rename, retype or describe an entity from its page (the head swaps in place)."""
    entity, _w = checked_get(request, Entity, entity_id, write=True)
    form = EntityForm(request.POST)
    form.fields["aliases"].required = False
    seen = state_seen(entity, ENTITY_SHOWN)
    stale = request.POST.get("seen", seen) != seen
    if stale:  # drawn before another curator's edit: saving would write over it
        form.add_error(None, _stale_entity_message())
    elif form.is_valid():
        data = form.cleaned_data
        try:
            services.entity_update(
                entity=entity,
                actor=request.user,
                canonical_name=data["canonical_name"],
                type=data["type"],
                description=data["description"],
            )
        except DomainError as exc:
            form.add_error(None, form_error(exc, form.fields))
    if form.errors:
        status = 409 if stale else 400
        entity.refresh_from_db()
        seen = state_seen(entity, ENTITY_SHOWN)
        if not request.htmx:  # a plain form post (no script): the whole page, form open
            context = _entity_context(request, entity, edit_form=form)
            return render_page(request, "entities/detail.html", context, status=status)
        return render_page(
            request,
            "entities/_head.html",
            {
                "entity": entity,
                "can_write": True,
                "edit_form": form,
                "types": [],
                "entity_seen": seen,
            },
            status=status,
        )
    _saved(
        request, _("Saved “%(name)s”.") % {"name": entity.canonical_name}, "entity.update", entity
    )
    return _back_to_entity(request, entity.pk)


def _stale_entity_message() -> str:
    return _(
        "This entity was changed since you opened this page (its name, type or "
        "description). Your changes are kept below: save again to apply them over it."
    )


def _back_to_entity(request, entity_id: str):
    url = reverse("entities:detail", args=[entity_id])
    if request.htmx:
        response = redirect(url)
        response.status_code = 204
        response["HX-Redirect"] = url
        return response
    return redirect(url)


@require_POST
@curator_required
@merged_away_answered
def alias_restore(request, entity_id: str):
    """Take back an alias just removed (the undo the alias list offers)."""
    entity, _w = checked_get(request, Entity, entity_id, write=True)
    alias = request.POST.get("alias", "")
    try:
        services.alias_add(entity=entity, alias=alias, actor=request.user)
    except DomainError as exc:
        return aliases_response(request, entity, error=exc.translated, status=400)
    return aliases_response(request, entity)


# --- facts ------------------------------------------------------------------------------


FIELD_NAMES = {"object": "object_name", "subject": "predicate"}


@require_POST
@curator_required
@merged_away_answered
def fact_add(request, entity_id: str):
    """Write a fact about the entity from its page; errors show beside their field."""
    entity, _w = checked_get(request, Entity, entity_id, write=True)
    form = FactForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        try:
            stored = curation.fact_create(
                entity=entity,
                text=data["text"],
                predicate=data["predicate"],
                object_name=data["object_name"],
                object_value=data["object_value"],
                confidence=1.0 if data["confidence"] is None else data["confidence"],
                source=data["source"],
                valid_from=_to_datetime(data["valid_from"]),
                valid_to=_to_datetime(data["valid_to"]),
                actor=request.user,
            )
        except DomainError as exc:
            form.add_error(None, form_error(exc, form.fields, FIELD_NAMES.get(exc.field or "")))
        else:
            confirmed = stored.action == "confirmed"
            return facts_response(request, entity, added=stored.fact, confirmed=confirmed)
    return facts_response(request, entity, fact_form=form, status=400)


def _fact_entity(request, fact: Fact) -> Entity | None:
    wanted = request.GET.get("entity") or request.POST.get("entity")
    links = fact.entity_facts.select_related("entity").order_by("role", "entity_id")
    chosen = next((link.entity for link in links if link.entity_id == wanted), None)
    return chosen or next((link.entity for link in links), None)


@require_http_methods(["GET", "POST"])
@curator_required
def fact_edit(request, fact_id: int):
    """A fact's own page: edit its text, value, confidence, source, status and validity,
    or replace it by a corrected one (supersede)."""
    visible = Fact.objects.select_related("subject").filter(page_scopes(request.user).q())
    fact, can_write = checked_get(request, visible, fact_id)
    entity = _fact_entity(request, fact)
    initial = _fact_initial(fact)
    form = FactEditForm(request.POST or None, initial=initial)
    seen = state_seen(fact, FACT_SHOWN)
    status = 200
    if request.method == "POST":
        checked_get(request, Fact, fact_id, write=True)
        if request.POST.get("seen", seen) != seen and not _as_stored(form, initial):
            # Drawn before another change (a retraction, a resolution): saving it
            # would write every field back over that change. (Save clicked twice finds
            # the fact as this form has it: nothing to write over.)
            form.add_error(None, _stale_message(fact))
            status = 409
        elif _as_stored(form, initial):
            # Nothing to write: no "saved" with the Undo of this curator's earlier edit.
            messages.info(request, _("Nothing to save: the fact already says this."))
            return redirect(_fact_back(fact, entity))
        elif form.is_valid():
            data = form.cleaned_data
            changes = {k: data[k] for k in ("text", "predicate", "object_value", "source")}
            changes.update(
                confidence=fact.confidence if data["confidence"] is None else data["confidence"],
                status=data["status"],
            )
            for name in ("valid_from", "valid_to"):
                if data[name] != initial[name]:  # a date as shown keeps its stored moment
                    changes[name] = _to_datetime(data[name])
            try:
                services.fact_update(fact=fact, actor=request.user, **changes)
            except DomainError as exc:
                form.add_error(None, form_error(exc, form.fields))
            else:
                _saved(request, _("Fact saved."), "fact.update", fact)
                return redirect(_fact_back(fact, entity))
    if form.errors and status == 200:
        status = 400
    return _fact_page(request, fact, entity, form=form, can_write=can_write, status=status)


def _as_stored(form: FactEditForm, stored: dict) -> bool:
    """Whether the posted form says what the fact holds now, field for field."""
    if not form.is_valid():
        return False
    data = {**form.cleaned_data}
    if data["confidence"] is None:  # left empty: the stored confidence is kept
        data["confidence"] = stored["confidence"]
    return all(data[k] == v for k, v in stored.items())


def _fact_initial(fact: Fact) -> dict:
    return {
        "text": fact.text,
        "predicate": fact.predicate,
        "object_value": fact.object_value,
        "confidence": fact.confidence,
        "source": fact.source,
        "status": fact.status,
        "valid_from": fact.valid_from.date() if fact.valid_from else None,
        "valid_to": fact.valid_to.date() if fact.valid_to else None,
    }


def _fact_page(request, fact: Fact, entity, *, form, can_write: bool, status: int, **extra):
    context = {"fact": fact, "entity": entity, "form": form, "can_write": can_write}
    context["seen"] = state_seen(fact, FACT_SHOWN)
    context["notes"] = hooks.fact_notes_read(fact.pk, scopes=page_scopes(request.user))
    return render_page(request, "entities/fact.html", {**context, **extra}, status=status)


def _stale_message(fact: Fact) -> str:
    return _(
        "This fact was changed since you opened this page (it is %(status)s now). Your "
        "changes are kept below: save again to apply them over it."
    ) % {"status": _(fact.get_status_display()).lower()}


def _fact_back(fact: Fact, entity: Entity | None) -> str:
    if entity is not None:
        return reverse("entities:detail", args=[entity.pk]) + "#facts"
    return reverse("entities:fact", args=[fact.pk])


@require_POST
@curator_required
def fact_retract(request, fact_id: int):
    """Retract a fact from the entity page (it stays in history, struck through)."""
    fact, _w = checked_get(request, Fact, fact_id, write=True)
    entity = _fact_entity(request, fact)
    error, status = "", 200
    if fact.status != Fact.Status.ACTIVE:
        # The page offered Retract while the fact was active; another curator (or a
        # resolution) ended it since: a superseded fact stays superseded.
        error, status = _ended_message(fact), 409
    elif request.POST.get("seen", state_seen(fact, ("text",))) != state_seen(fact, ("text",)):
        # Rewritten since the row was drawn: retracting it would end words never seen.
        error, status = _rewritten_message(), 409
    else:
        try:
            services.fact_update(fact=fact, actor=request.user, status=Fact.Status.RETRACTED)
        except DomainError as exc:
            error, status = exc.translated, exc.status
    if entity is None:
        return redirect("entities:fact", fact_id=fact.pk)
    fact.refresh_from_db()
    if error:
        return facts_response(request, entity, error=error, status=status)
    return facts_response(request, entity, retracted=fact)


def _rewritten_message() -> str:
    return _(
        "This fact was rewritten since you opened this page: nothing was retracted. It is "
        "shown as it is now; retract it again if you still mean to."
    )


def _ended_message(fact: Fact) -> str:
    return _(
        "This fact was changed since you opened this page (it is %(status)s now): "
        "nothing was retracted."
    ) % {"status": _(fact.get_status_display()).lower()}


@require_POST
@curator_required
def fact_supersede(request, fact_id: int):
    """Replace a fact by a corrected text: the old one is superseded, not lost."""
    fact, _w = checked_get(request, Fact, fact_id, write=True)
    entity = _fact_entity(request, fact)
    seen = state_seen(fact, FACT_SHOWN)
    try:
        if request.POST.get("seen", seen) != seen:
            # Drawn before another curator's edit: the fact replaced would be one whose
            # words this curator never saw.
            raise Conflict(_stale_message(fact))
        curation.fact_supersede(fact=fact, text=request.POST.get("text", ""), actor=request.user)
    except DomainError as exc:  # the page again, the corrected text kept in its box
        fact.refresh_from_db()
        form = FactEditForm(initial=_fact_initial(fact))
        return _fact_page(
            request,
            fact,
            entity,
            form=form,
            can_write=True,
            status=exc.status,
            supersede_text=request.POST.get("text", ""),
            supersede_error=exc.translated,
        )
    _saved(request, _("Fact replaced; the old one is kept as superseded."), "fact.supersede", fact)
    return redirect(_fact_back(fact, entity))
