"""The extractors by name: the one place that knows every concrete extractor, so the
interface (``base``) imports none of them."""

from __future__ import annotations

from django.conf import settings

from kgsite.errors import InvalidInput

from .base import Extractor
from .llm import LLMExtractor
from .offline import OfflineExtractor

EXTRACTORS = ("offline", "llm")


def get_extractor(name: str | None = None) -> Extractor:
    """The extractor called ``name`` (default: ``settings.KGSITE_EXTRACTOR``)."""
    chosen = (name or settings.KGSITE_EXTRACTOR or "offline").strip().lower()
    if chosen == "offline":
        return OfflineExtractor()
    if chosen == "llm":
        return LLMExtractor.from_settings()
    raise InvalidInput(
        f"Unknown extractor {name!r}: expected one of {', '.join(EXTRACTORS)}.",
        field="extractor",
    )
