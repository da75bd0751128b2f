"""Numbers as people write them: digits read the way each language groups them, and
numbers in words ("thirty-five", "trinta e cinco", "trentotto"). Shared by the value
extraction (``values``) and the rewriting of words into digits (``normalize``)."""

from __future__ import annotations

import re
import unicodedata

from . import lexicon as lx

_WORDS = re.compile(r"[^\W\d_]+")


def fold(text: str) -> str:
    """Case-folded NFC text with typographic apostrophes made plain."""
    return unicodedata.normalize("NFC", text.replace("’", "'").replace("`", "'")).casefold()


def parse_number(raw: str, lang: str) -> float | None:
    """Read "1.72", "1,72", "1,000" and "1.000" the way each language writes them."""
    if "," in raw and "." in raw:
        decimal = "," if raw.rfind(",") > raw.rfind(".") else "."
        thousands = "." if decimal == "," else ","
        raw = raw.replace(thousands, "").replace(decimal, ".")
    elif "," in raw:
        if lang == "en" and re.fullmatch(r"\d{1,3}(?:,\d{3})+", raw):
            raw = raw.replace(",", "")
        else:
            raw = raw.replace(",", ".")
    elif "." in raw and lang in ("it", "pt") and re.fullmatch(r"\d{1,3}(?:\.\d{3})+", raw):
        raw = raw.replace(".", "")
    try:
        return float(raw)
    except ValueError:
        return None


def _number_word(word: str, lang: str) -> int | None:
    table = lx.NUMBER_WORDS.get(lang, {})
    if word in lx.AMBIGUOUS_NUMBER_WORDS:
        return None
    if word in table:
        return table[word]
    if lang == "it":  # "trentacinque", "ventotto"
        for tens_word, tens in table.items():
            if not 20 <= tens < 100 or tens % 10:
                continue
            for prefix in (tens_word, tens_word[:-1]):
                rest = word[len(prefix) :] if word.startswith(prefix) else ""
                if rest in lx.ITALIAN_UNITS:
                    return tens + lx.ITALIAN_UNITS[rest]
    return None


def _word_numbers(text: str, lang: str) -> list[tuple[int, int, int]]:
    """Numbers written in letters as (start, end, value): "two", "thirty-five",
    "trinta e cinco", "trentotto", "quarant'" (before "anni"), "two hundred"."""
    found = []
    words = list(_WORDS.finditer(text))
    joiners = lx.NUMBER_JOINER_WORDS.get(lang, frozenset())
    i = 0
    while i < len(words):
        m = words[i]
        word = fold(m.group(0))
        value = _number_word(word, lang)
        if value is None and lang == "it" and text.startswith("'", m.end()):
            value = lx.ITALIAN_ELIDED_TENS.get(word)
        if value is None:
            i += 1
            continue
        end, j = m.end(), i + 1
        if j < len(words):
            nxt, gap = words[j], text[end : words[j].start()]
            if joiners and fold(nxt.group(0)) in joiners and j + 1 < len(words):
                # "trinta e cinco": the joiner is a word of its own.
                after = words[j + 1]
                if text[nxt.end() : after.start()] == " " and gap == " ":
                    nxt, gap, j = after, "+", j + 1
            following = _number_word(fold(nxt.group(0)), lang)
            tens = value in range(20, 100, 10)
            if gap in ("-", " ", "+") and following and tens and following < 10:
                if gap == "+" or lang == "en":
                    value, end, j = value + following, nxt.end(), j + 1
            elif gap == " " and fold(nxt.group(0)) in lx.HUNDRED_WORDS and value < 10:
                value, end, j = value * 100, nxt.end(), j + 1
        found.append((m.start(), end, value))
        i = j
    return found
