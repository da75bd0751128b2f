"""The books pages' refusals in the page's language.

The ingest and review services refuse in English, the API's language; the upload page
and the candidate queue say the same in the curator's (the Italian pages showed these
sentences in English)."""

from __future__ import annotations

import re

from django.utils.translation import gettext_lazy

from kgsite.errors import DomainError

# What a text upload turned out to be (``parsing.refuse_binary``'s words).
_KINDS = {
    "an ELF executable": gettext_lazy("an ELF executable"),
    "a Windows executable": gettext_lazy("a Windows executable"),
    "a PDF": gettext_lazy("a PDF"),
    "a ZIP archive": gettext_lazy("a ZIP archive"),
    "a PNG image": gettext_lazy("a PNG image"),
    "a JPEG image": gettext_lazy("a JPEG image"),
    "a gzip archive": gettext_lazy("a gzip archive"),
}

# (the service's sentence, the page's); named groups fill the page's placeholders.
_SENTENCES = (
    (r"The uploaded document is empty\.", gettext_lazy("The uploaded document is empty.")),
    (
        r"Unsupported file type \((?P<ext>[^)]*)\): .*",
        gettext_lazy(
            "Unsupported file type (%(ext)s): upload a .md, .txt, .rst, .pdf, .html or .epub "
            "file, or a manual page (.man, .1 to .8)."
        ),
    ),
    (
        r"The file is (?P<kind>.+), not text: nothing ingested\.",
        gettext_lazy("The file is %(kind)s, not text: nothing ingested."),
    ),
    (
        r"The file holds binary data \(NUL bytes\), not text: nothing ingested\.",
        gettext_lazy("The file holds binary data (NUL bytes), not text: nothing ingested."),
    ),
    (
        r"The PDF has no text layer .*",
        gettext_lazy(
            "The PDF has no text layer (scanned pages need OCR first): nothing to ingest."
        ),
    ),
    (
        r"The (?P<what>PDF|EPUB) could not be read: (?P<why>.*)",
        gettext_lazy("The %(what)s could not be read: %(why)s"),
    ),
    (
        r"The manual page only includes (?P<page>.+) \(\.so\): ingest that page instead\.",
        gettext_lazy("The manual page only includes %(page)s (.so): ingest that page instead."),
    ),
    (r"title must not be empty", gettext_lazy("The title must not be empty.")),
    (
        r"title must not hold control characters",
        gettext_lazy("The title must not hold control characters."),
    ),
    (
        r"author must not hold control characters",
        gettext_lazy("The author must not hold control characters."),
    ),
    (
        r"title is longer than (?P<n>\d+) characters",
        gettext_lazy("The title is longer than %(n)s characters."),
    ),
    (
        r"author is longer than (?P<n>\d+) characters",
        gettext_lazy("The author is longer than %(n)s characters."),
    ),
)
# The candidate queue's refusals (``review`` and the entity graph's curation).
_CANDIDATES = (
    (r"choose at least one candidate", gettext_lazy("Choose at least one candidate.")),
    (r"choose the type to give them", gettext_lazy("Choose the type to give them.")),
    (
        r"choose candidates other than the target",
        gettext_lazy("Choose candidates other than the target."),
    ),
    (r"name the entity", gettext_lazy("Name the entity to merge them into.")),
    (r"no entity is named '(?P<name>.*)'", gettext_lazy("No entity is named “%(name)s”.")),
    (
        r"'(?P<name>.*)' names several entities \((?P<types>.*)\)",
        gettext_lazy("“%(name)s” names several entities (%(types)s): choose another name."),
    ),
    (
        r"some of these are no longer candidates .*",
        gettext_lazy(
            "Some of these are no longer candidates (accepted, merged or gone): reload the page."
        ),
    ),
    (
        r"cannot bring them back: '(?P<name>.*)' is back already",
        gettext_lazy("They cannot come back: “%(name)s” is back already."),
    ),
    (
        r"cannot bring them back: another entity is now named '(?P<name>.*)'",
        gettext_lazy("They cannot come back: another entity is now named “%(name)s”."),
    ),
    (
        r"cannot bring them back: the book that proposed '(?P<name>.*)' was deleted or "
        r"re-ingested since",
        gettext_lazy(
            "They cannot come back: the book that proposed “%(name)s” was deleted or "
            "re-ingested since."
        ),
    ),
)
_COMPILED = tuple(
    (re.compile(pattern, re.S), text) for pattern, text in (*_SENTENCES, *_CANDIDATES)
)


def refusal_text(exc: DomainError) -> str:
    """The refusal as the page says it: translated when it is one of the ingest's."""
    for pattern, text in _COMPILED:
        if found := pattern.fullmatch(exc.message):
            values = found.groupdict()
            if "kind" in values:
                values["kind"] = str(_KINDS.get(values["kind"], values["kind"]))
            return str(text) % values if values else str(text)
    return exc.message
