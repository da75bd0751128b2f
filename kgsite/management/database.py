"""What ``manage.py`` says when a command meets a database it cannot use (unreachable,
or never migrated): one line naming the remedy, instead of a traceback through Django's
and the driver's frames."""

from __future__ import annotations

from django.db import DatabaseError, connection
from django.db.migrations.executor import MigrationExecutor


def database_refusal(exc: Exception, *, command: str = "") -> str | None:
    """The line for a database that cannot be reached or was never migrated; None for
    any other error (the traceback is then the useful answer)."""
    try:
        connection.ensure_connection()
    except DatabaseError as down:  # the driver's first line names host, port and cause
        reason = str(down).strip().splitlines()[0] if str(down).strip() else type(down).__name__
        return f"cannot connect to the database ({reason}): check DATABASE_URL"
    if command == "migrate":  # a migration that failed: its traceback says why
        return None
    try:
        executor = MigrationExecutor(connection)
        plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    except DatabaseError:
        return None
    if not plan:
        return None
    reason = " ".join(str(exc).split())
    return (
        f"the database is not migrated ({len(plan)} migrations to apply; {reason}): "
        "run 'manage.py migrate' first"
    )
