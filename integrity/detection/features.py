"""Pair features for the learned pair model: what reading both statements finds, as
numbers that hold for any text.

Structure (``structure.read``): for each kind of value (number, date, time, identifier,
name, weekday), whether each side has one, how many of the new side's are missing from
the stored side and the other way round, and whether both sides have one the other
lacks (a value put in place of another); amounts of one dimension that differ; an
amount inside the other side's range or bound; negation on one side only. Wording:
overlap of the plain words, each word's best match on the other side (rapidfuzz), how
rare the words only one side has are (wordfreq), lengths; where a statement's one short
changed span sits (``span_late``: late, the object of the same predicate of the same
subject, an exclusive slot; early, another subject); a few words added early, where
the subject is named (``span_early``); each side anchored at a time the other does not
name, with another difference (``time_apart``: a change over time); the word overlap
squared, and the overlap of a pair with a negation on one side only
(``overlap_shape``). Meaning, from a multilingual
sentence encoder when one is passed (``encode``): the cosine of the two statements, the
cosine with their values masked (do they say the same thing of possibly other values),
the cosine of the words only each side has (a substitution of like for like, "high" for
"low", scores high; an added detail scores low), and how well each side's own words fit
the other statement as a whole.

No word list of any evaluation set: the weights come from ``train``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from difflib import SequenceMatcher

import numpy as np

from . import tables as tb
from .alignment import ALIGN_NAMES, NEUTRAL, TokenVectors, alignment_columns
from .guard import affix_opposite, covered_flags, same_amount
from .structure import Reading, language, plain, read
from .tokens import zipf

KINDS = ("number", "date", "time", "ident", "name", "weekday")
# Long statements are read up to this many characters: the features stay cheap.
MAX_CHARS = 2000
# Word alignment compares at most this many words a side.
MAX_WORDS = 60
# A changed span of at most this many tokens a side is one slot's value (``span_late``):
# nested, 2 tokens scored 0.358 macro-F1, 3 tokens 0.355 (docs/curators/pair-model.md).
SPAN_TOKENS = 2


def _names() -> list[str]:
    names = []
    for kind in KINDS:
        names += [f"{kind}_a", f"{kind}_b", f"{kind}_new", f"{kind}_lost", f"{kind}_swap"]
    names += [
        "amount_differs",
        "amount_within",
        "amount_ratio",
        "negation_mismatch",
        "negation_any",
        "blocked",
        "jaccard",
        "only_a",
        "only_b",
        "align_ab_mean",
        "align_ba_mean",
        "align_ab_min",
        "align_ba_min",
        "rare_only_b",
        "rare_only_a",
        "affix_opposite",
        "boolean_swap",
        "length_ratio",
        "same_language",
        "span_late",
        "value_converted",
        "span_early",
        "time_apart",
        "jaccard_sq",
        "negation_x_jaccard",
        "cosine",
        "cosine_sq",
        "cosine_x_jaccard",
        "cosine_masked",
        "cosine_changed",
        "changed_both",
        "changed_a_fit",
        "changed_b_fit",
        *ALIGN_NAMES,
        "bias",
    ]
    return names


FEATURE_NAMES: tuple[str, ...] = tuple(_names())
EMBEDDING_NAMES = FEATURE_NAMES[FEATURE_NAMES.index("cosine") : FEATURE_NAMES.index("bias")]
# Without an encoder the embedding columns hold constants (the cosine 0.5, as the first
# model was trained: its "cosine x jaccard" column then follows the word overlap).
_NEUTRAL = (0.5, 0.25, 0.0, 0.5, 0.5, 0.0, 0.5, 0.5)
Encode = Callable[[Sequence[str]], np.ndarray]
# Texts per encoder call. The multilingual encoder runs batches above four on two BLAS
# threads; measured on 2 busy cores (load 7), a pair's six texts at once took 228 ms
# (mean, nothing cached), two calls of three 36 ms (the cosine-only head: 27 ms).
ENCODE_BATCH = 3


def readings(existing: str, new: str) -> tuple[Reading, Reading]:
    """Both statements read, each up to ``MAX_CHARS``."""
    return read(existing[:MAX_CHARS]), read(new[:MAX_CHARS])


def pair_features(
    existing: str | Reading,
    new: str | Reading,
    *,
    cosine: float | None = None,
    encode: Encode | None = None,
    mentions=None,
    flags: list | None = None,
    lost: list | None = None,
    tokens: TokenVectors | None = None,
) -> np.ndarray:
    """The feature row of one pair (``FEATURE_NAMES``). ``encode`` (texts to unit
    vectors) gives the embedding columns; without it, ``cosine`` alone (the encoder's
    similarity of the two statements) fills the first and the rest stay neutral.
    ``tokens`` (texts to their token vectors) gives the word-alignment columns
    (``alignment``), neutral without it."""
    a = existing if isinstance(existing, Reading) else read(existing[:MAX_CHARS])
    b = new if isinstance(new, Reading) else read(new[:MAX_CHARS])
    row: list[float] = []
    new_flags = covered_flags(a, b, mentions) if flags is None else flags
    lost_flags = covered_flags(b, a, mentions) if lost is None else lost
    new_flags, lost_flags = weak_names_weighed(new_flags, lost_flags)
    for kind in KINDS:
        has_a, has_b = bool(a.of(kind)), bool(b.of(kind))
        new_count = sum(1 for v, ok in new_flags if v.kind == kind and not ok)
        lost_count = sum(1 for v, ok in lost_flags if v.kind == kind and not ok)
        row += [has_a, has_b, min(new_count, 3) / 3, min(lost_count, 3) / 3]
        row.append(float(new_count > 0 and lost_count > 0))
    row += _amounts(a, b)
    if row[FEATURE_NAMES.index("amount_within")]:
        # A number inside the other side's range, bound or approximation narrows it
        # ("between 30 and 35" / "32"; "18 or later" / "20"): not one put in place of it.
        row[FEATURE_NAMES.index("number_swap")] = 0.0
    row += [float(a.negations % 2 != b.negations % 2), float(a.negations + b.negations > 0)]
    row.append(float(any(not ok for _v, ok in new_flags) or a.negations % 2 != b.negations % 2))
    row += _wording(a, b)
    row.append(float(language(a) == language(b)))
    row.append(span_late(a, b, same_values=not any(not ok for _v, ok in new_flags + lost_flags)))
    row.append(value_converted(a, b, new_flags, lost_flags))
    row.append(span_early(a, b))
    row.append(time_apart(a, b, new_flags, lost_flags))
    jaccard = row[FEATURE_NAMES.index("jaccard")]
    row += overlap_shape(jaccard, negation=a.negations % 2 != b.negations % 2)
    if encode is not None:
        texts = embedding_texts(a, b)
        wanted = [t for t in dict.fromkeys(texts) if t]
        found: dict[str, np.ndarray] = {}
        for at in range(0, len(wanted), ENCODE_BATCH):
            batch = wanted[at : at + ENCODE_BATCH]
            found.update(zip(batch, encode(batch), strict=True))
        row += embedding_columns(texts, found, jaccard)
    else:
        row += neutral_columns(cosine, jaccard)[: len(_NEUTRAL)]
    if tokens is not None:
        ta, tb_ = tokens([a.text, b.text])
        row += alignment_columns(ta, tb_)
    else:
        row += NEUTRAL
    row.append(1.0)
    return np.asarray(row, dtype=np.float64)


def weak_names_weighed(new_flags: list, lost_flags: list) -> tuple[list, list]:
    """Both sides' values with each weak name (a capitalised word opening a sentence:
    "Pagamos ...", "Cleaning the site ...") counted as found unless the other side
    lacks a value too, as the duplicate guard counts it (``guard._blockers``): a
    sentence may open with an ordinary word, while one name put in place of another
    loses one on each side. Round 15: every such opening word was a new name in the
    value columns (and in ``blocked``), pushing restatements towards compatible."""

    def weighed(flags: list, other: list) -> list:
        if any(not ok for _v, ok in other):
            return flags
        return [(v, ok or (v.kind == "name" and bool(v.key[1]))) for v, ok in flags]

    return weighed(new_flags, lost_flags), weighed(lost_flags, new_flags)


def overlap_shape(jaccard: float, *, negation: bool) -> list[float]:
    """The word overlap squared, and the overlap when a negation stands on one side only
    (0 otherwise). A linear model reads the overlap in a straight line; the square lets
    it bend (a duplicate shares nearly every word, a conflict most, a statement beside
    another few), and a negation put into an otherwise equal statement ("the gate is
    locked" / "is not locked") is another thing than one in a statement about something
    else. Round 12: nested, reach 0.65 -> 0.75 with both."""
    return [jaccard * jaccard, jaccard if negation else 0.0]


def neutral_columns(cosine: float | None, jaccard: float) -> list[float]:
    """The embedding columns with only the statements' cosine known (or none), the
    alignment columns neutral."""
    c = 0.5 if cosine is None or not math.isfinite(cosine) else float(cosine)
    return [c, c * c, c * jaccard, *_NEUTRAL[3:], *NEUTRAL]


def embedding_texts(a: Reading, b: Reading) -> tuple[str, str, str, str, str, str]:
    """What the encoder reads of a pair: both statements, both with their values masked,
    and the words only each side has ("" when none)."""
    wa, wb = a.words()[:MAX_WORDS], b.words()[:MAX_WORDS]
    sa, sb = set(wa), set(wb)
    only_a = " ".join(w for w in dict.fromkeys(wa) if w not in sb)
    only_b = " ".join(w for w in dict.fromkeys(wb) if w not in sa)
    return a.text, b.text, _masked(a), _masked(b), only_a, only_b


def _masked(r: Reading) -> str:
    """The statement with every token read as part of a value written "0"."""
    return " ".join("0" if i in r.used else t.text for i, t in enumerate(r.tokens))


def embedding_columns(
    texts: Sequence[str], vectors: dict[str, np.ndarray], jaccard: float
) -> list[float]:
    """The embedding columns from the vectors of ``embedding_texts``."""

    def cos(x: str, y: str, empty: float) -> float:
        if not x or not y:
            return empty
        value = float(vectors[x] @ vectors[y])
        return value if math.isfinite(value) else empty

    a, b, masked_a, masked_b, only_a, only_b = texts
    c = cos(a, b, 0.5)
    return [
        c,
        c * c,
        c * jaccard,
        cos(masked_a, masked_b, c),
        cos(only_a, only_b, 0.0),
        float(bool(only_a and only_b)),
        cos(only_a, b, 1.0),
        cos(only_b, a, 1.0),
    ]


def _amounts(a: Reading, b: Reading) -> list[float]:
    """Amounts of one dimension on both sides: do they differ, does one fall inside the
    other's interval (or equal it with a percentage either side names added, round 14),
    and how far apart are they (log ratio, capped)."""
    differs = within = 0.0
    ratio = 0.0
    by_dim: dict[str, list] = {}
    for v in a.of("number"):
        by_dim.setdefault(v.dim, []).append(v)
    rates = _rates(a, b) if not _shared_amount(a, b) else []
    for v in b.of("number")[:32]:
        for x in by_dim.get(v.dim, [])[:32]:
            if same_amount(v, x):
                continue
            differs = 1.0
            p, q = abs(v.lo), abs(x.lo)
            if x.lo <= v.lo <= v.hi <= x.hi or v.lo <= x.lo <= x.hi <= v.hi:
                within = 1.0
            elif (v.approx or x.approx) and min(p, q) > 0 and max(p, q) <= 1.1 * min(p, q):
                within = 1.0  # "about 2" holds 1.96: an approximation is within a tenth
            elif (
                v.dim != "percent"
                and min(p, q) > 0
                and any(abs(max(p, q) / min(p, q) - f) < 1e-3 for f in rates)
            ):
                within = 1.0  # "500 before tax" / "610 with 22 % tax": one is the other plus it
            if math.isfinite(p) and math.isfinite(q) and p > 0 and q > 0:
                ratio = max(ratio, min(abs(math.log(p / q)), 5.0) / 5.0)
    return [differs, within, ratio]


def _rates(a: Reading, b: Reading) -> list[float]:
    """The factors a percentage either statement names would put on an amount: "22 %"
    -> 1.22 (a tax, a surcharge or a raise added to it)."""
    shares = [v.lo for r in (a, b) for v in r.of("number")[:32] if v.dim == "percent"]
    return [1 + s / 100 for s in shares if 0 < s < 100]


def _shared_amount(a: Reading, b: Reading) -> bool:
    """Whether the statements name one amount (not a percentage) alike: then a rate
    relates two amounts of one side ("400 net, 460 with tax"), not one of each side."""
    return any(
        same_amount(v, x)
        for v in b.of("number")[:32]
        for x in a.of("number")[:32]
        if v.dim != "percent"
    )


def _wording(a: Reading, b: Reading) -> list[float]:
    from rapidfuzz import fuzz  # deferred: only the pair model needs it

    wa, wb = a.words()[:MAX_WORDS], b.words()[:MAX_WORDS]
    sa, sb = set(wa), set(wb)
    union = sa | sb
    jaccard = len(sa & sb) / len(union) if union else 1.0
    only_a, only_b = sa - sb, sb - sa

    def best(words: list[str], others: list[str]) -> list[float]:
        if not words:
            return [1.0]
        if not others:
            return [0.0]
        return [max(fuzz.ratio(w, o) for o in others) / 100 for w in words]

    ab, ba = best(wa, wb), best(wb, wa)

    def rarity(words: set[str]) -> float:
        return min(sum(max(0.0, 7 - zipf(w)) for w in sorted(words)) / 20, 1.0)

    length_a, length_b = max(len(a.text), 1), max(len(b.text), 1)
    opposite = affix_opposite(only_a, only_b)
    # Only the literals one side has alone: a phrasal verb's "off" beside an "on" both
    # sides say ("begins on the 3rd" / "kicks off on the 3rd") is no value swapped.
    booleans_a = {tb.BOOLEANS[w] for w in only_a if w in tb.BOOLEANS}
    booleans_b = {tb.BOOLEANS[w] for w in only_b if w in tb.BOOLEANS}
    boolean_swap = float(bool(booleans_a and booleans_b and booleans_a != booleans_b))
    return [
        jaccard,
        len(only_a) / max(len(sa), 1),
        len(only_b) / max(len(sb), 1),
        float(np.mean(ab)),
        float(np.mean(ba)),
        min(ab),
        min(ba),
        rarity(only_b),
        rarity(only_a),
        opposite,
        boolean_swap,
        min(length_a, length_b) / max(length_a, length_b),
    ]


def _span_ops(a: Reading, b: Reading) -> tuple[list, list, list | None]:
    """Both statements' span tokens and the edits between their words (``equal`` runs
    left out); no edits (``None``) when a side has no token."""
    toks_a, toks_b = _span_tokens(a), _span_tokens(b)
    wa, wb = [w for w, _i in toks_a], [w for w, _i in toks_b]
    if not wa or not wb:
        return toks_a, toks_b, None
    matcher = SequenceMatcher(None, wa, wb, autojunk=False)
    return toks_a, toks_b, [op for op in matcher.get_opcodes() if op[0] != "equal"]


def span_late(a: Reading, b: Reading, *, same_values: bool = False) -> float:
    """Where the statements' one difference sits, when they differ in one short span
    only (at most ``SPAN_TOKENS`` tokens a side put in place of the other's, every other
    token equal and in order): the mean relative position of the changed tokens, 0 at
    the first token and 1 at the last, both sides averaged; 0 for any other pair.

    Late, the span is what the shared words say of the shared subject ("X lives in A" /
    "X lives in B", "the pressure runs high" / "runs low"): a slot holding one value.
    Early, the span names another subject ("the Bari meeting" / "the Lecce meeting").
    Positions, not words: it holds for any language that puts the subject first.
    With ``same_values`` (each side's values found on the other) a span with a value on
    each side is the same value written another way ("30 m²" / "30 square metres"): 0."""
    toks_a, toks_b, ops = _span_ops(a, b)
    if ops is None:
        return 0.0
    if len(ops) != 1 or ops[0][0] != "replace":
        return 0.0
    _tag, i1, i2, j1, j2 = ops[0]
    if i2 - i1 > SPAN_TOKENS or j2 - j1 > SPAN_TOKENS:
        return 0.0
    if (
        same_values
        and any(i in a.used for _w, i in toks_a[i1:i2])
        and any(j in b.used for _w, j in toks_b[j1:j2])
    ):
        return 0.0

    def where(first: int, last: int, n: int) -> float:
        return (first + last - 1) / 2 / max(n - 1, 1)

    return (where(i1, i2, len(toks_a)) + where(j1, j2, len(toks_b))) / 2


def span_early(a: Reading, b: Reading) -> float:
    """How early the words one statement adds sit, when that is all that differs (at
    most ``SPAN_TOKENS`` + 1 tokens put in on one side, every other token equal and in
    order): 1 at the first token, falling to 0 at the last; 0 for any other pair. Early,
    the added words narrow the subject ("X is left-handed" / "X's brother is
    left-handed"): another subject, not a detail added to the same statement ("... with
    a dog" comes late). A span put in place of another is ``span_late``'s."""
    toks_a, toks_b, ops = _span_ops(a, b)
    if ops is None:
        return 0.0
    if len(ops) != 1 or ops[0][0] not in ("insert", "delete"):
        return 0.0
    _tag, i1, i2, j1, j2 = ops[0]
    if max(i2 - i1, j2 - j1) > SPAN_TOKENS + 1:
        return 0.0
    longer = max(len(toks_a), len(toks_b))
    return max(0.0, 1.0 - min(i1, j1) / max(longer - 1, 1))


def time_apart(a: Reading, b: Reading, new_flags: list, lost_flags: list) -> float:
    """1 when each statement is anchored at a time the other does not name (a date, a
    year written as a bare number, or a word of time deixis only that side uses: "now",
    "since", "until", "still", ``tables.TIME_DEIXIS``) and they differ otherwise too (a
    value on either side the other lacks, or a negation on one side only): two states at
    two times ("12 members in 2019" / "30 members since 2022", "lived in Oslo in
    2010" / "does not live in Oslo now"), a change over time rather than a conflict.
    0 otherwise, and 0 when the point in time is all that differs ("born in 1984" /
    "in 1986")."""

    def missing(flags: list) -> tuple[bool, bool]:
        lost = [v for v, ok in flags if not ok]
        return any(_time_point(v) for v in lost), any(not _time_point(v) for v in lost)

    (time_b, other_b), (time_a, other_a) = missing(new_flags), missing(lost_flags)
    wa, wb = _time_words(a), _time_words(b)
    time_a = time_a or bool((wa - wb) & tb.TIME_DEIXIS)
    time_b = time_b or bool((wb - wa) & tb.TIME_DEIXIS)
    negation = a.negations % 2 != b.negations % 2
    return float(time_a and time_b and (other_a or other_b or negation))


def _time_words(r: Reading) -> set[str]:
    """The statement's words, with a word of time deixis opening a sentence: capitalised
    there ("Today ...", "Oggi ...", "Hoje ..."), the reader takes it for a weak name and
    ``Reading.words`` leaves it out (round 17: ``time_apart`` never saw it)."""
    opening = {r.tokens[v.first].norm for v in r.values if v.kind == "name" and _time_word_name(v)}
    return set(r.words()[:MAX_WORDS]) | opening


def _time_word_name(v) -> bool:
    return v.kind == "name" and bool(v.key[1]) and v.key[0] in _PLAIN_TIME_DEIXIS


_PLAIN_TIME_DEIXIS = frozenset(plain(w) for w in tb.TIME_DEIXIS)


def _time_point(v) -> bool:
    if v.kind == "date" or _time_word_name(v):
        return True
    year = v.key[0] if v.kind == "number" and v.key else None
    return not v.dim and isinstance(year, float) and year.is_integer() and 1800 <= year <= 2100


def value_converted(a: Reading, b: Reading, new_flags: list, lost_flags: list) -> float:
    """1 when every value of each statement is found on the other and at least one
    amount, date or time is written another way ("1.5 km" / "1,500 metres", "18:30" /
    "6:30 pm", "eleven" / "11"): the reader had to convert it to see it is the same. A
    restatement, not a pair that merely shares its values as written. 0 otherwise."""
    if any(not ok for _v, ok in new_flags) or any(not ok for _v, ok in lost_flags):
        return 0.0
    written = {_written(a, v) for v in a.values}
    return float(any(_written(b, v) not in written for v in b.values if v.kind in _CONVERTED_KINDS))


_CONVERTED_KINDS = frozenset(("number", "time", "date"))


def _written(r: Reading, v) -> str:
    return plain(r.text[r.tokens[v.first].start : r.tokens[v.last].end])


def _span_tokens(r: Reading) -> list[tuple[str, int]]:
    """The statement's tokens with a letter or digit, without case or accents, with
    their index (up to ``MAX_WORDS`` * 2)."""
    return [
        (plain(t.text), i)
        for i, t in enumerate(r.tokens[: MAX_WORDS * 2])
        if any(c.isalnum() for c in t.text)
    ]
