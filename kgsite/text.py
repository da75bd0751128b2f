"""Text normalisation shared by every lookup, constraint and index in the project."""

from __future__ import annotations

import re
import unicodedata

_WS = re.compile(r"\s+")
# C0/C1 control characters other than ordinary whitespace.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")

MAX_NAME_LENGTH = 512


def normalize(text: str) -> str:
    """NFC, full case folding, trimmed and collapsed whitespace.

    Case folding is ``str.casefold`` (``"STRASSE"`` matches ``"Straße"``); accents stay
    significant (``"Sao Paulo"`` is not ``"São Paulo"``). NFC is applied again after
    folding because folding can produce decomposed sequences.
    """
    folded = unicodedata.normalize("NFC", text).casefold()
    return _WS.sub(" ", unicodedata.normalize("NFC", folded)).strip()


def clean_display(text: str) -> str:
    """The display form of a name: NFC, trimmed, whitespace collapsed, case kept."""
    return _WS.sub(" ", unicodedata.normalize("NFC", text)).strip()


def has_control_chars(text: str) -> bool:
    return bool(_CONTROL.search(text))
