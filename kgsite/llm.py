"""Pieces shared by every call to an OpenAI-compatible model (extraction, the judge)."""

from __future__ import annotations


def strip_code_fence(content: str) -> str:
    """Accept JSON wrapped in one Markdown code fence, as many models send it.

    Only the fence is removed; the caller still parses the rest strictly with
    ``json.loads`` and validates every field (model output is never evaluated).
    """
    text = content.strip()
    if text.startswith("```") and text.endswith("```") and len(text) >= 6:
        text = text[3:-3].strip()
        if text[:4].lower() == "json":
            text = text[4:].strip()
    return text
