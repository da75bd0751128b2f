"""The domain trigger: before a tool call, the patterns of the domains it touches."""

from __future__ import annotations

import re
import time
from typing import Any

from django.conf import settings

from kgsite.errors import InvalidInput

from ..models import Fact
from ..scopes import ScopeFilter
from . import scorer
from .items import (
    MAX_TEXT,
    Budget,
    Fk,
    _facts,
    _ms,
    fact_item,
    text_check,
)
from .options import RecallOptions, trigger_check
from .retrieval import Query, candidates

# --- Before a tool call: domain patterns ---------------------------------------------------

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
MAX_ARGUMENT_WORDS = 2000


def _words(value: object, out: list[str], depth: int = 0) -> None:
    """Words of a tool's name and arguments (keys and string values, nested)."""
    if len(out) > MAX_ARGUMENT_WORDS or depth > 5:
        return
    if isinstance(value, str):
        out += [w.lower() for w in _WORD.findall(_CAMEL.sub(" ", value))]
    elif isinstance(value, dict):
        for key, item in value.items():
            _words(str(key), out, depth + 1)
            _words(item, out, depth + 1)
    elif isinstance(value, list | tuple):
        for item in value:
            _words(item, out, depth + 1)


def domains_detect(tool: str, arguments: object) -> dict[str, list[str]]:
    """Domain -> the configured keywords found among the call's words."""
    words: list[str] = []
    _words(tool, words)
    _words(arguments, words)
    present = set(words)
    joined = f" {' '.join(words)} "
    found: dict[str, list[str]] = {}
    for domain, keywords in settings.KGSITE_RECALL_DOMAINS.items():
        hits = []
        for keyword in keywords:
            kw = keyword.lower()
            spaced = " ".join(_WORD.findall(kw))
            if kw in present or (" " in spaced and f" {spaced} " in joined):
                hits.append(keyword)
        if hits:
            found[domain] = hits
    return found


def recall_domain(
    *, tool: str, arguments: object, scopes: ScopeFilter, options: RecallOptions
) -> dict[str, Any]:
    """The patterns of the domains a tool call touches, above the minimum confidence."""
    trigger_check("domain")
    started = time.perf_counter()
    tool = text_check(tool, "tool")
    if arguments is not None and not isinstance(arguments, dict):
        raise InvalidInput("arguments must be an object", field="arguments")
    detected = domains_detect(tool, arguments or {})
    if scorer.head_for("domain") is not None:
        return _domain_scored(tool, arguments, detected, scopes, options, started)
    # A domain the call names itself counts as one its keywords name (round 6).
    named = {d: [d] for d in _named_domains(tool, arguments) if d not in detected}
    patterns: list[Fact] = list(
        _facts(scopes, [Fk.PATTERN], options)
        .filter(domain__in=sorted(set(detected) | set(named)))
        .filter(confidence__gte=options.min_confidence)
        .order_by("-confidence", "-confirmations", "-id")[: options.max_facts]
    )
    detected = {**detected, **{p.domain: named[p.domain] for p in patterns if p.domain in named}}
    budget = Budget(options.budget_chars)
    items = budget.fit(
        fact_item(
            p,
            p.confidence,
            f"pattern of the '{p.domain}' domain: the call mentions "
            f"{', '.join(detected[p.domain][:3])} (confidence {p.confidence:.2f} ≥ "
            f"{options.min_confidence:.2f})",
        )
        for p in patterns
    )
    return {
        "domains": sorted(detected),
        "patterns": items,
        "budget": budget.as_dict(),
        "options": {**options.as_dict(), "scorer": None},
        "took_ms": _ms(started),
    }


def call_text(tool: str, arguments: object) -> str:
    """A tool call as words: its name and arguments (keys and string values)."""
    words: list[str] = []
    _words(tool, words)
    _words(arguments or {}, words)
    return " ".join(words)[:MAX_TEXT]


# A call's distinct words looked up as domain names, at most.
NAMED_MAX = 200


def _named_domains(tool: str, arguments: object) -> set[str]:
    """The call's words, each a domain name it may name: a stored pattern's domain
    named by the call counts as the keyword list's domains do, so a team's own domains
    (say "billing" or "firmware") need no keyword list, and a list need not name its
    own domain (the defaults' "testing" and "security" do not)."""
    words: list[str] = []
    _words(tool, words)
    _words(arguments or {}, words)
    return set(list(dict.fromkeys(words))[:NAMED_MAX])


def domain_candidates(
    tool: str, arguments: object, detected: dict[str, list[str]], scopes, options
) -> list:
    """Patterns by the meaning and words of the call, and those of the domains the
    keyword list detects or the call names (a hint the scorer weighs; shown)."""
    qs = _facts(scopes, [Fk.PATTERN], options).filter(confidence__gte=options.min_confidence)
    named = _named_domains(tool, arguments)
    hinted = list(
        qs.filter(domain__in=sorted(set(detected) | named))
        .order_by("-confidence", "-confirmations", "-id")
        .values_list("pk", flat=True)[:20]
    )
    query = Query.of(call_text(tool, arguments), scope=scopes.scope)
    return candidates(query, qs, hinted=hinted)


def _pattern_of(pattern: Fact) -> str:
    """A pattern as its reason names it; one stored without a domain is of none."""
    return f"pattern of the '{pattern.domain}' domain" if pattern.domain else "pattern of no domain"


def _domain_scored(tool, arguments, detected, scopes, options, started) -> dict[str, Any]:
    found = domain_candidates(tool, arguments, detected, scopes, options)
    # The operator's keyword list (KGSITE_RECALL_DOMAINS) still shows its domains'
    # patterns; the scorer adds those the call touches by meaning and words.
    shown = scorer.ranked(
        "domain",
        found,
        k=options.max_facts,
        floor=-1.0,
        strict=False,
        keep=lambda c: "hint" in c.ranks,
        kept_as="a pattern of a domain the call touches",
    )
    budget = Budget(options.budget_chars)
    items = budget.fit(
        fact_item(p, s, f"{_pattern_of(p)} for this call ({why})") for p, s, why in shown.facts
    )
    return {
        "domains": sorted(set(detected) | {i["domain"] for i in items if i.get("domain")}),
        "patterns": items,
        "budget": budget.as_dict(),
        "options": {**options.as_dict(), "scorer": "domain"},
        "took_ms": _ms(started),
    }
