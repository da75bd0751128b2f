"""The full-text index of facts (issue 29): FTS5 with triggers on SQLite, a generated
tsvector column with a GIN index on PostgreSQL (see ``entities.search.fulltext``)."""

from django.db import migrations


def install(apps, schema_editor):
    from entities.search.fulltext import fulltext_install, fulltext_rebuild_on

    if fulltext_install(schema_editor.connection):
        fulltext_rebuild_on(schema_editor.connection)


def uninstall(apps, schema_editor):
    from entities.search.fulltext import fulltext_uninstall

    fulltext_uninstall(schema_editor.connection)


class Migration(migrations.Migration):
    dependencies = [("entities", "0015_agents_external_fact_scope")]

    operations = [migrations.RunPython(install, uninstall)]
