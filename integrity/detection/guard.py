"""The duplicate guard: a duplicate verdict folds a new statement into a stored one, so
it must never fire when the two disagree on a value (issue 27).

Before any duplicate verdict (``fact_store``'s confirmation, the background check, the
check endpoint, recall's finding) every identifier, number (after unit conversion),
date, weekday, clock time (in UTC where a zone is given) and proper name of the new
statement must also be in the stored one, and both must say "not" alike. A new
statement that says less than the stored one may still be a duplicate ("on Monday at
10:00" then "on Monday"); one that says anything the stored one does not is new
information or a conflict, for the pair model to tell apart.

Hand-written on purpose: it is structure, not judgement, and it must hold for pairs
nobody has seen. Names are aligned through the entity table (``mentions``) and through
the shapes of abbreviations, never through a list.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
from collections.abc import Sequence
from difflib import SequenceMatcher

from . import tables as tb
from .aliases import Mentions, initialism_in, numeronym_in, shortened_in
from .structure import Reading, Value, language, plain, read
from .tokens import _FUNCTION_ZIPF, zipf

# Two amounts are the same when they differ by at most this share (rounding in a
# conversion: 5 ft 8 in = 172.7 cm, written "173 cm").
SAME_AMOUNT = 0.01
# "16 GB" of memory is 16,384 MB (powers of two), of disk 16,000 MB: both readings agree.
DATA_AMOUNT = 0.025
# Statements longer than this are never near-duplicates of another (their exact copies
# are still found by their normalised text): comparing value by value stays cheap, and a
# long pathological text costs linear time.
MAX_CHARS = 2000
MAX_VALUES = 64


def duplicate_blockers(
    existing: str | Reading,
    new: str | Reading,
    *,
    mentions: Mentions | None = None,
    flags: list | None = None,
) -> list[str]:
    """What the new statement says that the existing one does not; empty when nothing
    stands in the way of a duplicate verdict. Never raises."""
    texts = [x.text if isinstance(x, Reading) else x for x in (existing, new)]
    if max(len(t) for t in texts) > MAX_CHARS:
        return ["too long to compare value by value"]
    try:
        a = existing if isinstance(existing, Reading) else read(existing)
        b = new if isinstance(new, Reading) else read(new)
        return _blockers(a, b, mentions, flags)
    except Exception:  # noqa: BLE001 - when in doubt, nothing is a duplicate
        return ["the statements could not be compared"]


def _blockers(
    a: Reading, b: Reading, mentions: Mentions | None, flags: list | None = None
) -> list[str]:
    if max(len(a.values), len(b.values)) > MAX_VALUES:
        return ["too long to compare value by value"]
    reasons, weak = [], []
    for value, ok in flags if flags is not None else covered_flags(a, b, mentions):
        if ok:
            continue
        reason = f"{_KIND_WORDS[value.kind]} {_surface(b, value)}"
        (weak if value.kind == "name" and value.key[1] else reasons).append(reason)
    if weak and _lost_name(a, b):
        reasons += weak
    if a.negations % 2 != b.negations % 2 and not _negation_left_out(a, b):
        reasons.append(NEGATION)
    elif a.negations % 2 == b.negations % 2 and _opposite_word(a, b):
        reasons.append(OPPOSITE_WORD)
    elif _word_swapped(a, b):
        reasons.append("a word put in place of another")
    return reasons


NEGATION = "negation"
OPPOSITE_WORD = "a word and its opposite"


def opposed(blockers: Sequence[str]) -> bool:
    """Whether the guard refuses a duplicate because one statement says the opposite of
    the other: a negation on one side only, or a word against its negative-prefixed form.
    A pair the model reads as the same statement but for that is a contradiction
    (``model.decide``), not the compatible pair a refused duplicate used to become."""
    return any(reason in (NEGATION, OPPOSITE_WORD) for reason in blockers)


def _opposite_word(a: Reading, b: Reading) -> bool:
    """A word only one side has is the other side's word with a negative prefix
    ("activé" / "désactivé", "locked" / "unlocked") and neither side adds a negation:
    the two say opposite things."""
    wa, wb = set(a.words()[:60]), set(b.words()[:60])
    return bool(affix_opposite(wa - wb, wb - wa))


# One span of at most this many words a side put in place of another (``_word_swapped``).
SWAP_WORDS = 2


def _word_swapped(a: Reading, b: Reading) -> bool:
    """The statements are equal but for one short span of words put in place of
    another, no value in it and no word of one a form of a word of the other ("the
    staging cluster" / "the production cluster", "approved" / "rejected"): the slot
    holds another thing. Folding would lose it; a synonym stays a fact of its own."""
    ta = [
        (plain(t.text), i) for i, t in enumerate(a.tokens[:120]) if any(c.isalnum() for c in t.text)
    ]
    tb_ = [
        (plain(t.text), i) for i, t in enumerate(b.tokens[:120]) if any(c.isalnum() for c in t.text)
    ]
    if not ta or not tb_:
        return False
    matcher = SequenceMatcher(None, [w for w, _i in ta], [w for w, _i in tb_], autojunk=False)
    ops = [op for op in matcher.get_opcodes() if op[0] != "equal"]
    if len(ops) != 1 or ops[0][0] != "replace":
        return False
    _tag, i1, i2, j1, j2 = ops[0]
    if i2 - i1 > SWAP_WORDS or j2 - j1 > SWAP_WORDS:
        return False
    span_a, span_b = ta[i1:i2], tb_[j1:j2]
    if any(i in a.used for _w, i in span_a) or any(j in b.used for _w, j in span_b):
        return False
    return not any(x == y or _same_stem(x, y) for x, _i in span_a for y, _j in span_b)


def affix_opposite(only_a: set[str], only_b: set[str]) -> float:
    """Whether a word only one side has is the other side's word with a negative prefix
    ("locked"/"unlocked"), comparing up to 30 words a side."""
    small_a, small_b = sorted(only_a)[:30], sorted(only_b)[:30]
    # The longer word of a pair carries the prefix (of two as long, the second side's).
    for longer, others, tie in ((small_a, small_b, False), (small_b, small_a, True)):
        for word in longer:
            stems = _prefixed_stems(word)
            shorter = [w for w in others if len(w) < len(word) or (tie and len(w) == len(word))]
            if stems and any(_same_stem(s, w) for s in stems for w in shorter):
                return 1.0
    return 0.0


def _prefixed_stems(word: str) -> list[str]:
    """What is left of ``word`` after each negative prefix it starts with (4 letters or
    more): the words it may be the negation of."""
    return [
        word[len(prefix) :]
        for prefix in tb.NEGATIVE_PREFIXES
        if word.startswith(prefix) and len(word) - len(prefix) >= 4
    ]


def _same_stem(x: str, y: str) -> bool:
    """Equal but for an inflected ending ("attivato"/"attivata", "able"/"abled")."""
    common = len(os.path.commonprefix([x, y]))
    return common >= max(4, min(len(x), len(y)) - 2)


def covered_flags(
    a: Reading, b: Reading, mentions: Mentions | None = None
) -> list[tuple[Value, bool]]:
    """Each value of ``b`` (at most ``MAX_VALUES``) and whether ``a`` says it too."""
    a = _bounded(a)
    known = _known_words(a)
    spans = _entity_spans(a, b, mentions) + _expansions(a, b)
    return [(v, _covered(v, a, b, known, spans)) for v in b.values[:MAX_VALUES]]


def _bounded(r: Reading) -> Reading:
    if len(r.values) <= MAX_VALUES:
        return r
    return Reading(text=r.text, tokens=r.tokens, values=r.values[:MAX_VALUES])


_KIND_WORDS = {
    "ident": "identifier",
    "number": "number",
    "date": "date",
    "weekday": "weekday",
    "time": "time",
    "name": "name",
}


def _lost_name(a: Reading, b: Reading) -> bool:
    """Whether a value of ``a`` (a name, or a word read as another value) is missing
    from ``b``: with a weak name of ``b`` that ``a`` lacks, one name was put in place of
    another."""
    return any(not ok for _v, ok in covered_flags(b, a))


def _surface(r: Reading, v: Value) -> str:
    return r.text[r.tokens[v.first].start : r.tokens[v.last].end]


def _known_words(r: Reading) -> set[str]:
    """Every token of ``r`` in plain form, possessives and hyphen parts included."""
    if r.known is not None:
        return r.known
    words: set[str] = set()
    for token in r.tokens:
        p = _name_key(token.text)
        words.add(p)
        words.update(part for part in p.replace("'", "-").split("-") if part)
    r.known = words
    return words


def _name_key(text: str) -> str:
    p = plain(text)
    return p[:-2] if p.endswith("'s") else p


def _entity_spans(a: Reading, b: Reading, mentions: Mentions | None) -> list[tuple[int, int]]:
    """Spans of the new text naming an entity the existing text names too (aliases
    included: "k8s" and "Kubernetes" once a curator made them one entity)."""
    if mentions is None:
        return []
    try:
        keys = {key for _s, _e, key in mentions(a.text)}
        return [(s, e) for s, e, key in mentions(b.text) if key in keys]
    except Exception:  # noqa: BLE001 - the entity table is a help, not a must
        return []


def _covered(
    v: Value, a: Reading, b: Reading, known: set[str], entity_spans: list[tuple[int, int]]
) -> bool:
    if v.kind == "ident":
        if v.key[0] in {x.key[0] for x in a.of("ident")} or _name_key(v.key[0]) in known:
            return True
        return numeronym_in(b.tokens[v.first].text, a.text) is not None
    if v.kind == "name":
        return _name_covered(v, a, b, known, entity_spans)
    if v.kind == "number":
        return any(
            same_amount(p, q) and _no_more_precise(p, q)
            for x in a.of("number")
            for p in _amounts(v, b)
            for q in _amounts(x, a)
        ) or _year_of_date(v, a)
    if v.kind == "date":
        return any(_date_within(v, x) for x in a.of("date"))
    if v.kind == "weekday":
        return any(x.key == v.key for x in a.of("weekday"))
    if v.kind == "time":
        zone = _zone_words(b, v)
        return any(_same_time(v, x) and _zone_words(a, x) == zone for x in a.of("time"))
    return False


def _name_covered(
    v: Value, a: Reading, b: Reading, known: set[str], entity_spans: list[tuple[int, int]]
) -> bool:
    key = _name_key(v.key[0])
    if key in known:
        return True
    if v.key[1] and _ordinary_word(key, a, b):
        return True
    token = b.tokens[v.first]
    if any(s <= token.start and token.end <= e for s, e in entity_spans):
        return True
    raw = token.text
    if any(numeronym_in(x.key[0], raw) for x in a.of("ident")):  # "Kubernetes" of "k8s"
        return True
    if raw.isupper() and 2 <= len(raw) <= 6 and initialism_in(raw, a.text):
        return True
    if numeronym_in(raw, a.text) is not None:
        return True
    return v.first == v.last and _shortened(raw, a, b)


def _shortened(raw: str, a: Reading, b: Reading) -> bool:
    """One side's name is the other's capitalised word shortened ("Prom" / "Prometheus",
    "CH" / "ClickHouse", "St" / "Street"), and the longer form is not said by the side
    with the short one: one name written two ways, not a second name. Both ways round,
    like an acronym and its words (``_expansions``): the stored name found in the new
    statement matters as much as the new one found in the stored."""
    longer = shortened_in(raw, a.text)
    if longer is not None and plain(longer) not in _known_words(b):
        return True
    return any(
        shortened_in(token.text, raw) == raw and plain(token.text) not in _known_words(b)
        for token in a.tokens[:400]
        if token.text[:1].isupper()
    )


def _expansions(a: Reading, b: Reading) -> list[tuple[int, int]]:
    """Spans of ``b`` that write out an acronym of ``a`` ("FDA" -> "Food and Drug
    Administration")."""
    spans = []
    for token in a.tokens[:400]:
        raw = token.text
        if raw.isupper() and raw.isalpha() and 2 <= len(raw) <= 6 and len(spans) < 16:
            words = initialism_in(raw, b.text)
            if words:
                start = b.text.find(words)
                spans.append((start, start + len(words)))
    return spans


def same_amount(v: Value, x: Value) -> bool:
    """The same amount; a bare number may also be the stored amount as written
    ("11" of "eleven years old")."""
    if not v.dim and v.lo == v.hi and _exact(v.key[0], x.key[0]):
        return True
    if v.dim and v.dim != x.dim:
        return False
    if v.unit == x.unit:  # written alike: only the very same number
        return _exact(v.lo, x.lo) and _exact(v.hi, x.hi)
    share = DATA_AMOUNT if v.dim.startswith("data") else SAME_AMOUNT
    return _close(v.lo, x.lo, share) and _close(v.hi, x.hi, share)


def _no_more_precise(v: Value, x: Value) -> bool:
    """False when ``x`` is an approximation ("about 8,000 a month") and ``v`` an exact
    amount near it but not it ("7,950 a month"): ``v`` says more than ``x``."""
    return not x.approx or v.approx or (_exact(v.lo, x.lo) and _exact(v.hi, x.hi))


def _exact(p: float, q: float) -> bool:
    return p == q or abs(p - q) <= 1e-9 * max(abs(p), abs(q))


def _close(p: float, q: float, share: float = 0.01) -> bool:
    if math.isinf(p) or math.isinf(q):
        return p == q
    return abs(p - q) <= share * max(abs(p), abs(q)) or abs(p - q) < 1e-9


def _year_of_date(v: Value, a: Reading) -> bool:
    """A bare "2027" said of a stored "31 January 2027"."""
    if v.dim or v.lo != v.hi or not v.lo.is_integer():
        return False
    return any(x.key[0] == int(v.lo) for x in a.of("date"))


def _readings(v: Value) -> list[tuple]:
    """A slashed date that reads both ways ("03/04/2027") has two readings."""
    if len(v.key) == 4:
        return [v.key[:3], v.key[3]]
    return [v.key]


def _date_within(v: Value, x: Value) -> bool:
    for new in _readings(v):
        for old in _readings(x):
            if all(n is None or n == o for n, o in zip(new, old, strict=True)):
                return True
    return False


# Words after a clock time that open the name of its zone ("16:00 heure de Lyon",
# "8:15 Uhr Ortszeit"): a zone the reader may not know, compared as written.
_ZONE_CUES = frozenset(("time", "ora", "hora", "heure", "uhr", "zeit", "horario"))
_ZONE_WORDS = 4


def _zone_words(r: Reading, v: Value) -> tuple[str, ...]:
    """The words naming a clock time's zone right after it ("heure de Lyon" ->
    ("heure", "de", "lyon")), empty when no zone word follows: two times written
    alike are one time only when their zones are written alike too."""
    words: list[str] = []
    for token in r.tokens[v.last + 1 : v.last + 1 + _ZONE_WORDS]:
        p = plain(token.text)
        if not any(c.isalpha() for c in p) or (not words and p not in _ZONE_CUES):
            break
        words.append(p)
    return tuple(words)


def _same_time(v: Value, x: Value) -> bool:
    (local_v, utc_v), (local_x, utc_x) = v.key, x.key
    if utc_v is not None and utc_x is not None:
        return utc_v == utc_x
    return local_v == local_x


# --- a capitalised first word that is an ordinary word --------------------------------------

# A capitalised word is the lower-case word itself or the word with an inflection ending
# ("admin" -> "Admins"); never shorter ("market" is no form of "Mark").
_ENDINGS = ("s", "es", "ed")
_STEM_MIN = 4
_WORD_PARTS = re.compile(r"[-_'/]")


def _ordinary_word(key: str, a: Reading, b: Reading) -> bool:
    """A weak name (a capitalised common word opening a sentence: "Totals ...",
    "Follow-up ...") that either statement also writes in lower case, whole or in its
    hyphenated parts, as such or with an inflection ending added: an ordinary word, not
    a name. A name in first position ("Alice", "Mark") is not written in lower case
    elsewhere. A distributive determiner ("Every", "Ogni") is never a name."""
    if key in tb.EVERY_WORDS:
        return True
    lower = _lowercase_words(a) | _lowercase_words(b)
    return all(any(_form_of(part, w) for w in lower) for part in _WORD_PARTS.split(key) if part)


def _form_of(word: str, lower: str) -> bool:
    if word == lower:
        return True
    return len(lower) >= _STEM_MIN and word.startswith(lower) and word[len(lower) :] in _ENDINGS


def _lowercase_words(r: Reading) -> set[str]:
    words: set[str] = set()
    for token in r.tokens[:400]:
        if token.text[:1].islower():
            p = _name_key(token.text)
            words.add(p)
            words.update(part for part in _WORD_PARTS.split(p) if part)
    return words


def _same_word(p: str, q: str) -> bool:
    """One word in two forms: equal, or one is the other with at most two more letters
    (the shorter at least four)."""
    if p == q:
        return True
    short, long = sorted((p, q), key=len)
    return len(short) >= _STEM_MIN and long.startswith(short) and len(long) - len(short) <= 2


# --- an amount that sizes a noun: "over a 30-day period" ---------------------------------

# Prepositions that are a bound before an amount ("over 10 minutes") and mean "during,
# across" before a noun phrase an amount only sizes ("over a 30-day period").
_SPAN_PREPOSITIONS = frozenset(("over", "über"))
_ARTICLES = frozenset(("a", "an", "the", "one", "each", "every"))
# An amount glued to its unit by a hyphen is an adjective: "a 30-day period".
_ATTRIBUTIVE = re.compile(r"\d[\d.,]*-[^\W\d_]+")


def _amounts(v: Value, r: Reading) -> list[Value]:
    """The readings of one amount: as read, and, for a lower bound taken from a span
    preposition two words before an attributive amount ("over a 30-day period"), the
    amount itself (the period lasts 30 days; nothing says "more than")."""
    if not (math.isinf(v.hi) and not math.isinf(v.lo)) or v.first != v.last or v.first < 2:
        return [v]
    before, article = r.tokens[v.first - 2].norm, r.tokens[v.first - 1].norm
    if (
        before in _SPAN_PREPOSITIONS
        and article in _ARTICLES
        and _ATTRIBUTIVE.fullmatch(r.tokens[v.first].text)
    ):
        return [v, dataclasses.replace(v, hi=v.lo)]
    return [v]


# --- a negation in a clause the new statement leaves out -------------------------------------

# A clause left out names at least this many words of its own (content words: not a
# language's function words), none of which the new statement uses in any form.
CLAUSE_WORDS = 2
_CLAUSE_ENDS = frozenset(".!?;:,\n")


def _negation_left_out(a: Reading, b: Reading) -> bool:
    """Whether the stored statement's "not" that the new one lacks stands in a clause the
    new one leaves out altogether ("X is stored as Y; Z has no W" restated as "X is
    stored as Y"): a statement that says less may still be a duplicate. Only the stored
    side's clauses are discounted (a "not" the new statement adds is kept), only between
    statements of one language, and only when another clause of the stored statement is
    one the new statement does say."""
    if language(a) != language(b):
        return False
    other = _content_words(b.tokens)
    left_out, said = 0, False
    for clause in _clauses(a):
        words = _content_words(clause)
        if not words:
            continue
        shared = any(_same_word(w, x) for w in words for x in other)
        if shared:
            said = True
        elif len(words) >= CLAUSE_WORDS:
            left_out += read(a.text[clause[0].start : clause[-1].end]).negations
    return said and left_out > 0 and (a.negations - left_out) % 2 == b.negations % 2


def _clauses(r: Reading) -> list[list]:
    clauses, current = [], []
    for token in r.tokens[:400]:
        if token.text in _CLAUSE_ENDS:
            if current:
                clauses.append(current)
            current = []
        else:
            current.append(token)
    if current:
        clauses.append(current)
    return clauses


def _content_words(tokens: list) -> set[str]:
    """Plain words and values of the tokens, a language's function words left out."""
    return {
        p
        for t in tokens
        if (p := _name_key(t.text)) and any(c.isalnum() for c in p) and zipf(p) < _FUNCTION_ZIPF
    }
