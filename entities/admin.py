from __future__ import annotations

from django.contrib import admin

from kgsite.models import AuditEntry
from kgsite.text import normalize

from .models import Alias, Entity, EntityFact, Fact


class AliasInline(admin.TabularInline):
    model = Alias
    extra = 1
    fields = ["alias", "manual"]


class EntityFactInline(admin.TabularInline):
    model = EntityFact
    extra = 0
    fields = ["fact", "role"]
    raw_id_fields = ["fact"]
    verbose_name = "linked fact"


@admin.register(Entity)
class EntityAdmin(admin.ModelAdmin):
    list_display = ["canonical_name", "type", "id", "updated_at"]
    list_filter = ["type"]
    search_fields = ["name_norm", "aliases__alias_norm", "=id"]
    readonly_fields = ["id", "name_norm", "created_at", "updated_at"]
    inlines = [AliasInline, EntityFactInline]

    def get_search_results(self, request, queryset, search_term):
        # Search the normalised columns with the normalised term ("STRASSE" finds "Straße").
        return super().get_search_results(request, queryset, normalize(search_term))

    def save_model(self, request, obj, form, change):
        from .services import normalize_type, validate_name

        obj.canonical_name = validate_name(obj.canonical_name)
        obj.name_norm = normalize(obj.canonical_name)
        obj.type = normalize_type(obj.type)
        obj.curated = True
        super().save_model(request, obj, form, change)

    def save_formset(self, request, form, formset, change):
        for alias in formset.save(commit=False):
            if isinstance(alias, Alias):
                alias.alias_norm = normalize(alias.alias)
                alias.type = form.instance.type
            alias.save()
        for obj in formset.deleted_objects:
            obj.delete()
        formset.save_m2m()


@admin.register(Fact)
class FactAdmin(admin.ModelAdmin):
    list_display = ["text", "status", "confidence", "confirmations", "source", "created_at"]
    list_filter = ["status", "source"]
    search_fields = ["text_norm"]
    raw_id_fields = ["subject", "object_entity", "created_by"]
    readonly_fields = ["text_norm", "created_at", "updated_at"]

    def save_model(self, request, obj, form, change):
        obj.text_norm = normalize(obj.text)
        super().save_model(request, obj, form, change)


@admin.register(AuditEntry)
class AuditEntryAdmin(admin.ModelAdmin):
    list_display = ["created_at", "actor", "action", "target_type", "target_id"]
    list_filter = ["action"]
    readonly_fields = [f.name for f in AuditEntry._meta.fields]
