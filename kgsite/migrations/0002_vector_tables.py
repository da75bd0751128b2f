"""The pgvector backend's tables, created only where they can be.

On PostgreSQL with the ``vector`` extension installed (available to CREATE EXTENSION),
this creates the extension and the two tables. Everywhere else it changes nothing in the
database (SQLite, PostgreSQL without pgvector), so the hnswlib backend keeps working; to
use ``KGSITE_VECTOR_BACKEND=pgvector`` later, install pgvector on the server, then
``manage.py migrate kgsite 0001 && manage.py migrate kgsite`` (or run CREATE EXTENSION
vector as a superuser first if the migration's role may not create extensions).
"""

import pgvector.django
from django.db import migrations, models

from kgsite.vectors.pgvector import TABLE, STATE, tables_create


def create_tables(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    with schema_editor.connection.cursor() as cursor:
        tables_create(cursor)


def drop_tables(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {TABLE}")
        cursor.execute(f"DROP TABLE IF EXISTS {STATE}")


class Migration(migrations.Migration):
    dependencies = [
        ("kgsite", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(create_tables, drop_tables)],
            state_operations=[
                migrations.CreateModel(
                    name="VectorKindState",
                    fields=[
                        ("kind", models.CharField(max_length=64, primary_key=True, serialize=False)),
                        ("signature", models.CharField(max_length=255)),
                        ("dim", models.IntegerField()),
                        ("complete", models.BooleanField()),
                    ],
                    options={"db_table": "kgsite_vectorkind"},
                ),
                migrations.CreateModel(
                    name="StoredVector",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("kind", models.CharField(max_length=64)),
                        ("key", models.CharField(max_length=255)),
                        ("hash", models.CharField(max_length=32)),
                        ("embedding", pgvector.django.VectorField()),
                    ],
                    options={
                        "db_table": "kgsite_vector",
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("kind", "key"), name="kgsite_vector_kind_key"
                            )
                        ],
                    },
                ),
            ],
        ),
    ]
