from django.db import migrations, models


def existing_models_saw_every_project(apps, schema_editor):
    """Models trained before views existed learned from every project's edges."""
    apps.get_model("entities", "KGEModel").objects.update(all_scopes=True)


class Migration(migrations.Migration):
    dependencies = [
        ("entities", "0012_pairs_fact_confirmation"),
    ]

    operations = [
        migrations.AddField(
            model_name="kgemodel",
            name="scope",
            field=models.CharField(blank=True, db_index=True, default="", max_length=128),
        ),
        migrations.AddField(
            model_name="kgemodel",
            name="all_scopes",
            field=models.BooleanField(default=False),
        ),
        migrations.RunPython(existing_models_saw_every_project, migrations.RunPython.noop),
    ]
