"""Score what ingestion made of documents against hand-written gold annotations.

The gold file (``doc``, ``kind``, ``names``, ``type``, ``defining_heading``; see the
project's evaluation README) lists per document the key entities it is about and
strings that must never become entities. Names match after ``normalize`` with
surrounding markup and a trailing ``()`` ignored; headings match with their section
numbering ("4.2", "A.1") and inline markup ignored.
"""

from __future__ import annotations

import csv
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from books.models import Mention
from entities.models import Alias, Entity
from kgsite.errors import InvalidInput
from kgsite.text import normalize

GOLD_COLUMNS = ("doc", "kind", "names", "type", "defining_heading")

_MARKUP = re.compile(r"^[`*_\"'“”‘’]+|[`*_\"'“”‘’]+$")
_NUMBERING = re.compile(r"^(?:(?:chapter|appendix|section)\s+)?(?:\d+|[A-Z])(?:\.\d+)*\.?\s+", re.I)


def name_key(name: str) -> str:
    """A name as the gold file compares it."""
    text = _MARKUP.sub("", name.strip())
    text = normalize(text)
    if text.endswith("()"):
        text = text[:-2].rstrip()
    return text


def heading_key(heading: str) -> str:
    """A heading without its numbering and inline markup."""
    text = heading.replace("`", "").replace("*", "")
    return normalize(_NUMBERING.sub("", text.strip()))


@dataclass
class GoldRow:
    doc: str
    kind: str
    names: list[str]
    type: str
    heading: str


def gold_read(path: Path) -> list[GoldRow]:
    """Rows of a gold TSV; ``InvalidInput`` naming the problem for a malformed file (one
    in another code page included, for every command that reads gold files)."""
    if not path.is_file():
        raise InvalidInput(f"No such file: {path}", field="gold")
    try:
        return _gold_rows(path)
    except UnicodeDecodeError:
        raise InvalidInput(f"{path}: not UTF-8 text: save it as UTF-8", field="gold") from None


def _gold_rows(path: Path) -> list[GoldRow]:
    # utf-8-sig: a spreadsheet saves its TSV with a byte-order mark before the header.
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t")
        missing = [c for c in GOLD_COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise InvalidInput(f"{path}: missing column(s) {', '.join(missing)}", field="gold")
        rows = []
        for line, row in enumerate(reader, start=2):
            kind = (row["kind"] or "").strip()
            if kind not in ("key", "junk"):
                raise InvalidInput(f"{path}:{line}: kind must be key or junk", field="gold")
            names = [n.strip() for n in (row["names"] or "").split("|") if n.strip()]
            if not names:
                raise InvalidInput(f"{path}:{line}: no names", field="gold")
            heading = (row["defining_heading"] or "").strip()
            rows.append(
                GoldRow(
                    doc=row["doc"].strip(),
                    kind=kind,
                    names=names,
                    type=(row["type"] or "").strip(),
                    heading="" if heading == "-" else heading,
                )
            )
    if not rows:  # nothing to score or to learn from
        raise InvalidInput(f"{path}: no gold rows", field="gold")
    return rows


@dataclass
class DocScore:
    doc: str
    keys: int = 0
    found: int = 0
    typed: int = 0
    define_rows: int = 0
    defined: int = 0
    junk_rows: int = 0
    junk: int = 0
    created: int = 0
    misses: list[str] = field(default_factory=list)
    # (gold type, type given) of each key found: the confusion of the type decision.
    confusion: Counter = field(default_factory=Counter)

    def add(self, other: DocScore) -> None:
        for name in ("keys", "found", "typed", "define_rows", "defined", "junk_rows", "junk"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.created += other.created
        self.confusion.update(other.confusion)

    @staticmethod
    def ratio(a: int, b: int) -> float:
        return a / b if b else 0.0


@dataclass
class _Known:
    """What the database holds, indexed by gold name key."""

    by_name: dict[str, list[tuple[str, str]]]  # key -> [(entity id, type)]
    defines: dict[str, set[tuple[int, str]]]  # entity id -> {(book id, heading key)}


def _known() -> _Known:

    by_name: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for pk, name, entity_type in Entity.objects.values_list("pk", "canonical_name", "type"):
        by_name[name_key(name)].append((pk, entity_type))
    for pk, alias, entity_type in Alias.objects.values_list("entity_id", "alias", "type"):
        if (pk, entity_type) not in by_name[name_key(alias)]:
            by_name[name_key(alias)].append((pk, entity_type))
    defines: dict[str, set[tuple[int, str]]] = defaultdict(set)
    rows = Mention.objects.filter(mention_type=Mention.Type.DEFINES).values_list(
        "entity_id", "book_id", "chunk__heading_path"
    )
    for entity_id, book_id, path in rows:
        if path:
            defines[entity_id].add((book_id, heading_key(path[-1])))
    return _Known(by_name=by_name, defines=defines)


def _steps(names: list[str], trace: dict[str, dict[str, str]]) -> str:
    """Which step typed these names, and as what: "option by rules: code span"."""
    wanted = {name_key(n) for n in names}
    steps = {
        f"{type_} by {step}"
        for name, typed in trace.items()
        if name_key(name) in wanted
        for type_, step in typed.items()
    }
    return "; ".join(sorted(steps)) or "typed by no step of this book (a stored entity)"


def _score_key(
    row: GoldRow, known: _Known, book_id: int, score: DocScore, trace: dict | None = None
) -> None:
    score.keys += 1
    if row.heading:
        score.define_rows += 1
    matches = [m for n in row.names for m in known.by_name.get(name_key(n), [])]
    if not matches:
        score.misses.append(f"missed   {row.names[0]} ({row.type})")
        return
    score.found += 1
    if any(entity_type == row.type for _pk, entity_type in matches):
        score.typed += 1
        score.confusion[(row.type, row.type)] += 1
    else:
        score.confusion[(row.type, matches[0][1])] += 1
        types = ", ".join(sorted({t for _p, t in matches}))
        steps = f" [{_steps(row.names, trace)}]" if trace is not None else ""
        score.misses.append(f"mistyped {row.names[0]}: {types} (gold {row.type}){steps}")
    if row.heading:
        wanted = (book_id, heading_key(row.heading))
        if any(wanted in known.defines.get(pk, ()) for pk, _t in matches):
            score.defined += 1
        else:
            score.misses.append(f"undefined {row.names[0]} under {row.heading!r}")


def gold_score(
    rows: list[GoldRow],
    books: dict[str, int],
    created: dict[str, int],
    traces: dict[str, dict[str, dict[str, str]]] | None = None,
) -> list[DocScore]:
    """One score per document (in file order) and, last, the total. ``traces``: per
    document, which step typed each name (``trace.types_traced``); a mistyped key's
    miss then names the step."""
    known = _known()
    scores: dict[str, DocScore] = {}
    for row in rows:
        score = scores.setdefault(row.doc, DocScore(row.doc, created=created.get(row.doc, 0)))
        if row.kind == "junk":
            score.junk_rows += 1
            if any(name_key(n) in known.by_name for n in row.names):
                score.junk += 1
                score.misses.append(f"junk     {row.names[0]}")
            continue
        trace = traces.get(row.doc, {}) if traces is not None else None
        _score_key(row, known, books.get(row.doc, -1), score, trace)
    total = DocScore("overall")
    for score in scores.values():
        total.add(score)
    return [*scores.values(), total]
