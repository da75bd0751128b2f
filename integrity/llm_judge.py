"""The optional LLM judge (level 3): asks an OpenAI-compatible server whether two facts
contradict each other, for the pairs the value rules leave in doubt.

The answer must be one strict JSON object; it is parsed with ``json.loads`` and
validated field by field. Anything else (network error, timeout, prose, wrong types)
yields None, and the caller keeps the rule-based verdict.
"""

from __future__ import annotations

import json
import logging
from functools import lru_cache
from typing import Any

from django.conf import settings

from kgsite.llm import strip_code_fence

from .detection.classifier import Verdict

logger = logging.getLogger(__name__)

MAX_FACT_CHARS = 2000
MAX_EXPLANATION_CHARS = 500

SYSTEM_PROMPT = (
    "You check a knowledge base for contradictions. You are given two facts. Decide "
    "whether both can be true at the same time. Answer with exactly one JSON object and "
    'nothing else: {"is_contradiction": true or false, "confidence": a number from 0 '
    'to 1, "explanation": "one short sentence naming the conflicting values"}.'
)


@lru_cache(maxsize=4)
def _client(base_url: str, api_key: str, timeout: float, max_retries: int):
    from openai import OpenAI  # deferred: a heavy client, only needed with the judge on

    return OpenAI(base_url=base_url, api_key=api_key, timeout=timeout, max_retries=max_retries)


def client():
    """One client per configuration (the settings may change between tests)."""
    return _client(
        settings.KGSITE_LLM_BASE_URL,
        settings.KGSITE_LLM_API_KEY,
        float(settings.KGSITE_LLM_TIMEOUT),
        int(settings.KGSITE_LLM_MAX_RETRIES),
    )


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object naming a field twice ("is_contradiction": true, then false) is
    ambiguous: refused rather than read as its last value."""
    data = dict(pairs)
    if len(data) != len(pairs):
        raise ValueError("a field is given twice")
    return data


def parse_answer(content: str) -> Verdict | None:
    """Validate the judge's answer; None unless it is exactly the expected object."""

    try:
        data: Any = json.loads(strip_code_fence(content), object_pairs_hook=_unique_keys)
    except (TypeError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    flag = data.get("is_contradiction")
    confidence = data.get("confidence")
    explanation = data.get("explanation", "")
    if not isinstance(flag, bool):
        return None
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        return None
    if not 0 <= confidence <= 1:
        return None
    if not isinstance(explanation, str):
        return None
    explanation = " ".join(explanation.split())[:MAX_EXPLANATION_CHARS]
    if flag:
        return Verdict("contradiction", "llm", float(confidence), explanation)
    return Verdict("compatible", None, float(confidence), explanation)


def judge_pair(existing: str, new: str) -> Verdict | None:
    """Ask the configured model about one pair; None on any failure."""
    try:
        response = client().chat.completions.create(
            model=settings.KGSITE_LLM_MODEL,
            temperature=0,
            messages=[
                {"role": "system", "content": SYSTEM_PROMPT},
                {
                    "role": "user",
                    "content": json.dumps(
                        {
                            "existing_fact": existing[:MAX_FACT_CHARS],
                            "new_fact": new[:MAX_FACT_CHARS],
                        },
                        ensure_ascii=False,
                    ),
                },
            ],
        )
        content = response.choices[0].message.content or ""
    except Exception:  # the judge is advisory: any failure leaves the rules' verdict
        logger.warning("LLM judge unavailable", exc_info=True)
        return None
    verdict = parse_answer(content)
    if verdict is None:
        logger.warning("LLM judge gave an unusable answer: %.200r", content)
    return verdict
