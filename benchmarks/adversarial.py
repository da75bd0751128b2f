"""Pathological texts and every function that reads user text, timed by size.

Shared by ``python -m benchmarks adversarial`` (the table) and the linear-time property
test (``tests/kgsite/test_linear_time.py``): a regular expression or a diff that is
quadratic on some shape of input shows as a growth of about 4x per doubling of the text,
a linear one as about 2x. Growth is compared, never absolute time, so the figures hold
on a slow or busy machine.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

SIZES = (2_500, 5_000, 10_000, 20_000)


# --- Inputs ---------------------------------------------------------------------------
# A shape is a unit repeated to the size asked, or a function of the size. The units are
# the pieces the text-reading code looks for (digits and their separators, amounts with
# units and rates, temperatures, dates, clocks, versions, runs of spaces, capitals and
# initials, markdown marks, call signatures), so each pattern meets long runs of what it
# almost matches.
UNITS: dict[str, str] = {
    "digits": "1",
    "digit-comma": "1,",
    "digit-dot": "1.",
    "digit-space": "1 ",
    "digit-dash": "1-",
    "digit-colon": "1:",
    "digit-slash": "1/",
    "thousands": "1,000",
    "french-thousands": "1 000 ",
    "decimal-comma": "1,5 ",
    "temperature": "1°F ",
    "degrees": "-1 degrees ",
    "money": "$1 ",
    "money-rate": "$1/h ",
    "euro-rate": "1 € per ",
    "percent": "1% ",
    "unit-glued": "1km",
    "clock": "1:00 ",
    "ampm": "1pm ",
    "date-iso": "2020-01-01",
    "date-slash": "1/1/",
    "version": "v1.",
    "range": "1-2-",
    "offset": "utc+1",
    "spaces": " ",
    "tabs-newlines": " \t\n",
    "letter": "a",
    "capital": "A",
    "camel": "Ab",
    "initials": "A. ",
    "title-words": "Word ",
    "words": "word ",
    "negation": "not ",
    "alnum": "a1",
    "numalpha": "1a",
    "identifier": "a_b",
    "code-call": "f(",
    "code-signature": "def f(a, ",
    "backticks": "`a",
    "dots": ".",
    "abbreviation": "Mr. ",
    "sentence": "A b. ",
    "heading": "# h\n",
    "table": "| a ",
    "list": "- a\n",
    "quote": "> ",
    "emphasis": "***a.",
    "parens": "(",
    "quotes": "\"'",
    "apostrophe": "o'",
    "hyphen-word": "a-",
    "url": "http://a/",
    "email": "a@b.",
    "dotted-i": "İ",
    "sharp-s": "ß",
    "combining": "e\u0301",
    "arabic-digits": "١",
    "cjk": "中",
}


def text_of(shape: str, size: int) -> str:
    """``size`` characters of the shape's unit, repeated."""
    unit = UNITS[shape]
    return (unit * (size // len(unit) + 1))[:size]


def variant(text: str) -> str:
    """The text with one character changed in the middle: the second statement of a
    pair (a diff or a comparison of two nearly equal texts is where quadratic time
    hides)."""
    mid = len(text) // 2
    return text[:mid] + ("7" if text[mid : mid + 1] != "7" else "8") + text[mid + 1 :]


# --- Targets --------------------------------------------------------------------------
@dataclass(frozen=True)
class Target:
    name: str
    run: Callable[[str], object]
    # Needs Django set up (a settings read or a database query).
    django: bool = False


def _classify(text: str) -> object:
    from integrity.detection.classifier import classify_pair

    return classify_pair(text, variant(text))


def _obvious_duplicate(text: str) -> object:
    from integrity.detection.classifier import obvious_duplicate

    return obvious_duplicate(text, variant(text), similarity=0.99)


def _read(text: str) -> object:
    from integrity.detection.structure import read

    return read(text)


def _align(text: str) -> object:
    from integrity.detection.aliases import align

    return align(text, variant(text))


def _differing_words(text: str) -> object:
    from integrity.views import differing_words

    return differing_words(text, variant(text))


def _normalize(text: str) -> object:
    from kgsite.text import normalize

    return normalize(text)


def _sentence_spans(text: str) -> object:
    from books.chunking import sentence_spans

    return sentence_spans(text)


def _chunk_sections(text: str) -> object:
    from books.chunking import chunk_sections
    from books.parsing import Section

    return chunk_sections([Section(("Heading",), 1, text, 0, len(text))], max_chars=1500)


def _chunk(text: str):
    from books.chunking import ChunkDraft

    return ChunkDraft(0, ("Heading",), text, 0, len(text), 0)


def _context_excerpt(text: str) -> object:
    from books.excerpts import context_excerpt

    mid = len(text) // 2
    return context_excerpt(text, mid, mid + 1)


def _chunk_excerpt(text: str) -> object:
    from books.excerpts import chunk_excerpt

    return chunk_excerpt(text)


def _parsed(text: str, fmt: str) -> object:
    from books.parsing import parse_document
    from kgsite.errors import InvalidInput

    try:
        return parse_document(text.encode(), fmt=fmt)
    except InvalidInput:  # a text of spaces only is refused, quickly
        return None


def _parse_markdown(text: str) -> object:
    return _parsed(text, "markdown")


def _parse_text(text: str) -> object:
    return _parsed(text, "text")


def _parse_html(text: str) -> object:
    return _parsed(f"<html><body><p>{text}</p></body></html>", "html")


def _book_candidates(text: str) -> object:
    from books.extraction.candidates import book_candidates

    return book_candidates([_chunk(text)])


def _term_forms(text: str) -> object:
    from books.extraction.forms import defined, described, marked

    return marked(text), defined(text), described(text, text[:8])


def _defined_entities(text: str) -> object:
    from books.extraction.structure import defined_entities

    return defined_entities(_chunk(text), document_text=text)


def _name_sentences(text: str) -> object:
    from books.extraction.offline import name_sentences

    return name_sentences(text)


_GAZETTEER_NAMES = ("Word", "Mr. A", "Ab", "harbour ledger", "A. A.", "v1.1", "İzmir", "中")


def prepare() -> None:
    """Store a few known names shaped like the inputs, so the gazetteer has matches to
    try (call once, with a database, before timing)."""
    from entities.extraction.gazetteer import gazetteer_invalidate
    from entities.services import entity_store

    for name in _GAZETTEER_NAMES:
        entity_store(name=name, type="thing")
    gazetteer_invalidate()


def _gazetteer(text: str) -> object:
    from entities.extraction.gazetteer import extract_entities

    return extract_entities(text)


def _domains(text: str) -> object:
    from entities.recall.selectors import domains_detect

    return domains_detect("tool", {"text": text})


def _parse_answer(text: str) -> object:
    from books.extraction.llm import AnswerError, parse_answer

    try:
        return parse_answer(text)
    except AnswerError:
        return None


TARGETS: tuple[Target, ...] = (
    Target("kgsite.text.normalize", _normalize),
    Target("integrity structure.read (normalisers)", _read),
    Target("integrity classify_pair", _classify),
    Target("integrity obvious_duplicate", _obvious_duplicate),
    Target("integrity aliases.align", _align),
    Target("integrity.views.differing_words", _differing_words, django=True),
    Target("books sentence_spans", _sentence_spans),
    Target("books chunk_sections", _chunk_sections),
    Target("books context_excerpt", _context_excerpt),
    Target("books chunk_excerpt", _chunk_excerpt),
    Target("books parse markdown", _parse_markdown, django=True),
    Target("books parse text", _parse_text, django=True),
    Target("books parse html", _parse_html, django=True),
    Target("extraction book_candidates", _book_candidates, django=True),
    Target("extraction term forms (marks, definitions)", _term_forms),
    Target("extraction defined_entities", _defined_entities, django=True),
    Target("extraction name_sentences", _name_sentences, django=True),
    Target("entities extract_entities (gazetteer)", _gazetteer, django=True),
    Target("recall domains_detect", _domains, django=True),
    Target("extraction llm parse_answer", _parse_answer, django=True),
)


# --- Timing ---------------------------------------------------------------------------
def timed(run: Callable[[str], object], text: str, *, min_total: float = 0.02) -> float:
    """CPU seconds one call takes (this thread's: time other processes take on a
    shared machine is not counted), the fastest of a few calls (at least ``min_total``
    s in all, at most 5 calls), so a hiccup does not pass for growth."""
    best = float("inf")
    spent = 0.0
    for _ in range(5):
        start = time.thread_time()
        run(text)
        took = time.thread_time() - start
        best = min(best, took)
        spent += took
        if spent >= min_total and _ >= 1:
            break
    return best


@dataclass
class Curve:
    target: str
    shape: str
    seconds: dict[int, float]
    # Sizes left out because the last one measured promised more than the budget.
    skipped: tuple[int, ...] = ()

    def growth(self) -> list[float]:
        """Time ratio per doubling of the text, for each measured pair of sizes."""
        sizes = sorted(self.seconds)
        return [
            self.seconds[b] / max(self.seconds[a], 1e-7)
            for a, b in zip(sizes, sizes[1:], strict=False)
        ]

    def per_doubling(self) -> float:
        """The mean growth per doubling over the measured span (geometric mean of the
        steps: one noisy step at a few microseconds does not decide it). A skipped size
        means growth was already too steep to go on, so it counts as measured."""
        sizes = sorted(self.seconds)
        if len(sizes) < 2:
            return float("nan")
        doublings = math.log2(sizes[-1] / sizes[0])
        ratio = self.seconds[sizes[-1]] / max(self.seconds[sizes[0]], 1e-7)
        return ratio ** (1 / doublings)


def curve(
    target: Target, shape: str, sizes: tuple[int, ...] = SIZES, *, budget: float = 10.0
) -> Curve:
    """The target's time at each size of the shape; stops before a size that the last
    growth says would take more than ``budget`` seconds."""
    seconds: dict[int, float] = {}
    skipped: list[int] = []
    for size in sizes:
        done = sorted(seconds)
        if done:
            last = seconds[done[-1]]
            step = last / max(seconds[done[-2]], 1e-7) if len(done) > 1 else 4.0
            if last * max(step, 2.0) > budget:
                skipped.append(size)
                continue
        seconds[size] = timed(target.run, text_of(shape, size))
    return Curve(target.name, shape, seconds, tuple(skipped))
