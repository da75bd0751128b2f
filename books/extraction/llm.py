"""The LLM extractor: any OpenAI-compatible server names the entities of each chunk.

The model must answer with one JSON array of ``{"name", "type", "mention_type"}``
objects. The answer is parsed with ``json.loads`` (never evaluated) and every item is
validated; an unusable answer is recorded as a job warning and the chunk falls back to
the structural + gazetteer analysis, so no chunk is lost. Transient errors (timeouts,
connection errors, 429 and 5xx) are tried again after a growing pause; chunks run
``concurrency`` at a time.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from django.conf import settings

from books.extraction.base import (
    DEFINES,
    MENTION_TYPES,
    REFERENCES,
    BookLexicon,
    ExtractionReport,
    FoundMention,
    Progress,
)
from books.extraction.offline import structural_mentions
from entities.names import normalize_type
from kgsite.errors import InvalidInput
from kgsite.llm import strip_code_fence
from kgsite.text import MAX_NAME_LENGTH, clean_display, has_control_chars, normalize

if TYPE_CHECKING:
    from books.chunking import ChunkDraft

logger = logging.getLogger(__name__)

MAX_CHUNK_CHARS = 8000
MAX_ITEMS = 200
MAX_ANSWER_KEPT = 500

SYSTEM_PROMPT = (
    "You index the entities of a book for a knowledge graph. You get one passage with "
    "its heading path. List every named entity the passage names (people, places, "
    "organisations, creatures, spells, items, rules terms with proper names). For each, "
    'say "defines" if this passage is where the entity is defined or described as its '
    'main subject, else "references". Answer with exactly one JSON array and nothing '
    'else: [{"name": "...", "type": "snake_case_type", "mention_type": "defines" or '
    '"references"}]. An empty array if there are none.'
)


class AnswerError(ValueError):
    """The model's answer is not the JSON array asked for."""


def parse_answer(content: str) -> list[tuple[str, str, str]]:
    """(name, type, mention_type) triples from the answer; ``AnswerError`` if the whole
    answer is unusable. Individual invalid items are dropped."""
    try:
        data: Any = json.loads(strip_code_fence(content or ""))
    except (TypeError, ValueError) as exc:
        raise AnswerError(f"not JSON: {exc}") from None
    if isinstance(data, dict):  # {"entities": [...]} is a common near-miss
        inner = [v for v in data.values() if isinstance(v, list)]
        if len(inner) != 1:
            raise AnswerError("expected a JSON array")
        data = inner[0]
    if not isinstance(data, list):
        raise AnswerError("expected a JSON array")
    items: list[tuple[str, str, str]] = []
    for item in data[:MAX_ITEMS]:
        if not isinstance(item, dict):
            continue
        name, kind, mention_type = item.get("name"), item.get("type", ""), item.get("mention_type")
        if not isinstance(name, str) or not isinstance(kind, str | type(None)):
            continue
        if not isinstance(mention_type, str) or mention_type.strip().lower() not in MENTION_TYPES:
            continue
        display = clean_display(name)
        if not display or len(display) > MAX_NAME_LENGTH or has_control_chars(name):
            continue
        try:
            entity_type = normalize_type(kind or "")
        except InvalidInput:
            continue
        items.append((display, entity_type, mention_type.strip().lower()))
    return items


def _transient(exc: Exception) -> bool:
    import openai  # deferred: the client library is only needed for the LLM path

    if isinstance(exc, openai.APITimeoutError | openai.APIConnectionError):
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code == 429 or exc.status_code >= 500
    return False


def _locate(text: str, name: str) -> tuple[int, int, int] | None:
    """(start, end, count) of the name in the chunk, compared case-insensitively."""
    lowered, target = text.casefold(), name.casefold()
    if len(lowered) != len(text):  # folding changed lengths: fall back to exact search
        lowered, target = text, name
    at = lowered.find(target)
    if at < 0:
        return None
    return at, at + len(name), lowered.count(target)


class LLMExtractor:
    name = "llm"

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str,
        timeout: float,
        concurrency: int = 4,
        max_retries: int = 3,
        backoff: float = 0.5,
    ) -> None:
        self.base_url = base_url
        self.model = model
        self.api_key = api_key
        self.timeout = timeout
        self.concurrency = max(1, concurrency)
        self.max_retries = max(0, max_retries)
        self.backoff = backoff
        self._client = None

    @classmethod
    def from_settings(cls) -> LLMExtractor:
        return cls(
            base_url=settings.KGSITE_LLM_BASE_URL,
            model=settings.KGSITE_LLM_MODEL,
            api_key=settings.KGSITE_LLM_API_KEY,
            timeout=float(settings.KGSITE_LLM_TIMEOUT),
            concurrency=int(settings.KGSITE_LLM_CONCURRENCY),
            max_retries=int(settings.KGSITE_LLM_MAX_RETRIES),
        )

    @property
    def client(self):
        if self._client is None:
            from openai import OpenAI  # deferred: only the LLM path needs the client

            # Retries are ours (with backoff and a record of the failure), not the SDK's.
            self._client = OpenAI(
                base_url=self.base_url, api_key=self.api_key, timeout=self.timeout, max_retries=0
            )
        return self._client

    def ask(self, chunk: ChunkDraft) -> str:
        """The model's raw answer for one chunk, retrying transient failures."""
        payload = json.dumps(
            {"heading_path": list(chunk.heading_path), "passage": chunk.text[:MAX_CHUNK_CHARS]},
            ensure_ascii=False,
        )
        attempt = 0
        while True:
            try:
                response = self.client.chat.completions.create(
                    model=self.model,
                    temperature=0,
                    messages=[
                        {"role": "system", "content": SYSTEM_PROMPT},
                        {"role": "user", "content": payload},
                    ],
                )
                return response.choices[0].message.content or ""
            except Exception as exc:
                if attempt >= self.max_retries or not _transient(exc):
                    raise
                time.sleep(self.backoff * (2**attempt))
                attempt += 1

    def _one(
        self, index: int, chunk: ChunkDraft, lexicon: BookLexicon
    ) -> tuple[list[FoundMention], dict | None]:
        try:
            content = self.ask(chunk)
        except Exception as exc:
            found, _hits = structural_mentions(chunk, index, lexicon)
            return found, {
                "chunk": chunk.ordinal,
                "error": f"request failed: {type(exc).__name__}: {exc}"[:500],
            }
        try:
            items = parse_answer(content)
        except AnswerError as exc:
            found, _hits = structural_mentions(chunk, index, lexicon)
            return found, {
                "chunk": chunk.ordinal,
                "error": f"unparseable answer ({exc})"[:500],
                "answer": content[:MAX_ANSWER_KEPT],
            }
        return self._mentions(chunk, items, lexicon), None

    def _mentions(
        self, chunk: ChunkDraft, items: list[tuple[str, str, str]], lexicon: BookLexicon
    ) -> list[FoundMention]:
        """Resolve the model's names against known entities; new ones keep its type."""
        found: list[FoundMention] = []
        seen: set[tuple[str, str]] = set()
        for name, entity_type, mention_type in items:
            where = _locate(chunk.text, name)
            if where is None:
                continue  # a name the passage does not contain: not a mention of it
            start, end, count = where
            entity_id = None
            candidates = lexicon.gazetteer.get(name)
            typed = [c for c in candidates if c.entity_type == entity_type]
            pick = typed[0] if len(typed) == 1 else None
            if pick is None and len(candidates) == 1:
                pick = candidates[0]
            if pick is not None:
                entity_id, name, entity_type = pick.entity_id, pick.canonical_name, pick.entity_type
            key = (entity_id or "", normalize(name) + "|" + entity_type)
            if key in seen:
                continue
            seen.add(key)
            found.append(
                FoundMention(
                    name=name,
                    entity_type=entity_type,
                    mention_type=DEFINES if mention_type == DEFINES else REFERENCES,
                    start=start,
                    end=end,
                    entity_id=entity_id,
                    count=count,
                )
            )
        return found

    def extract(
        self,
        chunks: Sequence[ChunkDraft],
        *,
        lexicon: BookLexicon,
        progress: Progress | None = None,
    ) -> ExtractionReport:
        mentions: list[list[FoundMention]] = [[] for _ in chunks]
        warnings: list[dict] = []
        batch = max(1, self.concurrency) * 4
        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            for start in range(0, len(chunks), batch):
                indexes = range(start, min(len(chunks), start + batch))
                results = pool.map(lambda i: self._one(i, chunks[i], lexicon), indexes)
                for i, (found, warning) in zip(indexes, results, strict=True):
                    mentions[i] = found
                    if warning is not None:
                        warnings.append(warning)
                if progress is not None:
                    progress(indexes[-1] + 1)
        if warnings:
            logger.warning("LLM extraction: %d of %d chunks fell back", len(warnings), len(chunks))
        return ExtractionReport(mentions=mentions, warnings=warnings)
