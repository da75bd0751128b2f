"""HTML and EPUB to Markdown, so one outline and chunker serve every format.

beautifulsoup4 (with lxml) parses the markup however broken it is, and markdownify
writes headings as ``#``, code as backticks and fenced blocks, definition lists as
``term`` / ``: definition`` and tables as pipes: the structures the Markdown rules
already read. Scripts, styles and navigation are dropped first.
"""

from __future__ import annotations

import contextlib
import functools
import io
import re
import warnings
from pathlib import PurePosixPath

from django.utils.translation import gettext_noop

from books.formats.archive import lost_text, zip_check
from books.formats.markdown import code_spans
from kgsite.errors import InvalidInput

_DROP = ("script", "style", "noscript", "template", "nav", "svg", "head")
_BLANKS = re.compile(r"\n{3,}")
_LINE_HASHES = re.compile(r"^([ \t]*)(#{1,6})(?=[ \t]|$)", re.MULTILINE)
# What a heading's permalink shows (Sphinx and MkDocs end every heading with "¶", GitHub
# opens it with an empty anchor): a mark, never a word of the heading.
PERMALINK_MARKS = frozenset({"", "¶", "§", "#", "🔗"})


def _soup(markup: bytes | str):
    from bs4 import (  # deferred: only HTML and EPUB books need it
        BeautifulSoup,
        XMLParsedAsHTMLWarning,
    )

    if isinstance(markup, bytes):
        # Bytes that read as UTF-8 are UTF-8, whatever an old <meta charset> says; any
        # other encoding is the page's declaration's, or beautifulsoup's guess.
        with contextlib.suppress(UnicodeDecodeError):
            markup = markup.decode("utf-8-sig")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
        return BeautifulSoup(markup, "lxml")


@functools.cache
def _converter():
    from markdownify import MarkdownConverter  # deferred: only HTML and EPUB books need it

    class Converter(MarkdownConverter):
        """markdownify's, with HTML5's sectioning and grouping elements as blocks (it
        runs them into the next block's text: "Kite ClubKites fly")."""

        convert_header = convert_footer = convert_main = convert_aside = (
            MarkdownConverter.convert_div
        )
        convert_figure = convert_address = convert_details = convert_summary = (
            MarkdownConverter.convert_div
        )
        convert_fieldset = convert_dialog = convert_hgroup = convert_center = (
            MarkdownConverter.convert_div
        )

        def escape(self, text, parent_tags):
            # Hashes opening a line of text are text: Markdown reads "# x" as a heading.
            return _LINE_HASHES.sub(r"\1\\\2", super().escape(text, parent_tags))

    return Converter(heading_style="ATX", bullets="-", escape_misc=False)


def html_to_markdown(markup: bytes | str) -> str:
    """The document's body as Markdown (empty when it holds no text)."""
    soup = _soup(markup)
    for tag in soup.find_all(_DROP):
        tag.decompose()
    for heading in soup.find_all(["h1", "h2", "h3", "h4", "h5", "h6"]):
        for link in heading.find_all("a"):
            if link.get_text().strip() in PERMALINK_MARKS:
                link.decompose()
    body = soup.body or soup
    text = _converter().convert_soup(body)
    lines = _unescaped([line.rstrip() for line in text.replace("\r\n", "\n").split("\n")])
    return _BLANKS.sub("\n\n", "\n".join(lines)).strip() + "\n"


_ESCAPED = re.compile(r"\\([_*#])")
_OPENING_HASH = re.compile(r"[ \t]*\\#")  # escaped where a heading's hashes would be


def _unescaped(lines: list[str]) -> list[str]:
    """The prose without the backslashes markdownify puts before every underscore and
    star ("kite\\_line\\_max"), which hid such names from the gazetteer; a heading keeps
    them (they keep "__init__" from reading as emphasis), as code keeps what it says."""
    out: list[str] = []
    fenced = False
    for line in lines:
        if line.startswith("```"):
            fenced = not fenced
        if fenced or line.startswith(("```", "#")):
            out.append(line)
            continue
        spans = code_spans(line)
        pieces, last = [], 0
        for start, end in spans:
            pieces += [_ESCAPED.sub(r"\1", line[last:start]), line[start:end]]
            last = end
        text = "".join([*pieces, _ESCAPED.sub(r"\1", line[last:])])
        if opening := _OPENING_HASH.match(line):  # "\# x" stays text, not a heading
            text = f"{line[: opening.end() - 2]}\\{text[opening.end() - 2 :]}"
        out.append(text)
    return out


def epub_to_markdown(data: bytes, problems: list[str] | None = None) -> str:
    """Every document of the EPUB's reading order (its spine), as one Markdown text.

    The archive's sizes are checked first (``zip_check``); a document whose text did not
    all come through is named in ``problems``.
    """
    zip_check(data, what="EPUB")
    try:
        from ebooklib import ITEM_DOCUMENT, epub  # deferred: only EPUB books need it

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            book = epub.read_epub(io.BytesIO(data), options={"ignore_ncx": True})
    except Exception as exc:  # a broken archive fails in many ways, all one answer
        message = " ".join(str(exc).split()) or type(exc).__name__
        raise InvalidInput(
            gettext_noop("The %(what)s could not be read: %(why)s"),
            params={"what": "EPUB", "why": message},
            field="file",
        ) from exc
    parts: list[str] = []
    seen: set[str] = set()
    titles = _toc_titles(book.toc)
    order = [book.get_item_with_id(item_id) for item_id, _linear in book.spine]
    order += [i for i in book.get_items_of_type(ITEM_DOCUMENT) if i not in order]
    for item in order:
        if item is None or item.get_id() in seen or item.get_type() != ITEM_DOCUMENT:
            continue
        seen.add(item.get_id())
        if isinstance(item, epub.EpubNav):
            continue  # the table of contents repeats every heading
        # The bytes as stored: ebooklib's get_content() parses them again with libxml2,
        # which drops a text node over 10 MB without a word (a 150 MB one left 9 chars).
        markdown = html_to_markdown(item.content).strip()
        lost = lost_text(item.content, markdown, name=item.file_name)
        if lost and problems is not None:
            problems.append(lost)
        title = titles.get(item.file_name) or titles.get(PurePosixPath(item.file_name).name)
        if markdown and title and not _TOP_HEADING.search(markdown):
            # A chapter titled in a styled paragraph, not a heading: its own chapter,
            # under the title the table of contents gives it.
            markdown = f"# {title}\n\n{markdown}"
        if markdown:
            parts.append(markdown)
    return "\n\n".join(parts) + "\n" if parts else ""


_TOP_HEADING = re.compile(r"^# ", re.MULTILINE)


def _toc_titles(entries) -> dict[str, str]:
    """The title the table of contents gives each document (its first entry), by its
    path and by its file name alone (a nav in another folder links "c1.xhtml")."""
    titles: dict[str, str] = {}
    for entry in entries:
        if isinstance(entry, tuple | list):  # (a section, [its entries])
            for href, title in _toc_titles(entry).items():
                titles.setdefault(href, title)
            continue
        href = (getattr(entry, "href", "") or "").split("#", 1)[0]
        title = " ".join((getattr(entry, "title", "") or "").split())
        if href and title:
            titles.setdefault(href, title)
            titles.setdefault(PurePosixPath(href).name, title)
    return titles
