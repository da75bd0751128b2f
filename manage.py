#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sqlite3
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kgsite.settings.dev")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line
    from django.db import DatabaseError

    try:
        execute_from_command_line(sys.argv)
    except ImproperlyConfigured as exc:  # a setting from the environment: one line, exit 1
        sys.exit(f"ImproperlyConfigured: {exc}")
    # A database unreachable or never migrated: one line naming the remedy (sqlite3's own
    # error where a query runs on the raw SQLite connection).
    except (DatabaseError, sqlite3.DatabaseError) as exc:
        from kgsite.management.database import database_refusal

        line = database_refusal(exc, command=sys.argv[1])
        if line is None:
            raise
        sys.exit(f"{sys.argv[1]}: {line}")
    except KeyboardInterrupt:  # Ctrl-C: one line, not a traceback; 130 as a shell says it
        command = sys.argv[1] if len(sys.argv) > 1 else "manage.py"
        print(f"{command}: interrupted", file=sys.stderr)
        sys.exit(130)


if __name__ == "__main__":
    main()
