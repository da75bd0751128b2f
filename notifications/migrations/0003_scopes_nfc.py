"""Notification scopes stored before scopes were normalised are trimmed and put in
Unicode NFC, like the facts they are about (entities 0019)."""

import unicodedata

from django.db import migrations


def forwards(apps, schema_editor):
    Notification = apps.get_model("notifications", "Notification")
    scopes = Notification.objects.exclude(scope="").values_list("scope", flat=True).distinct()
    for scope in scopes:
        clean = unicodedata.normalize("NFC", scope.strip())
        if clean != scope:
            Notification.objects.filter(scope=scope).update(scope=clean)


class Migration(migrations.Migration):
    dependencies = [("notifications", "0002_agents_notification_scope")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
