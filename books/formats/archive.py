"""Size checks on compressed uploads, before anything is decompressed (issue 27 item 6).

An EPUB is a ZIP archive: a 278 KB file of 20 chapters × 5 MB passed the 50 MB upload
limit and expanded to 104.8 M characters (18 s, 562 MB of memory, ×377). ``zip_check``
reads only the archive's central directory and refuses, with one line naming the limit,
an archive whose entries would expand past the caps below. Python's ``zipfile`` never
yields more than an entry's declared size (a lying header fails its CRC check), so the
declared sizes checked here bound what any later reader gets.

The text a reader then makes of each document is compared with the text in its markup
(``lost_text``): a parser that silently truncates (libxml2 stops at 10 MB in one text
node) is reported on the job instead of losing the content without a word.

The caps are settings (``KGSITE_ARCHIVE_*``); pure Python otherwise, no Django import.
"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass

from kgsite.errors import InvalidInput

MIB = 1024 * 1024


@dataclass(frozen=True)
class ArchiveLimits:
    """Caps on one archive; the defaults are the settings' defaults."""

    entry_bytes: int = 16 * MIB  # one entry, decompressed
    total_bytes: int = 128 * MIB  # every entry together, decompressed
    ratio: float = 100.0  # decompressed / compressed, for the archive and each big entry
    entries: int = 10_000
    # Entries below this are not held to the ratio (a tiny, repetitive CSS file may
    # compress 200 times; it cannot expand to much).
    ratio_from_bytes: int = 1 * MIB


def limits_from_settings() -> ArchiveLimits:
    from django.conf import settings  # deferred: this module stays usable without Django

    return ArchiveLimits(
        entry_bytes=settings.KGSITE_ARCHIVE_MAX_ENTRY_BYTES,
        total_bytes=settings.KGSITE_ARCHIVE_MAX_TOTAL_BYTES,
        ratio=settings.KGSITE_ARCHIVE_MAX_RATIO,
        entries=settings.KGSITE_ARCHIVE_MAX_ENTRIES,
    )


def _refuse(what: str, message: str) -> None:
    raise InvalidInput(f"The {what} is refused: {message}. Nothing was ingested.", field="file")


def zip_check(data: bytes, *, what: str = "EPUB", limits: ArchiveLimits | None = None) -> None:
    """``InvalidInput`` (a 400, or a failed job naming the limit) for a ZIP archive that
    would expand past ``limits``; a file that is no ZIP archive is left to its reader."""
    limits = limits or limits_from_settings()
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            entries = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        return  # the reader says what is wrong with it, in its own words
    if len(entries) > limits.entries:
        _refuse(what, f"it holds {len(entries):,} files, over the limit of {limits.entries:,}")
    total = 0
    for entry in entries:
        size = entry.file_size
        if size > limits.entry_bytes:
            _refuse(
                what,
                f"{entry.filename[:200]} expands to {size:,} bytes, over the limit of "
                f"{limits.entry_bytes:,} bytes for one file",
            )
        ratio = size / max(1, entry.compress_size)
        if size >= limits.ratio_from_bytes and ratio > limits.ratio:
            _refuse(
                what,
                f"{entry.filename[:200]} expands {ratio:,.0f} times, over the limit of "
                f"{limits.ratio:,.0f} times",
            )
        total += size
    if total > limits.total_bytes:
        _refuse(
            what,
            f"its files expand to {total:,} bytes, over the limit of {limits.total_bytes:,} "
            "bytes for the whole archive",
        )
    ratio = total / max(1, len(data))
    if total >= limits.ratio_from_bytes and ratio > limits.ratio:
        _refuse(what, f"it expands {ratio:,.0f} times, over the limit of {limits.ratio:,.0f}")


# --- text lost by a reader ---------------------------------------------------------------

_TAG = re.compile(r"<[^<>]*>")  # one tag: no nesting, linear
_HIDDEN = re.compile(r"<(script|style)\b[^<>]*>[^<]*", re.IGNORECASE)  # their text, no tags
_ENTITY = re.compile(r"&#?\w{1,10};")
_NOT_TEXT = re.compile(r"[\s#*_`|>\[\]()-]+")  # whitespace and Markdown's marks

# Report a loss only past both thresholds: markup estimates are rough (entities, CDATA).
LOST_FRACTION = 0.5
LOST_MIN_CHARS = 10_000


def _text_chars(text: str) -> int:
    return len(_NOT_TEXT.sub("", text))


def markup_text_chars(markup: bytes | str) -> int:
    """About how many characters of text a page of HTML holds (tags, scripts and styles
    removed, an entity counted as one character), in linear time."""
    if isinstance(markup, bytes):
        markup = markup.decode("utf-8", errors="replace")
    text = _HIDDEN.sub("", markup)
    text = _TAG.sub(" ", text)
    text = _ENTITY.sub("&", text)
    return _text_chars(text)


def lost_text(markup: bytes | str, converted: str, *, name: str) -> str | None:
    """A warning when ``converted`` holds much less text than ``markup`` (else None)."""
    expected = markup_text_chars(markup)
    got = _text_chars(converted)
    missing = expected - got
    if missing >= LOST_MIN_CHARS and got < expected * LOST_FRACTION:
        return (
            f"{name}: about {missing:,} of {expected:,} characters of text could not be "
            "read and are missing from the book"
        )
    return None
