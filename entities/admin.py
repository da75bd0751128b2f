"""The admin goes through the same services as the API: forms check with the services'
own rules (a clash is a form error, never a 500), saves and deletes call the services,
so audit rows, alias types and the vector index stay right."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db import transaction
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from kgsite.admin import ReadOnlyAdmin
from kgsite.errors import DomainError
from kgsite.models import AuditEntry
from kgsite.pages import form_error
from kgsite.text import normalize
from kgsite.vectors.service import vector_batch

from . import previews, services
from .models import Alias, DuplicateSuggestion, Entity, EntityFact, EntityMerge, Fact
from .names import normalize_type

# --- Entities ---------------------------------------------------------------------------


class EntityAdminForm(forms.ModelForm):
    class Meta:
        model = Entity
        fields = ["canonical_name", "type", "description"]

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        saved = self.instance.pk is not None and not self.instance._state.adding
        stored = Entity.objects.get(pk=self.instance.pk) if saved else None
        try:
            # alias_norms=(): the alias formset checks the aliases as edited.
            plan = services.entity_check(
                entity=stored,
                name=data.get("canonical_name"),
                type=data.get("type") or "",
                alias_norms=(),
            )
        except DomainError as exc:
            raise form_error(exc, self.fields) from None
        data["canonical_name"], data["type"] = plan.display, plan.type
        return data


class AliasFormSet(forms.BaseInlineFormSet):
    """Checks every alias as ``alias_add`` would, against the entity as edited."""

    def clean(self):
        super().clean()
        entity = self.instance
        saved = entity.pk is not None and not entity._state.adding
        stored = Entity.objects.get(pk=entity.pk) if saved else None
        try:
            entity_type = normalize_type(entity.type)
            name_norm = normalize(entity.canonical_name)
        except DomainError:
            return  # the entity form shows that error
        kept: dict[str, forms.Form] = {}
        for form in self.forms:
            if not hasattr(form, "cleaned_data") or form in self.deleted_forms:
                continue
            text = form.cleaned_data.get("alias")
            if not text:
                continue
            original = form.instance.alias_norm if form.instance.pk else None
            if original is not None and normalize(text) == original == name_norm:
                continue  # the new canonical name makes it redundant: entity_update drops it
            try:
                display, norm, _found = services.alias_check(
                    entity=stored or entity,
                    alias=text,
                    entity_type=entity_type,
                    name_norm=name_norm,
                )
            except DomainError as exc:
                form.add_error("alias", exc.translated)
                continue
            if norm in kept:
                form.add_error("alias", _("'%(alias)s' is listed twice") % {"alias": display})
                continue
            kept[norm] = form
            form.cleaned_data["alias"] = display


class AliasInline(admin.TabularInline):
    model = Alias
    formset = AliasFormSet
    extra = 1
    fields = ["alias", "manual"]
    # Provenance: whether a person or extraction added the alias. Aliases written here are
    # a person's; a checkbox would offer a change the save does not make.
    readonly_fields = ["manual"]


class EntityFactInline(admin.TabularInline):
    """Linked facts, shown read-only: links are made through the API or fact_store."""

    model = EntityFact
    extra = 0
    fields = ["fact_link", "role"]
    readonly_fields = ["fact_link", "role"]
    verbose_name = gettext_lazy("linked fact")
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False

    @admin.display(description=gettext_lazy("fact"))
    def fact_link(self, link: EntityFact) -> str:
        url = reverse("admin:entities_fact_change", args=[link.fact_id])
        return format_html('<a href="{}">#{}</a> {}', url, link.fact_id, link.fact)


@admin.register(Entity)
class EntityAdmin(admin.ModelAdmin):
    form = EntityAdminForm
    list_display = ["canonical_name", "type", "id", "updated_at"]
    list_filter = ["type"]
    search_fields = ["name_norm", "aliases__alias_norm", "=id"]
    readonly_fields = ["id", "graph", "name_norm", "curated", "created_at", "updated_at"]
    inlines = [AliasInline, EntityFactInline]
    actions = ["merge_selected"]

    @admin.action(description=gettext_lazy("Merge selected entities"), permissions=["curate"])
    def merge_selected(self, request, queryset):
        """An intermediate page: choose the survivor, see the preview, then confirm."""
        entities = list(queryset.order_by("created_at", "pk"))
        if len(entities) < 2:
            self.message_user(
                request, _("Select at least two entities to merge."), messages.WARNING
            )
            return None
        by_id = {e.pk: e for e in entities}
        survivor = by_id.get(request.POST.get("survivor"), entities[0])
        duplicates = [e for e in entities if e.pk != survivor.pk]
        cross = request.POST.get("allow_cross_type") == "on"
        confirm = "_confirm" in request.POST
        # What the preview on the page was drawn for: Merge after changing the survivor
        # or the cross-type box shows the new preview first instead of merging unseen.
        shown = f"{survivor.pk}|{'cross' if cross else ''}"
        changed = confirm and request.POST.get("previewed", shown) != shown
        if changed:
            confirm = False
        try:
            outcome = services.entity_merge(
                survivor=survivor,
                duplicates=duplicates,
                actor=request.user,
                allow_cross_type=cross,
                preview=not confirm,
            )
        except DomainError as exc:
            outcome, error = None, exc.translated
        else:
            error = None
        if confirm and outcome is not None:
            self.message_user(
                request,
                _(
                    "Merged %(n)s entities into '%(name)s' (merge %(merge)s; undo it from "
                    "the merge history)."
                )
                % {
                    "n": len(duplicates),
                    "name": survivor.canonical_name,
                    "merge": outcome.merge.pk,
                },
                messages.SUCCESS,
            )
            return None
        context = {
            **self.admin_site.each_context(request),
            "title": _("Merge entities"),
            "opts": self.model._meta,
            "entities": entities,
            "survivor": survivor,
            "allow_cross_type": cross,
            "preview": previews.plan_shown(outcome.plan) if outcome is not None else None,
            "error": error,
            "changed": changed,
            "previewed": shown,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            "action": "merge_selected",
        }
        return TemplateResponse(request, "admin/entities/merge_confirm.html", context)

    def has_curate_permission(self, request) -> bool:
        return request.user.has_perm("entities.curate")

    @admin.display(description=gettext_lazy("graph"))
    def graph(self, obj: Entity) -> str:
        if not obj.pk:
            return "-"
        return format_html(
            '<a href="{}">{}</a>', reverse("entity-graph", args=[obj.pk]), _("Show its graph")
        )

    def get_search_results(self, request, queryset, search_term):
        # Search the normalised columns with the normalised term ("STRASSE" finds "Straße").
        return super().get_search_results(request, queryset, normalize(search_term))

    def save_model(self, request, obj, form, change):
        if change:
            return  # save_related: alias removals first, then the entity, then additions
        data = form.cleaned_data
        entity = services.entity_create(
            name=data["canonical_name"],
            type=data["type"],
            description=data.get("description", ""),
            actor=request.user,
        )
        obj.pk, obj.name_norm, obj.curated = entity.pk, entity.name_norm, entity.curated
        obj._state.adding = False

    def save_related(self, request, form, formsets, change):
        for formset in formsets:  # what the admin's change message reads
            formset.new_objects, formset.changed_objects, formset.deleted_objects = [], [], []
        alias_formset = next(f for f in formsets if isinstance(f, AliasFormSet))
        entity = Entity.objects.get(pk=form.instance.pk)
        removals: list[Alias] = []
        additions: list[str] = []
        for alias_form in alias_formset.forms:
            if not getattr(alias_form, "cleaned_data", None):
                continue
            stored = alias_form.instance if alias_form.instance.pk else None
            deleted = alias_form in alias_formset.deleted_forms
            text = alias_form.cleaned_data.get("alias") or ""
            # The written form counts, not only the normalised one: a fixed letter case
            # ("Postgresql" to "PostgreSQL") is an edit too (it was dropped unsaid).
            # (``initial``: the form has already copied the new text onto the instance.)
            was = alias_form.initial.get("alias") if stored is not None else None
            if stored is not None and (deleted or text != was):
                removals.append(stored)
            if not deleted and text and (stored is None or text != was):
                additions.append(text)
        for alias in removals:
            services.alias_remove(entity=entity, alias=alias.alias_norm, actor=request.user)
        alias_formset.deleted_objects = removals
        if change:
            data = form.cleaned_data
            entity = services.entity_update(
                entity=entity,
                actor=request.user,
                canonical_name=data["canonical_name"],
                type=data["type"],
                description=data.get("description", ""),
            )
        for text in additions:
            alias, created = services.alias_add(entity=entity, alias=text, actor=request.user)
            if created:
                alias_formset.new_objects.append(alias)
        form.instance.curated = entity.curated

    def get_deleted_objects(self, objs, request):
        # entity_delete takes its aliases, links and other apps' rows about it (book
        # mentions) with it, though none of those may be deleted on its own.
        deleted, counts, _perms_needed, protected = super().get_deleted_objects(objs, request)
        return deleted, counts, set(), protected

    def delete_model(self, request, obj):
        services.entity_delete(entity=obj, actor=request.user)

    def delete_queryset(self, request, queryset):
        with vector_batch(), transaction.atomic():
            for entity in queryset:
                services.entity_delete(entity=entity, actor=request.user)


# --- Facts ------------------------------------------------------------------------------


class FactAdminForm(forms.ModelForm):
    class Meta:
        model = Fact
        fields = [
            "text",
            "subject",
            "predicate",
            "object_entity",
            "object_value",
            "confidence",
            "source",
            "status",
            "valid_from",
            "valid_to",
        ]

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        try:
            if self.instance.pk is None:
                data["text"] = services.fact_check(
                    text=data.get("text", ""),
                    subject=data.get("subject"),
                    predicate=data.get("predicate", ""),
                    object_entity=data.get("object_entity"),
                    object_value=data.get("object_value", ""),
                    confidence=data.get("confidence", 1.0),
                    valid_from=data.get("valid_from"),
                    valid_to=data.get("valid_to"),
                )
            else:
                stored = Fact.objects.get(pk=self.instance.pk)
                # Only its checks: save_model hands the same values to fact_update.
                services.fact_changes(
                    fact=stored, **{k: data[k] for k in services.FACT_EDITABLE if k in data}
                )
        except DomainError as exc:
            raise form_error(exc, self.fields) from None
        return data


@admin.register(Fact)
class FactAdmin(admin.ModelAdmin):
    form = FactAdminForm
    list_display = ["text", "status", "confidence", "confirmations", "source", "created_at"]
    list_filter = ["status", "source"]
    search_fields = ["text_norm"]
    raw_id_fields = ["subject", "object_entity"]

    def get_search_results(self, request, queryset, search_term):
        # The normalised column with the normalised term, as for entities: "KÖLN" or a
        # decomposed "Köln" finds "Köln" (SQLite's LIKE folds ASCII letters only).
        return super().get_search_results(request, queryset, normalize(search_term))

    def get_readonly_fields(self, request, obj=None):
        fixed = ["text_norm", "confirmations", "client", "created_by", "created_at", "updated_at"]
        # The triple's ends are set when a fact is stored; fact_update edits the rest.
        return fixed if obj is None else ["subject", "object_entity", *fixed]

    def save_model(self, request, obj, form, change):
        data = form.cleaned_data
        if change:
            fact = services.fact_update(
                fact=obj,
                actor=request.user,
                **{k: data[k] for k in services.FACT_EDITABLE if k in data},
            )
        else:
            result = services.fact_store(
                text=data["text"],
                subject=data.get("subject"),
                predicate=data.get("predicate", ""),
                object_entity=data.get("object_entity"),
                object_value=data.get("object_value", ""),
                confidence=data.get("confidence", 1.0),
                source=data.get("source", ""),
                valid_from=data.get("valid_from"),
                valid_to=data.get("valid_to"),
                actor=request.user,
            )
            fact = result.fact
            if result.action == "confirmed":
                messages.info(
                    request,
                    _("Fact #%(id)s already said this: it was confirmed.") % {"id": fact.pk},
                )
            elif data.get("status") and data["status"] != fact.status:
                fact = services.fact_update(fact=fact, actor=request.user, status=data["status"])
        obj.pk, obj.text_norm = fact.pk, fact.text_norm
        obj._state.adding = False

    def save_related(self, request, form, formsets, change):
        pass  # links are made by fact_store; Fact has no other related rows to save here

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # as in the API: retract or supersede (status), so history keeps it


@admin.register(AuditEntry)
class AuditEntryAdmin(ReadOnlyAdmin):
    """The services write the log; here it is read only: a row typed in by hand or
    deleted would make the history lie (and an undo lose what it restores)."""

    list_display = ["created_at", "actor", "action", "target_type", "target_id"]
    list_filter = ["action"]
    readonly_fields = [f.name for f in AuditEntry._meta.fields]


# --- Merges and duplicate suggestions -----------------------------------------------------


@admin.register(EntityMerge)
class EntityMergeAdmin(admin.ModelAdmin):
    list_display = ["id", "survivor_name", "survivor", "created_at", "actor", "undone_at"]
    readonly_fields = [
        "survivor",
        "survivor_name",
        "duplicate_ids",
        "actor",
        "created_at",
        "undone_at",
        "undone_by",
        "what_moved",
    ]
    # The full before state (thousands of rows for a big merge) stays off the page.
    exclude = ["state"]
    actions = ["undo_selected"]

    @admin.display(description=gettext_lazy("what moved"))
    def what_moved(self, obj: EntityMerge) -> str:
        plan = obj.state.get("plan", {})
        moves = ", ".join(f"{n} {name}" for name, n in plan.get("moves", {}).items())
        aliases = ", ".join(plan.get("new_aliases", [])) or "none"
        return f"{moves}; new aliases: {aliases}; {len(plan.get('conflicts', []))} conflicts"

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # history: undo instead

    @admin.action(description=gettext_lazy("Undo selected merges"), permissions=["curate"])
    def undo_selected(self, request, queryset):
        for merge in queryset.order_by("-created_at", "-pk"):  # newest first
            try:
                services.entity_merge_undo(merge=merge, actor=request.user)
            except DomainError as exc:
                self.message_user(request, exc.translated, messages.ERROR)
            else:
                self.message_user(
                    request, _("Undid merge %(id)s.") % {"id": merge.pk}, messages.SUCCESS
                )

    def has_curate_permission(self, request) -> bool:
        return request.user.has_perm("entities.curate")


@admin.register(DuplicateSuggestion)
class DuplicateSuggestionAdmin(admin.ModelAdmin):
    list_display = ["pair_key", "entity_a", "entity_b", "score", "status"]
    list_filter = ["status"]
    readonly_fields = ["pair_key", "entity_a", "entity_b", "score", "evidence", "status"]
    actions = ["dismiss_selected"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # a dismissal is a decision: deleted, the next scan would ask again

    @admin.action(description=gettext_lazy("Dismiss selected suggestions"), permissions=["curate"])
    def dismiss_selected(self, request, queryset):
        done = 0
        for suggestion in queryset:
            try:
                services.duplicate_dismiss(suggestion=suggestion, actor=request.user)
            except DomainError as exc:
                self.message_user(request, exc.translated, messages.ERROR)
            else:
                done += 1
        if done:
            self.message_user(
                request,
                ngettext("Dismissed %(n)d suggestion.", "Dismissed %(n)d suggestions.", done)
                % {"n": done},
                messages.SUCCESS,
            )

    def has_curate_permission(self, request) -> bool:
        return request.user.has_perm("entities.curate")
