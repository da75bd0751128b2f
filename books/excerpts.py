"""Short plain-text excerpts of chunks: a mention's sentence, a search hit's opening.

Sentences come from the chunker's splitter (abbreviations such as "Mr." do not end
one); Markdown heading marks, bullets, table edges and emphasis are removed, so an
excerpt reads as text wherever it is shown.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

from .chunking import sentence_spans
from .parsing import clean_heading

CONTEXT_CHARS = 300

_HEADING_MARKS = re.compile(r"^#{1,6}[ \t]+|[ \t]+#+$")
_LIST_MARK = re.compile(r"^(?:[-*+]|\d+[.)]|>)[ \t]+")
# "1." alone: the sentence splitter ends a sentence at a numbered item's full stop.
_LIST_NUMBER = re.compile(r"\d+\.")
_TABLE_EDGES = re.compile(r"^\|\s*|\s*\|$")
_CLOSED = tuple(".!?:;…\"'”’)]")
SHORT_CONTEXT = 80


def _plain_sentence(raw: str) -> str:
    """A sentence as a reader sees it: no heading marks, bullets, table edges or
    emphasis, whitespace collapsed."""
    line = raw.strip()
    if _LIST_NUMBER.fullmatch(line):
        return ""
    if line.startswith("#"):
        line = _HEADING_MARKS.sub("", line)
    elif line.startswith("|"):
        line = _TABLE_EDGES.sub("", line)
    else:
        line = _LIST_MARK.sub("", line)
    return clean_heading(line)


def context_excerpt(
    text: str,
    start: int,
    end: int,
    *,
    limit: int = CONTEXT_CHARS,
    spans: Sequence[tuple[int, int]] | None = None,
) -> str:
    """The sentence holding ``text[start:end]``, and the next one while the excerpt is
    short (a heading is followed by the first sentence under it), as plain text.

    ``spans`` are ``sentence_spans(text)``, passed by callers that excerpt one chunk
    many times.
    """
    if spans is None:
        spans = sentence_spans(text)
    if not spans:
        return ""
    index = max(0, bisect.bisect_right([lo for lo, _hi in spans], start) - 1)
    first = text[slice(*spans[index])]
    parts = [_plain_sentence(first)]
    # A heading is a title, not a sentence: the sentence under it follows. A table row
    # stands alone (the next row is another item, not more about this one).
    sentences = 0 if first.startswith("#") else 1
    if not first.startswith("|"):
        for lo, hi in spans[index + 1 :]:
            if sentences >= 2 or (sentences and len(" ".join(parts)) >= SHORT_CONTEXT):
                break
            raw = text[lo:hi]
            parts.append(_plain_sentence(raw))
            sentences += not raw.startswith("#")
    excerpt = ""
    for part in parts:
        if not part:
            continue
        if excerpt:
            excerpt += " " if excerpt.endswith(_CLOSED) else " — "
        excerpt += part
    if len(excerpt) > limit:
        # Centre the window on the mention.
        local = len(_plain_sentence(text[spans[index][0] : max(spans[index][0], start)]))
        cut = max(0, local - limit // 3)
        excerpt = ("…" if cut else "") + excerpt[cut : cut + limit].strip() + "…"
    return excerpt


def chunk_excerpt(text: str, *, limit: int = CONTEXT_CHARS) -> str:
    """The chunk's opening sentences as plain text, at most about ``limit`` characters."""
    excerpt = ""
    for lo, hi in sentence_spans(text):
        part = _plain_sentence(text[lo:hi])
        if not part:
            continue
        joined = (
            part if not excerpt else excerpt + (" " if excerpt.endswith(_CLOSED) else " — ") + part
        )
        if len(joined) > limit:
            if not excerpt:
                excerpt = part[:limit].rstrip() + "…"
            else:
                excerpt += "…"
            break
        excerpt = joined
    return excerpt
