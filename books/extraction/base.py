"""The extractor interface: what book ingestion asks of any entity extractor.

An extractor reads a book's chunks and says, per chunk, which entities it names and
whether it defines or only references them. It never writes: the ingest service turns
its answers into entities and mentions in one transaction. Settings name the default
(``KGSITE_EXTRACTOR``); ``books.extraction.registry.get_extractor`` builds one by name.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from books.chunking import ChunkDraft
    from books.extraction.structure import DefinedEntity
    from entities.extraction import Gazetteer

DEFINES = "defines"
REFERENCES = "references"
MENTION_TYPES = (DEFINES, REFERENCES)


@dataclass(frozen=True, slots=True)
class FoundMention:
    """One entity named in one chunk; offsets are into ``chunk.text``.

    ``entity_id`` is set when the entity already exists; otherwise the ingest service
    finds or creates the entity ``(name, entity_type)``.
    """

    name: str
    entity_type: str
    mention_type: str
    start: int
    end: int
    entity_id: str | None = None
    count: int = 1
    aliases: tuple[str, ...] = ()


@dataclass
class ExtractionReport:
    """Per-chunk answers plus the problems met on the way (kept on the job)."""

    mentions: list[list[FoundMention]]
    warnings: list[dict] = field(default_factory=list)


# Called with the number of chunks finished so far (not per row: per batch).
Progress = Callable[[int], None]

# Gazetteer ids of entities that the book defines but the database does not hold yet.
NEW_PREFIX = "new:"


@dataclass
class BookLexicon:
    """What an extractor may match in one book.

    ``gazetteer`` holds every stored entity and alias plus the names the book's
    structure defines; ``defined_ids`` maps each structural definition
    ``(normalised name, type)`` to its gazetteer id (a stored id, or ``NEW_PREFIX...``);
    ``defined_names`` maps those ids back to (canonical name, type);
    ``definitions`` lists, per chunk, what the structure says that chunk defines.
    """

    gazetteer: Gazetteer
    defined_ids: dict[tuple[str, str], str]
    defined_names: dict[str, tuple[str, str]]
    definitions: list[list[DefinedEntity]]
    # Names the text introduces (``books.extraction.candidates``): (normalised name,
    # type) → (evidence, aliases).
    candidates: dict[tuple[str, str], tuple[int, tuple[str, ...]]] = field(default_factory=dict)
    # Normalised names the learned scorer judged not to be entities: another source
    # (spaCy's NER) proposing one of them is overruled.
    rejected: frozenset[str] = frozenset()
    # Stored entities only this book's previous version made (nothing else holds them):
    # the lexicon ignores them, so a new version finds what a first ingest of it finds.
    renew: frozenset[str] = frozenset()


class Extractor(Protocol):
    name: str

    def extract(
        self,
        chunks: Sequence[ChunkDraft],
        *,
        lexicon: BookLexicon,
        progress: Progress | None = None,
    ) -> ExtractionReport:
        """Mentions per chunk, in the order of ``chunks``."""
        ...
