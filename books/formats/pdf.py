"""PDF structure: headings from the outline (bookmarks), running headers removed.

Manuals made by TeX, Word or browsers carry an outline that names every section and
its page; those titles are found as lines of that page's text layer, so the heading
stored is the one printed ("4.2 ASN.1 field functions" for the bookmark "ASN.1 field
functions"). Running headers and footers ("Chapter 4: Function reference 17") and bare
page numbers are dropped before anything else reads the text.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

Heading = tuple[int, int, str]

_DIGITS = re.compile(r"\d+")
_EDGE_NUMBER = re.compile(r"^\s*(\d{1,4})\b|\b(\d{1,4})[\])]?\s*$")  # "17", "[Page 17]"
# Front matter is numbered in small roman numerals (i to xxxix), the body in digits.
_ROMAN_PAGE = r"(?-i:(?=[ivx])x{0,3}(?:ix|iv|v?i{0,3}))"
_PAGE_NUMBER = re.compile(
    rf"^\s*(?:[-–—]\s*)?(?:page\s+)?(?:\d{{1,4}}|{_ROMAN_PAGE})(?:\s*(?:/|of)\s*\d{{1,4}})?"
    r"\s*(?:[-–—])?\s*$",
    re.I,
)
_NUMBER_PREFIX = r"(?:(?:\d{1,2}|[A-Z])(?:\.\d{1,2})*\.?\s+|(?:chapter|appendix)\s+[\w.]+[:.]?\s+)?"
# Pages that must repeat a header before it counts as running.
MIN_REPEATS = 3


@dataclass(frozen=True)
class OutlineItem:
    title: str
    level: int
    page: int


def outline_items(reader) -> list[OutlineItem]:
    """The bookmarks, depth first, with their page index (items without one skipped)."""
    items: list[OutlineItem] = []

    def walk(nodes, level: int) -> None:
        for node in nodes:
            if isinstance(node, list):
                walk(node, level + 1)
                continue
            try:
                page = reader.get_destination_page_number(node)
            except Exception:  # a bookmark to nowhere: nothing to anchor
                continue
            title = " ".join(str(getattr(node, "title", "") or "").split())
            if title and page is not None and page >= 0:
                items.append(OutlineItem(title, level, page))

    try:
        walk(reader.outline, 1)
    except Exception:  # a damaged outline is no outline
        return []
    return items


def _edge_number(line: str) -> int | None:
    match = _EDGE_NUMBER.search(line)
    if match is None:
        return None
    return int(match.group(1) or match.group(2))


def _edge_indexes(lines: list[str]) -> set[int]:
    """The first and last line of a page that hold anything."""
    idx = [i for i, line in enumerate(lines) if line.strip()]
    return {*idx[:1], *idx[-1:]}


def _running_lines(pages: list[list[str]], exact: bool = False) -> set[tuple[int, int]]:
    """(page, line index) of running headers, footers and page numbers.

    A first or last line is running when, digits aside (or not, ``exact``), it repeats
    on several pages, or when its number follows the page count (the printed page
    number) on several.
    """
    edges: list[tuple[int, int, str]] = []
    for p, lines in enumerate(pages):
        for i in _edge_indexes(lines):
            edges.append((p, i, lines[i].strip()))

    def shape(text: str) -> str:
        return text if exact else _DIGITS.sub("#", text)

    shapes = Counter(shape(text) for _p, _i, text in edges)
    offsets = Counter(p - n for p, _i, text in edges if (n := _edge_number(text)) is not None)
    offset, count = offsets.most_common(1)[0] if offsets else (None, 0)
    running: set[tuple[int, int]] = set()
    for p, i, text in edges:
        number = _edge_number(text)
        if (
            _PAGE_NUMBER.fullmatch(text)
            or (shapes[shape(text)] >= MIN_REPEATS and len(text) < 100)
            or (count >= MIN_REPEATS and number is not None and p - number == offset)
        ):
            running.add((p, i))
    return running


def clean_pages(pages: list[str], *, exact: bool = False) -> list[str]:
    """Page texts without running headers, footers and page numbers (with ``exact``,
    only lines repeated as they are, or numbered as the pages are, run)."""
    split = [page.replace("\r\n", "\n").replace("\r", "\n").split("\n") for page in pages]
    if len(split) >= MIN_REPEATS:
        running = _running_lines(split, exact)
    else:  # too few pages to see what repeats: only a page's own number goes
        running = {
            (p, i)
            for p, lines in enumerate(split)
            for i in _edge_indexes(lines)
            if _PAGE_NUMBER.fullmatch(lines[i].strip())
            and (number := _DIGITS.search(lines[i])) is not None
            and int(number.group()) == p + 1
        }
    return [
        "\n".join(line for i, line in enumerate(lines) if (p, i) not in running).strip("\n")
        for p, lines in enumerate(split)
    ]


def _title_pattern(title: str) -> re.Pattern[str]:
    core = re.sub(rf"^{_NUMBER_PREFIX}", "", title, flags=re.I) or title
    words = r"\s+".join(re.escape(w) for w in core.split())
    return re.compile(rf"^\s*{_NUMBER_PREFIX}{words}\s*$", re.I)


def outline_headings(items: list[OutlineItem], page_starts: list[int], text: str) -> list[Heading]:
    """Each bookmark's line in the text (searched from its page on), as printed."""
    headings: list[Heading] = []
    cursor = 0
    for item in items:
        if item.page >= len(page_starts):
            continue
        pattern = _title_pattern(item.title)
        begin = max(cursor, page_starts[item.page])
        limit = page_starts[item.page + 2] if item.page + 2 < len(page_starts) else len(text)
        pos = begin
        found = None
        while pos < limit:
            end = text.find("\n", pos)
            end = len(text) if end < 0 else end
            if pattern.match(text[pos:end]):
                found = (pos, end)
                break
            pos = end + 1
        if found is None:
            continue
        line = text[found[0] : found[1]]
        headings.append((found[0] + len(line) - len(line.lstrip()), item.level, line.strip()))
        cursor = found[1]
    return headings
