from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from entities.scopes import ScopeFilter
from entities.selectors import entity_lookup
from kgsite.errors import DomainError


class Command(BaseCommand):
    help = "Look an entity up by canonical name or alias (the same payload as the API)."

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--type", default=None)
        parser.add_argument("--json", action="store_true", help="Print the API's JSON payload.")
        parser.add_argument("--scope", default="", help="Project key (facts: it plus global).")
        parser.add_argument("--all-scopes", action="store_true", help="Facts of every project.")

    def handle(self, *args, name: str, type: str | None, json: bool, **options):  # noqa: A002
        try:
            scopes = ScopeFilter.of(options["scope"], options["all_scopes"])
            payload = entity_lookup(name=name, type=type, scopes=scopes).as_dict()
        except DomainError as exc:
            raise CommandError(exc.message) from None
        if json:
            self.stdout.write(_dumps(payload))
            return
        self.stdout.write(_human(payload))


def _dumps(payload: dict) -> str:
    return json.dumps(payload, ensure_ascii=False, indent=2)


def _human(payload: dict) -> str:
    match = payload["match"]
    if payload["entity"] is not None:  # by canonical name, alias or an imported id
        e = payload["entity"]
        lines = [f"{e['canonical_name']} [{e['type'] or 'untyped'}] id={e['id']} (via {match})"]
        if payload["aliases"]:
            lines.append("aliases: " + ", ".join(payload["aliases"]))
        lines.append(f"facts: {len(payload['facts'])}")
        return "\n".join(lines)
    if match == "ambiguous":
        return "ambiguous: " + "; ".join(
            f"{c['canonical_name']} [{c['type']}] id={c['id']}" for c in payload["candidates"]
        )
    lines = ["no entity"]
    if payload["suggestions"]:
        lines.append(
            "did you mean: "
            + ", ".join(f"{s['canonical_name']} ({s['score']:.2f})" for s in payload["suggestions"])
        )
    return "\n".join(lines)
