"""Admin: django-axes' "Access attempts" list, with an action that unlocks at once, and
the base of the apps' read-only lists."""

from __future__ import annotations

from axes.admin import AccessAttemptAdmin
from axes.models import AccessAttempt
from axes.utils import reset
from django.contrib import admin
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy


class ReadOnlyAdmin(admin.ModelAdmin):
    """Rows the services or the pipeline write: shown, never typed in, edited or deleted
    by hand (the history they keep would lie)."""

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class UnlockingAccessAttemptAdmin(AccessAttemptAdmin):
    """django-axes' list (locked-out filter, remaining attempts), plus "Unlock": a user
    name is locked by its failures from every address and an address by its failures for
    every name, so unlocking clears both for each selected row."""

    actions = ["unlock", *AccessAttemptAdmin.actions]

    @admin.action(description=gettext_lazy("Unlock: forget these users' and addresses' failures"))
    def unlock(self, request, queryset) -> None:
        removed = 0
        for username, address in set(queryset.values_list("username", "ip_address")):
            if username:
                removed += reset(username=username)
            if address:
                removed += reset(ip=address)
        self.message_user(request, _("Unlocked: %(n)s failure record(s) removed.") % {"n": removed})


if admin.site.is_registered(AccessAttempt):
    admin.site.unregister(AccessAttempt)
admin.site.register(AccessAttempt, UnlockingAccessAttemptAdmin)
