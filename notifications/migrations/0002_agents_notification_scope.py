from django.db import migrations, models


def scope_from_facts(apps, schema_editor):
    """Notices about facts take their project (a pair never spans two projects)."""
    Notification = apps.get_model("notifications", "Notification")
    Fact = apps.get_model("entities", "Fact")
    for notice in Notification.objects.exclude(payload={}).iterator():
        ids = [
            (notice.payload.get(side) or {}).get("id")
            for side in ("fact_a", "fact_b")
            if isinstance(notice.payload.get(side), dict)
        ]
        ids = [i for i in ids if isinstance(i, int)]
        if not ids:
            continue
        scopes = [s for s in Fact.objects.filter(pk__in=ids).values_list("scope", flat=True) if s]
        if scopes:
            Notification.objects.filter(pk=notice.pk).update(scope=scopes[0])


class Migration(migrations.Migration):
    dependencies = [
        ("notifications", "0001_initial"),
        ("entities", "0012_pairs_fact_confirmation"),
    ]

    operations = [
        migrations.AddField(
            model_name="notification",
            name="scope",
            field=models.CharField(blank=True, db_index=True, default="", max_length=128),
        ),
        migrations.RunPython(scope_from_facts, migrations.RunPython.noop),
    ]
