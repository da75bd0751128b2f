"""Notifications are raised by the checks and jobs, not typed in; the admin reads them
and marks them read through the service."""

from __future__ import annotations

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from . import services
from .models import Notification
from .selectors import visible_to


@admin.register(Notification)
class NotificationAdmin(admin.ModelAdmin):
    list_display = ["title", "type", "urgency", "read", "recipient", "created_at"]
    list_filter = ["urgency", "type", "read"]
    search_fields = ["title"]
    date_hierarchy = "created_at"
    actions = ["mark_read"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    # Not deleted here: a personal notice would vanish before its recipient saw it, and
    # an open contradiction lose its only alert; mark them read instead. The permission
    # itself stays, so a user deleted in the admin still takes their notices along.
    def get_actions(self, request):
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions

    def delete_view(self, request, object_id, extra_context=None):
        raise PermissionDenied

    @admin.action(description=gettext_lazy("Mark the selected notifications read"))
    def mark_read(self, request, queryset):
        """The list holds everyone's notifications; a personal one is its recipient's to
        mark read, so it is left as it was (and counted), never an error page."""
        selected = set(queryset.values_list("pk", flat=True))
        mine = set(queryset.filter(visible_to(request.user)).values_list("pk", flat=True))
        marked = services.notification_mark_read(user=request.user, ids=sorted(mine))
        others = len(selected - mine)
        self.message_user(
            request,
            _("%(n)s marked read.") % {"n": marked}
            + (
                " " + _("%(n)s addressed to someone else left as they were.") % {"n": others}
                if others
                else ""
            ),
        )
