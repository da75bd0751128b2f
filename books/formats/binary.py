"""What a text upload turns out to be when it is no text: an executable, an archive or
an image renamed to a text extension, or binary data. Refused before it is read as text."""

from __future__ import annotations

import codecs

from django.utils.translation import gettext_noop

from kgsite.errors import InvalidInput, Wording

# Magic numbers of binary files that are sometimes renamed to a text extension.
_BINARY_MAGIC = (
    (b"\x7fELF", gettext_noop("an ELF executable")),
    (b"MZ", gettext_noop("a Windows executable")),
    (b"%PDF-", gettext_noop("a PDF")),
    (b"PK\x03\x04", gettext_noop("a ZIP archive")),
    (b"\x89PNG", gettext_noop("a PNG image")),
    (b"\xff\xd8\xff", gettext_noop("a JPEG image")),
    (b"\x1f\x8b", gettext_noop("a gzip archive")),
)


_WIDE_BOMS = (
    codecs.BOM_UTF32_LE,
    codecs.BOM_UTF32_BE,
    codecs.BOM_UTF16_LE,
    codecs.BOM_UTF16_BE,
)


def refuse_binary(data: bytes) -> None:
    """``InvalidInput`` for binary content in a text upload: never ingested as text."""
    if data.startswith(_WIDE_BOMS):
        return  # UTF-16 and UTF-32 text hold NUL bytes legitimately
    for magic, what in _BINARY_MAGIC:
        if data.startswith(magic) and (magic != b"MZ" or b"\x00" in data[:1024]):
            raise InvalidInput(
                gettext_noop("The file is %(kind)s, not text: nothing ingested."),
                params={"kind": Wording(what)},
                field="file",
            )
    if b"\x00" in data[:65536]:
        raise InvalidInput(
            gettext_noop("The file holds binary data (NUL bytes), not text: nothing ingested."),
            field="file",
        )
