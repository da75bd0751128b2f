"""Facts written over the API with no client named got the first 8 characters of the
writer's token as their client (issue 16): shown to every reader, a piece of a secret.
Blank those; a client the writer named stays."""

from django.db import migrations


def forwards(apps, schema_editor):
    Token = apps.get_model("authtoken", "Token")
    Fact = apps.get_model("entities", "Fact")
    prefixes = {key[:8] for key in Token.objects.values_list("key", flat=True)}
    for prefix in prefixes:
        Fact.objects.filter(client=prefix).update(client="")


class Migration(migrations.Migration):
    dependencies = [
        ("entities", "0008_fact_kind_scope_episode_external_link"),
        ("authtoken", "0001_initial"),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
