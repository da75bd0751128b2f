"""Rebuild the graph's edges from the facts (``entities.graph.edges.edges_rebuild``)."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from entities.graph.edges import edges_rebuild


class Command(BaseCommand):
    help = (
        "Rebuild every edge of the graph from the active facts' triples (after a bulk load "
        "that bypassed the services, such as import_graph)."
    )

    def handle(self, *args, **options) -> None:
        self.stdout.write(f"edges rebuilt from {edges_rebuild()} facts")
