"""Turn an uploaded book (Markdown, plain text, reStructuredText, manual pages, PDF, HTML,
EPUB) into text plus sections.

Pure Python, no Django: the ingest service stores what these functions return. Every
offset is a character offset into ``ParsedDocument.text`` so a chunk, a mention or a
definition can always be shown in its original context.
"""

from __future__ import annotations

import codecs
import io
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import PurePath

from django.utils.translation import gettext_noop

from books.formats.archive import lost_text
from books.formats.binary import refuse_binary
from books.formats.html import PERMALINK_MARKS, epub_to_markdown, html_to_markdown
from books.formats.markdown import code_spans, comments_stripped, emphasis_stripped
from books.formats.pdf import MIN_REPEATS, clean_pages, outline_headings, outline_items
from books.formats.rst import is_roff, roff_includes, roff_to_markdown, rst_to_markdown
from books.formats.text import dehyphenate, technical_headings
from kgsite.errors import InvalidInput, Wording

FORMATS = ("markdown", "text", "pdf", "html", "epub", "rst", "man")

_EXTENSIONS = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
    ".text": "text",
    ".pdf": "pdf",
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".epub": "epub",
    ".rst": "rst",
    ".rest": "rst",
    ".man": "man",
    **{f".{section}": "man" for section in range(1, 9)},
}
SUPPORTED_EXTENSIONS = tuple(_EXTENSIONS)


@dataclass(frozen=True, slots=True)
class Section:
    """A heading and its body, up to the next heading of any level.

    ``text == document.text[start:end]``; it starts with the heading line (empty
    ``heading_path`` and level 0 for the text before the first heading).
    """

    heading_path: tuple[str, ...]
    level: int
    text: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class ParsedDocument:
    text: str
    sections: list[Section]
    # Text a reader could not take whole (named per file): shown on the ingest job.
    warnings: tuple[str, ...] = ()


def detect_format(filename: str) -> str:
    """The parser to use, chosen by extension: curators upload files, not MIME types."""
    suffix = PurePath(filename or "").suffix.lower()
    try:
        return _EXTENSIONS[suffix]
    except KeyError:
        raise InvalidInput(
            gettext_noop(
                "Unsupported file type (%(ext)s): upload a .md, .txt, .rst, .pdf, .html or "
                ".epub file, or a manual page (.man, .1 to .8)."
            ),
            params={"ext": suffix or Wording(gettext_noop("no extension"))},
            field="format",
        ) from None


def parse_document(data: bytes, *, fmt: str) -> ParsedDocument:
    """Decode ``data`` and outline it; raise ``InvalidInput`` for empty or unreadable input."""
    if fmt in ("markdown", "text", "html", "rst", "man"):
        refuse_binary(data)
    if fmt == "rst" or (fmt == "man" and is_roff(decode_text(data))):
        convert = rst_to_markdown if fmt == "rst" else roff_to_markdown
        text = convert(decode_text(data))
        if fmt == "man" and not text.strip() and (included := roff_includes(decode_text(data))):
            raise InvalidInput(
                gettext_noop(
                    "The manual page only includes %(page)s (.so): ingest that page instead."
                ),
                params={"page": included[0]},
                field="file",
            )
        _require_text(text)
        return ParsedDocument(text=text, sections=_markdown_sections(text))
    if fmt == "markdown":
        text = decode_text(data)
        if front := _FRONT_MATTER.match(text):  # settings, not text
            text = text[front.end() :].lstrip("\n")
        text = _without_comments(text)
        _require_text(text)
        return ParsedDocument(text=text, sections=_markdown_sections(text))
    if fmt in ("text", "man"):  # a manual page already rendered is text
        text = dehyphenate(_unpaginated(decode_text(data)))
        _require_text(text)
        start, end = gutenberg_body(text)
        _require_text(text[start:end])
        return ParsedDocument(text=text, sections=_plain_sections(text, start, end))
    if fmt == "pdf":
        return _pdf_document(data)
    if fmt in ("html", "epub"):
        warnings: list[str] = []
        if fmt == "epub":
            text = epub_to_markdown(data, warnings)
        else:
            text = html_to_markdown(data)
            if lost := lost_text(data, text, name="the page"):
                warnings.append(lost)
        _require_text(text)
        return ParsedDocument(
            text=text, sections=_markdown_sections(text), warnings=tuple(warnings)
        )
    raise InvalidInput(
        f"Unknown format {fmt!r}: expected one of {', '.join(FORMATS)}.", field="format"
    )


def _require_text(text: str) -> None:
    if not text.strip():
        raise InvalidInput(gettext_noop("The uploaded document is empty."), field="file")


def _require_pdf_text(text: str) -> None:
    if not text.strip():
        raise InvalidInput(
            gettext_noop(
                "The PDF has no text layer (scanned pages need OCR first): nothing to ingest."
            ),
            field="file",
        )


def pdf_check(data: bytes) -> None:
    """Raise ``InvalidInput`` now if ``parse_document`` would find nothing in this PDF
    (a broken file, no text layer).

    Cheap enough for a request: the PDF is read only up to its first page with text.
    Text formats need no such check: parsing them is the check (milliseconds).
    """
    for page in _pdf_pages(data):
        if page.strip():
            return
    _require_pdf_text("")


# --- decoding ------------------------------------------------------------------------


def _unpaginated(text: str) -> str:
    """A text paginated with form feeds (an RFC, a printed manual) without its running
    headers, footers and page numbers, as a PDF's pages are read. A form feed also
    separates the sections of a GNU NEWS file, each opening on a heading of one shape
    ("Version 4.3 (19 Jan 2020)"): only a line repeated as it is runs, or one numbered
    as the pages are."""
    pages = text.split("\f")
    if len(pages) < MIN_REPEATS:
        return text
    kept = clean_pages(pages, exact=True)
    if kept == [page.strip("\n") for page in pages]:  # nothing runs: the text as it is
        return text
    return "\n\n".join(page for page in kept if page.strip()) + "\n"


def decode_text(data: bytes) -> str:
    """UTF-8 (BOM stripped), UTF-32 or UTF-16 when a BOM says so, else Windows-1252
    (Word's "smart" quotes and dashes), else latin-1, which never fails.

    Line endings become ``\\n`` so offsets do not depend on the uploader's platform; NUL
    characters go (PostgreSQL stores none, and no text needs one).
    """
    if data.startswith(codecs.BOM_UTF8):
        text = data[len(codecs.BOM_UTF8) :].decode("utf-8", errors="replace")
    elif data.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):  # before UTF-16's
        text = data.decode("utf-32", errors="replace")
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        text = data.decode("utf-16", errors="replace")
    else:
        # UTF-8, each byte that is none of it read as Windows-1252: a UTF-8 text with one
        # stray Latin-1 byte keeps its accents (decoded whole as cp1252, "café" read
        # "cafÃ©" throughout), and a Latin-1 or Windows text reads as before.
        text = data.decode("utf-8", errors=_CP1252_FALLBACK)
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")


def _cp1252_bytes(error: UnicodeDecodeError) -> tuple[str, int]:
    """The bytes UTF-8 could not read, as Windows-1252 (latin-1 for the five bytes it
    leaves undefined)."""
    bad = error.object[error.start : error.end]
    return "".join(_cp1252_char(bad[i : i + 1]) for i in range(len(bad))), error.end


def _cp1252_char(byte: bytes) -> str:
    try:
        return byte.decode("cp1252")  # latin-1 with printable 0x80-0x9F
    except UnicodeDecodeError:  # one of its five undefined bytes
        return byte.decode("latin-1")


_CP1252_FALLBACK = "kgsite-cp1252"
codecs.register_error(_CP1252_FALLBACK, _cp1252_bytes)


@contextmanager
def _quiet_pypdf() -> Iterator[None]:
    """pypdf logs its repairs ("EOF marker not found") as warnings: the uploader gets
    one error line from us instead."""
    log = logging.getLogger("pypdf")
    previous = log.level
    log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        log.setLevel(previous)


def _pdf_pages(data: bytes, outline: list | None = None) -> Iterator[str]:
    """The text layer of each page, in order; ``InvalidInput`` if the file is broken.

    ``outline``, when given, receives the document's bookmarks.
    """
    from pypdf import PdfReader  # deferred: only PDF uploads need it

    with _quiet_pypdf():
        try:
            reader = PdfReader(io.BytesIO(data))
            if outline is not None:
                outline.extend(outline_items(reader))
            for page in reader.pages:
                # A font mapping a glyph to U+0000: PostgreSQL stores no NUL.
                yield (page.extract_text() or "").replace("\x00", "")
        except Exception as exc:  # a broken file fails in many ways, all one answer
            message = " ".join(str(exc).split()) or type(exc).__name__
            raise InvalidInput(
                gettext_noop("The %(what)s could not be read: %(why)s"),
                params={"what": "PDF", "why": message},
                field="file",
            ) from exc


def _pdf_document(data: bytes) -> ParsedDocument:
    """The text layer without running headers, outlined by the bookmarks when there are
    any (else by chapter and numbered lines, as in a plain-text book)."""

    outline: list = []
    pages = [dehyphenate(page) for page in clean_pages(list(_pdf_pages(data, outline)))]
    starts: list[int] = []
    parts: list[str] = []
    pos = 0
    for page in pages:
        starts.append(pos)
        parts.append(page)
        pos += len(page) + 2
    text = "\n\n".join(parts)
    _require_pdf_text(text)
    headings = outline_headings(outline, starts, text) if outline else []
    if len(headings) >= 2:
        return ParsedDocument(text=text, sections=_build_sections(text, headings, 0, len(text)))
    return ParsedDocument(text=text, sections=_plain_sections(text, 0, len(text), page_text=True))


# --- Markdown ------------------------------------------------------------------------

# A page's settings for a site generator (Jekyll, Hugo, MkDocs): YAML between "---" lines
# (or ending "..."), or TOML between "+++" lines, opening the file with a "key:" line.
_FRONT_MATTER = re.compile(
    r"\A(?:---\n[\w-]+[ \t]*:.*?\n(?:---|\.\.\.)|\+\+\+\n[\w-]+[ \t]*=.*?\n\+\+\+)[ \t]*(?:\n|\Z)",
    re.DOTALL,
)

# An ATX heading (optional closing hashes) or a code fence, whichever a line is.
_MD_LINE = re.compile(
    r"^ {0,3}(?:(?P<hashes>#{1,6})(?:[ \t]+(?P<title>.*?))?(?:[ \t]+#+)?[ \t]*"
    r"|(?P<fence>`{3,}|~{3,}).*)$",
    re.MULTILINE,
)
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|])")
_SPACES = re.compile(r"\s+")
_HOLE = "\ue000"  # a private-use mark holding a code span's place meanwhile
# A link reads as its text; an image (a badge) and a permalink's mark ("¶") as nothing.
_LINK = re.compile(r"(!?)\[([^\[\]]*)\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+(?:\"[^\"]*\"|'[^']*'))?\)")


# An attribute block closing a heading (MkDocs, Pandoc: "## Lines {#lines .wide}"), with
# the blanks before it taken from their run's start (one free to start anywhere in a long
# run of blanks re-read the run from every position).
_ATTRIBUTES = re.compile(r"(?<![ \t])[ \t]*\{[ \t]*[#.][^{}]*\}[ \t]*$")


def _link_text(match: re.Match) -> str:
    text = match.group(2)
    return "" if match.group(1) or text.strip() in PERMALINK_MARKS else text


def _without_comments(text: str) -> str:
    """Markdown without its HTML comments (a page's history, notes to its editors),
    which a reader never sees; a comment inside fenced code is code and stays."""
    if "<!--" not in text:
        return text
    parts: list[str] = []
    prose: list[str] = []
    fence: str | None = None
    for line in text.split("\n"):
        match = _MD_LINE.match(line)
        marker = match.group("fence") if match else None
        opens = marker is not None and fence is None
        if opens or fence is not None:
            if opens and prose:
                parts.append(comments_stripped("\n".join(prose)))
                prose = []
            if opens:
                fence = marker
            elif marker and marker[0] == fence[0] and len(marker) >= len(fence):
                fence = None
            parts.append(line)
            continue
        prose.append(line)
    if prose:
        parts.append(comments_stripped("\n".join(prose)))
    return "\n".join(parts)


def clean_heading(raw: str) -> str:
    """Heading text without Markdown emphasis, escapes, link targets or a closing
    attribute block, whitespace collapsed; code spans as written."""
    raw = raw.replace(_HOLE, "")
    # A code span's text is literal (``__init__``, ``**kwargs``): no emphasis or escape.
    spans, held, last = [], [], 0
    for start, end in code_spans(raw):
        spans.append(raw[start:end])
        held += [raw[last:start], _HOLE]
        last = end
    held.append(raw[last:])
    text = _LINK.sub(_link_text, _ATTRIBUTES.sub("", "".join(held)))
    text = emphasis_stripped(text)
    text = _ESCAPE.sub(r"\1", text)
    for span in spans:
        text = text.replace(_HOLE, span, 1)
    return _SPACES.sub(" ", text).strip()


# A setext underline (``Title`` over ``=====`` or ``-----``), and the lines that cannot be
# a setext title: indented code, a list item, a quote, a table row, a thematic break.
_SETEXT = re.compile(r" {0,3}(=+|-+)[ \t]*")
_NOT_A_TITLE = re.compile(
    r"(?: {4}|\t| {0,3}(?:[-*+>|]|\d{1,9}[.)])(?:[ \t]|$)| {0,3}(?:[-*_][ \t]*){3,}$)"
)
SETEXT_MIN = 3  # underline characters: a lone "-" under a line is more often a typo


def _markdown_headings(text: str) -> list[tuple[int, int, str]]:
    """(line start, level, title) for each ATX heading outside fenced code, and each setext
    heading whose title is a one-line paragraph (CommonMark's other heading form)."""
    headings: list[tuple[int, int, str]] = []
    fence: str | None = None
    pos = 0
    # The previous line, when it could be a setext title: a lone line after a blank one.
    title_line: tuple[int, str] | None = None
    before_blank = True
    for line in text.split("\n"):
        start, pos = pos, pos + len(line) + 1
        match = _MD_LINE.match(line)
        marker = match.group("fence") if match else None
        candidate, title_line = title_line, None
        blank = not line.strip()
        if marker:
            if fence is None:
                fence = marker
            elif marker[0] == fence[0] and len(marker) >= len(fence):
                fence = None
        elif fence is None and match is not None:
            if title := clean_heading(match.group("title") or ""):
                headings.append((start, len(match.group("hashes")), title))
        elif fence is None and (underline := _SETEXT.fullmatch(line)):
            title = clean_heading(candidate[1]) if candidate is not None else ""
            if title and len(underline.group(1)) >= SETEXT_MIN:
                level = 1 if underline.group(1)[0] == "=" else 2
                headings.append((candidate[0], level, title))
                blank = True  # the underline closes the heading like a blank line
        elif fence is None and not blank and before_blank and not _NOT_A_TITLE.match(line):
            title_line = (start, line)
        before_blank = blank
    return headings


def _markdown_sections(text: str) -> list[Section]:
    headings = _markdown_headings(text)
    # A leading H1 with no body, directly followed by another heading, is the
    # document's title (the SRD chapter files start that way): every other heading,
    # including later H1s, nests under it instead of replacing it.
    title_index = None
    if (
        len(headings) > 1
        and headings[0][1] == 1
        and not text[: headings[0][0]].strip()
        and not _body(text, headings[0][0], headings[1][0]).strip()
    ):
        title_index = 0
    return _build_sections(text, headings, 0, len(text), title_index)


def _body(text: str, line_start: int, end: int) -> str:
    newline = text.find("\n", line_start, end)
    return "" if newline < 0 else text[newline + 1 : end]


def _build_sections(
    text: str,
    headings: list[tuple[int, int, str]],
    start: int,
    end: int,
    title_index: int | None = None,
) -> list[Section]:
    """Sections between consecutive headings, each with its path from a level stack."""
    sections: list[Section] = []
    first = headings[0][0] if headings else end
    if text[start:first].strip():
        sections.append(Section((), 0, text[start:first], start, first))
    stack: list[tuple[int, str]] = []
    for index, (pos, level, title) in enumerate(headings):
        effective = 0 if index == title_index else level
        while stack and stack[-1][0] >= effective:
            stack.pop()
        stack.append((effective, title))
        nxt = headings[index + 1][0] if index + 1 < len(headings) else end
        sections.append(
            Section(tuple(t for _, t in stack), level, text[pos:nxt], pos, nxt),
        )
    return sections


# --- plain text (novels, PDF text layers) --------------------------------------------

_PG_START = re.compile(r"^\*{3}\s*START OF (?:THE|THIS) PROJECT GUTENBERG.*$", re.I | re.M)
_PG_END = re.compile(
    r"^(?:\*{3}\s*END OF (?:THE|THIS) PROJECT GUTENBERG.*"
    r"|End of (?:the )?Project Gutenberg'?s? .*)$",
    re.I | re.M,
)

_ROMAN = r"(?=[MDCLXVI])M{0,4}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})"
_UNITS = "one|two|three|four|five|six|seven|eight|nine"
_NUMBER_WORD = (
    rf"(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[- ](?:{_UNITS}))?"
    rf"|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen"
    rf"|{_UNITS}|hundred"
    r"|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last"
)
_CHAPTER_LINE = re.compile(
    r"^(?:chapter|book|part|volume|adventure|stave|letter|canto)\s+(?:the\s+)?"
    rf"(?:{_ROMAN}|\d+|{_NUMBER_WORD})\b[.:]?(?:\s+\S.*)?$",
    re.I,
)
_ROMAN_TITLE = re.compile(rf"^({_ROMAN})\.\s+(\S.*)$")
_ROMAN_ALONE = re.compile(rf"^{_ROMAN}\.?$")
_SENTENCE_END = ".!?:;\"'”’)]"


def gutenberg_body(text: str) -> tuple[int, int]:
    """The span between Project Gutenberg's START/END markers (the whole text if none)."""
    start, end = 0, len(text)
    if match := _PG_START.search(text):
        start = match.end()
    if match := _PG_END.search(text, start):
        end = match.start()
    return start, end


def _is_caps_title(line: str) -> bool:
    """A short line in capitals, like ``PLAYING PILGRIMS`` or ``PREFACE.``."""
    letters = [c for c in line if c.isalpha()]
    return (
        2 <= len(line) <= 60
        and len(letters) >= 2
        and all(c.isupper() for c in letters)
        and line[-1] not in ",;-"
        and line[0] not in "[(*\"'“‘«"
    )


def _heading_kind(line: str) -> str | None:
    """``chapter`` (level 1), ``part`` (a bare roman numeral) or None for body text."""
    if len(line) > 80:
        return None
    if _CHAPTER_LINE.match(line):
        return "chapter"
    if (match := _ROMAN_TITLE.match(line)) and _is_caps_title(match.group(2)):
        return "chapter"
    if _ROMAN_ALONE.match(line):
        return "part"
    if _is_caps_title(line) and not _ROMAN_ALONE.match(line.rstrip(".")):
        return "title"
    return None


def _plain_headings(
    text: str, start: int, end: int, *, page_text: bool = False
) -> list[tuple[int, int, str]]:
    """Headings of a plain-text book: isolated lines (blank before and after) that
    look like chapter headings. A capitals line right after a chapter line is the
    chapter's subtitle and joins it.

    PDF text layers have no blank lines, so there a chapter line only needs to
    follow a finished sentence (not "see\nChapter 3 of ..."), and lines in capitals,
    which are mostly running page headers, are not taken as titles.
    """
    lines: list[tuple[int, str]] = []
    pos = start
    indented: set[int] = set()
    for raw in text[start:end].split("\n"):
        if raw[:1].isspace():
            indented.add(len(lines))
        lines.append((pos, raw.strip()))
        pos += len(raw) + 1
    headings: list[tuple[int, int, str]] = []
    in_chapter = False
    i = 0
    while i < len(lines):
        pos, line = lines[i]
        previous = lines[i - 1][1] if i else ""
        if page_text:
            isolated = bool(line) and (not previous or previous[-1] in _SENTENCE_END)
        else:
            isolated = bool(line) and not previous and (i + 1 == len(lines) or not lines[i + 1][1])
        kind = _heading_kind(line.strip("[]_ ")) if isolated else None
        if kind == "title" and (page_text or i in indented):
            kind = None  # centred capitals in a novel are verse titles, signs, letters
        if kind is None:
            i += 1
            continue
        title = line.strip("[]_ ")
        if kind == "chapter":
            j = i + 1
            while j < len(lines) and not lines[j][1]:
                j += 1
            if (
                j < len(lines)
                and (j + 1 == len(lines) or not lines[j + 1][1])
                and _heading_kind(lines[j][1]) == "title"
            ):
                title = f"{title.rstrip('.:')}: {lines[j][1]}"
                i = j
            in_chapter = True
            headings.append((pos, 1, title))
        elif kind == "part" and in_chapter:
            headings.append((pos, 2, title))
        else:
            in_chapter = True
            headings.append((pos, 1, title))
        i += 1
    return headings


def _plain_sections(text: str, start: int, end: int, *, page_text: bool = False) -> list[Section]:

    headings = [] if page_text else technical_headings(text, start, end)
    if not headings:
        headings = _plain_headings(text, start, end, page_text=page_text)
    # A title reads as its words: a text file's runs of blanks are layout, not title.
    headings = [(pos, level, " ".join(title.split())) for pos, level, title in headings]
    return _build_sections(text, headings, start, end)
