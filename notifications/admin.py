from __future__ import annotations

from django.contrib import admin

from .models import Notification


@admin.register(Notification)
class NotificationAdmin(admin.ModelAdmin):
    list_display = ["title", "type", "urgency", "read", "recipient", "created_at"]
    list_filter = ["urgency", "type", "read"]
    search_fields = ["title"]
    readonly_fields = ["created_at", "read_at", "key"]
    raw_id_fields = ["recipient"]
    date_hierarchy = "created_at"
