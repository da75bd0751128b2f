"""Run the memory as a Model Context Protocol server (stdio by default)."""

from __future__ import annotations

import os

import anyio
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from entities.mcp.server import mcp_server_build
from entities.mcp.stdio import serve_stdio
from entities.mcp.tools import ToolContext
from entities.scopes import scope_clean
from kgsite.errors import DomainError
from kgsite.vectors.service import vector_writes_inline


class Command(BaseCommand):
    help = (
        "Serve the memory over MCP: stdio (the default, for a client that starts this "
        "command) or streamable HTTP (--http). Nothing but the protocol goes to stdout."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--scope",
            default=None,
            help="Project key (default: KGSITE_MCP_SCOPE, else global memory only).",
        )
        parser.add_argument(
            "--read-only", action="store_true", help="Leave out the tools that write."
        )
        parser.add_argument(
            "--user", default=None, help="Audit writes as this user (default: KGSITE_MCP_USER)."
        )
        parser.add_argument("--http", action="store_true", help="Streamable HTTP, not stdio.")
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8765)

    def handle(self, *args, **options):
        try:
            scope = scope_clean(
                options["scope"]
                if options["scope"] is not None
                else os.environ.get("KGSITE_MCP_SCOPE", "")
            )
        except DomainError as exc:
            raise CommandError(exc.message) from None
        username = options["user"] or os.environ.get("KGSITE_MCP_USER", "")
        if username and not get_user_model().objects.filter(username=username).exists():
            # Else every write would go unaudited without a word.
            raise CommandError(f"--user: no user '{username}'")
        if not 1 <= options["port"] <= 65535:
            raise CommandError(f"--port must be between 1 and 65535, not {options['port']}")
        read_only = options["read_only"] or os.environ.get("KGSITE_MCP_READ_ONLY", "") == "1"
        # Read-your-writes without a worker: this process indexes what it stores.
        vector_writes_inline()
        server = mcp_server_build(ToolContext(scope=scope, read_only=read_only, username=username))
        if options["http"]:
            server.run("streamable-http", host=options["host"], port=options["port"])
        else:
            # The SDK's stdio loop behind a guard that answers malformed lines.
            anyio.run(serve_stdio, server)
