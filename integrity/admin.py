from __future__ import annotations

from django.contrib import admin

from kgsite.text import normalize

from .models import Contradiction, PendingFactCheck


@admin.register(Contradiction)
class ContradictionAdmin(admin.ModelAdmin):
    """Read-mostly: resolutions go through the service (API) so they are audited and
    can be undone."""

    list_display = ["id", "fact_a", "fact_b", "kind", "confidence", "status", "resolution"]
    list_filter = ["status", "kind", "resolution"]
    # The facts' normalised texts with the normalised term, as the fact admin searches:
    # "köln" or a decomposed "Köln" finds "KÖLN" (SQLite's LIKE folds ASCII letters only).
    search_fields = ["fact_a__text_norm", "fact_b__text_norm", "explanation"]
    list_select_related = ["fact_a", "fact_b"]
    raw_id_fields = ["fact_a", "fact_b", "resolved_by"]
    readonly_fields = [
        "fact_a",
        "fact_b",
        "kind",
        "confidence",
        "explanation",
        "status",
        "resolution",
        "note",
        "resolved_by",
        "resolved_at",
        "created_at",
        "updated_at",
    ]

    def get_search_results(self, request, queryset, search_term):
        return super().get_search_results(request, queryset, normalize(search_term))

    def has_add_permission(self, request) -> bool:
        return False  # contradictions are found by the check, not typed in

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # dismiss or resolve it (audited, undoable); a delete left no trace


@admin.register(PendingFactCheck)
class PendingFactCheckAdmin(admin.ModelAdmin):
    """Facts waiting for a check the broker refused; ``check_pending_facts`` runs them."""

    list_display = ["id", "fact", "created_at"]
    raw_id_fields = ["fact"]
    readonly_fields = ["fact", "error", "created_at"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # deleted, its fact would never be checked: the command clears it
