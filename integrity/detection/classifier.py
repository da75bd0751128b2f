"""Classify a pair of facts as contradiction, duplicate or compatible, offline.

Level 1 compares typed values (dates, quantities in base units, names, statuses, ...)
of the same subject and attribute; level 2 falls back on lexical (or caller-supplied
embedding) similarity. Only when both leave doubt is the optional ``judge`` (an LLM)
asked. Nothing here resolves a conflict: it only describes it for a curator.

A duplicate needs the wording to agree, not only the embedding: "Bob bought a house in
Lyon" and "Bob sold a house in Lyon" embed almost alike, yet each has a word the other
lacks, so they are never called duplicates. :func:`obvious_duplicate` is the stricter
test ``fact_store`` uses before it confirms a fact instead of saving a new one.
"""

from __future__ import annotations

import logging
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from . import lexicon as lx
from .aliases import Mentions, align
from .categories import exclusive_conflict
from .guard import duplicate_blockers
from .values import (
    DateValue,
    Quantity,
    Statement,
    Subject,
    Value,
    analyze,
    fold,
    fuzzy_jaccard,
    names_match,
    stems_match,
    strip_accents,
)

CONTRADICTION = "contradiction"
DUPLICATE = "duplicate"
COMPATIBLE = "compatible"
# Likely the same subject and attribute, but no clear verdict: a curator is asked
# ("possibly conflicting, please check"). Never a label of an evaluation file.
UNCERTAIN = "uncertain"
LABELS = (CONTRADICTION, DUPLICATE, COMPATIBLE)
VERDICT_LABELS = (*LABELS, UNCERTAIN)
KINDS = ("date", "number", "name", "preference", "status", "negation", "llm")

logger = logging.getLogger(__name__)

# Two statements with no known attribute talk about the same thing above this overlap.
SKELETON_MATCH = 0.5
# Same names, same values and this much wording in common: the same fact reworded.
REWORDING_OVERLAP = 0.5
# Relative tolerance when comparing amounts converted to base units (rounding: 5'8" ~ 173cm).
QUANTITY_TOLERANCE = 0.01


@dataclass(frozen=True)
class Thresholds:
    """The cut-offs a deployment tunes. ``integrity.services`` fills them from the
    KGSITE_* settings; these defaults are the settings' own, so the classifier also runs
    without Django (tests, notebooks).

    ``judge_below``: the optional judge is asked below this confidence.
    ``duplicate_similarity``: embedding cosine at or above which a new fact whose
    wording says nothing the existing one lacks counts as a duplicate.
    ``unrelated_similarity``: cosine below which facts sharing no value are unrelated.
    ``frame_uncertain``: cosine of the value-masked frames ("the fest starts on [V]" /
    "the fest kicks off on [V]") from which two statements with the same values but
    other words are ``uncertain`` (a curator checks) rather than compatible.
    """

    judge_below: float = 0.6
    duplicate_similarity: float = 0.9
    unrelated_similarity: float = 0.3
    frame_uncertain: float = 0.9


DEFAULT_THRESHOLDS = Thresholds()


@dataclass(frozen=True)
class Verdict:
    """How a new fact relates to an existing one, with a curator-readable reason."""

    label: str
    kind: str | None
    confidence: float
    explanation: str


Judge = Callable[[str, str], "Verdict | None"]
# Embedding cosine of two value-masked frames, or None when no embedder is at hand.
FrameSimilarity = Callable[[str, str], "float | None"]


@dataclass
class _Comparison:
    """What comparing the values of two statements about the same thing found."""

    conflicts: list[tuple[str, float, str]]
    matches: list[str]
    doubts: list[str]
    exact: bool = True
    # One value may contain the other (a region and a city): new detail, no conflict.
    refinements: list[str] = field(default_factory=list)


def classify_pair(
    existing: str,
    new: str,
    *,
    lang: str | None = None,
    similarity: float | None = None,
    judge: Judge | None = None,
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
    mentions: Mentions | None = None,
    frames: FrameSimilarity | None = None,
) -> Verdict:
    """Classify ``new`` against ``existing``; ask ``judge`` only when the rules are unsure.

    ``frames`` embeds the two statements with their values masked; it decides only
    between same values in other words (a duplicate) and another fact.

    ``mentions`` finds the names of the entity table in a text (aliases included), so
    that "k8s" and "Kubernetes" are one subject once a curator said so.
    Never raises: any text answers a verdict. An analysis that fails is logged and
    answers ``uncertain``, so a curator looks at the pair instead of a check failing.
    """
    try:
        left, right = align(existing, new, mentions)
        verdict = _rule_verdict(
            left, right, lang=lang, similarity=similarity, t=thresholds, frames=frames
        )
    except Exception:  # noqa: BLE001 - one odd sentence must not stop a check
        logger.exception("pair analysis failed: %.80r / %.80r", existing, new)
        verdict = Verdict(UNCERTAIN, None, 0.0, ANALYSIS_FAILED)
    if judge is not None and _ask_judge(verdict, thresholds):
        judged = judge(existing, new)
        if judged is not None:
            if judged.label != COMPATIBLE and judged.kind is None:
                judged = replace(judged, kind="llm")
            verdict = judged
    return guarded(existing, new, verdict, mentions=mentions)


def guarded(
    existing: str, new: str, verdict: Verdict, *, mentions: Mentions | None = None
) -> Verdict:
    """The verdict, unless it is a duplicate the two statements' values forbid (the
    duplicate guard): then new information, for a curator to look at."""
    if verdict.label != DUPLICATE:
        return verdict
    blockers = duplicate_blockers(existing, new, mentions=mentions)
    if not blockers:
        return verdict
    return Verdict(
        UNCERTAIN,
        verdict.kind,
        verdict.confidence,
        "Worded alike, but the new statement says what the stored one does not ("
        + "; ".join(blockers[:5])
        + "); kept as a fact of its own. Possibly conflicting, please check.",
    )


ANALYSIS_FAILED = "The statements could not be analysed; possibly conflicting, please check."


def _ask_judge(verdict: Verdict, thresholds: Thresholds) -> bool:
    """The judge sees what the rules leave open: uncertain pairs, and contradictions
    below ``judge_below`` (the rules' weakest calls)."""
    if verdict.label == UNCERTAIN:
        return True
    return verdict.label == CONTRADICTION and verdict.confidence < thresholds.judge_below


def obvious_duplicate(
    existing: str,
    new: str,
    *,
    lang: str | None = None,
    similarity: float | None = None,
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
) -> Verdict | None:
    """A verdict when ``new`` is plainly ``existing`` again, so confirming it loses nothing.

    Stricter than :func:`classify_pair`: the same text, or a duplicate verdict whose
    wording agrees both ways (no word on either side the other lacks, beyond the words
    naming one same attribute) and whose values are the existing ones, no more precise.
    With a ``similarity`` it must also reach ``duplicate_similarity``. Anything doubtful
    returns None: the fact is stored and the background check may flag it for a curator.
    """
    if _plain(existing) == _plain(new):
        return Verdict(DUPLICATE, None, 0.99, "The two statements are identical.")
    if duplicate_blockers(existing, new):
        return None
    if similarity is not None and similarity < thresholds.duplicate_similarity:
        return None
    if duplicate_blockers(existing, new):
        return None
    try:
        return _confirmed_duplicate(existing, new, lang, similarity, thresholds)
    except Exception:  # noqa: BLE001 - doubt means "store it", never an error
        logger.exception("duplicate analysis failed: %.80r / %.80r", existing, new)
        return None


def _confirmed_duplicate(
    existing: str, new: str, lang: str | None, similarity: float | None, thresholds: Thresholds
) -> Verdict | None:
    verdict = _rule_verdict(existing, new, lang=lang, similarity=similarity, t=thresholds)
    if verdict.label != DUPLICATE:
        return None
    a, b = analyze(existing, lang), analyze(new, lang)
    only_a, only_b = _unshared_words(a, b)
    if only_a or only_b or a.negated != b.negated or b.additive:
        return None
    if not all(any(_name_within(x, y) for y in a.all_names) for x in b.all_names):
        return None
    if not all(any(_value_within(y, x) for x in a.values) for y in b.values if y.kind != "name"):
        return None
    return verdict


def _rule_verdict(
    existing: str,
    new: str,
    *,
    lang: str | None,
    similarity: float | None,
    t: Thresholds,
    frames: FrameSimilarity | None = None,
) -> Verdict:
    """Run the category steps in order; the first that decides gives the verdict."""
    if _plain(existing) == _plain(new):
        return Verdict(DUPLICATE, None, 0.99, "The two statements are identical.")
    a = analyze(existing, lang)
    b = analyze(new, lang)
    ctx = _Context(a, b, similarity, t, _same_subject(a.subject, b.subject), frames=frames)
    for step in _STEPS:
        verdict = step(ctx)
        if verdict is not None:
            return verdict
    return Verdict(COMPATIBLE, None, 0.55, f"No conflict found on {ctx.attribute}.")


@dataclass
class _Context:
    """What the steps of :func:`_rule_verdict` share about one pair."""

    a: Statement
    b: Statement
    similarity: float | None
    t: Thresholds
    same_subject: bool | None
    attribute: str = "the same subject"
    comparison: _Comparison | None = None
    frames: FrameSimilarity | None = None

    def frame_score(self) -> float | None:
        if self.frames is None:
            return None
        return self.frames(self.a.frame, self.b.frame)

    @property
    def penalty(self) -> float:
        return 1.0 if self.same_subject else 0.85

    def scaled(self, verdict: Verdict) -> Verdict:
        """A contradiction is less sure when the subjects only may be the same."""
        if verdict.label != CONTRADICTION:
            return verdict
        return replace(verdict, confidence=round(verdict.confidence * self.penalty, 2))


def _step_exclusive_acts(ctx: _Context) -> Verdict | None:
    """An exclusive state against an act that breaks it, of the same owner: "Sofia is an
    only child" / "Sofia's brother ...", before subjects are compared, since the act is
    often said of a relative ("Daniel's husband")."""
    shared = [n for n in ctx.a.all_names if any(names_match(n, m) for m in ctx.b.all_names)]
    found = exclusive_conflict(ctx.a.text, ctx.b.text, same_object=len(shared) >= 2)
    if found is None or not _same_owner(ctx.a, ctx.b):
        return None
    kind, explanation = found
    return Verdict(CONTRADICTION, kind, 0.8, explanation)


def _same_owner(a: Statement, b: Statement) -> bool:
    """The person or thing a statement is about also appears in the other one."""
    sa, sb = a.subject, b.subject
    if sa is not None and sb is not None and sa.named and sb.named:
        names_a, names_b = (sa.head, *a.all_names), (sb.head, *b.all_names)
        return names_match(sa.head, sb.head) or any(
            names_match(x, y) for x in names_a for y in names_b
        )
    if sa is None or sb is None:
        return True
    plain_a, plain_b = replace(sa, relations=frozenset()), replace(sb, relations=frozenset())
    return _same_subject(plain_a, plain_b) is not False


def _step_subjects(ctx: _Context) -> Verdict | None:
    a, b = ctx.a, ctx.b
    if ctx.same_subject is False:
        return Verdict(
            COMPATIBLE, None, 0.85, f"Different subjects: {_describe(a)} vs {_describe(b)}."
        )
    extra = _subject_modifiers(a, b)
    if extra:
        return Verdict(
            COMPATIBLE,
            None,
            0.7,
            f"Different things: the new statement is about the {' '.join(b.written(extra))} one.",
        )
    return None


def _subject_modifiers(a: Statement, b: Statement) -> set[str]:
    """Words that set the new subject apart from the existing one ("the return flight",
    "the younger daughter"); the existing one may say more ("the hiking trail")."""
    if not a.subject_words or not b.subject_words:
        return set()
    known = a.subject_words | a.content
    return {w for w in b.subject_words if not any(stems_match(w, z) for z in known)}


def _step_exclusive_states(ctx: _Context) -> Verdict | None:
    """Diets against food, opinions against opinions, open against closed."""
    a, b = ctx.a, ctx.b
    diet = _diet_conflict(a, b) or _diet_conflict(b, a)
    if diet is not None:
        return Verdict(CONTRADICTION, "negation", 0.8 if ctx.same_subject else 0.65, diet)
    opinion = _opinion_conflict(a, b)
    if opinion is not None:
        kind, confidence, explanation = opinion
        return ctx.scaled(Verdict(CONTRADICTION, kind, confidence, explanation))
    opening = _opening_verdict(a, b) or _opening_status(a, b) or _opening_status(b, a)
    if opening is not None:
        return ctx.scaled(opening)
    return None


# An open ticket is not yet done; a closed one is no longer in progress.
_OPENING_AS_STATUS = {"open": "in_progress", "closed": "done"}


def _opening_status(x: Statement, y: Statement) -> Verdict | None:
    """ "Is still open" against "has been resolved": open or closed against a status."""
    if y.of_kind("opening") or x.of_kind("weekday") or x.of_kind("time"):
        return None
    for opening in x.of_kind("opening"):
        state = _OPENING_AS_STATUS[str(opening.payload)]
        for status in y.of_kind("status"):
            if frozenset({state, status.payload}) in lx.STATUS_CONFLICTS:
                return Verdict(
                    CONTRADICTION, "status", 0.8, f"status: {opening.text!r} vs {status.text!r}"
                )
    return None


def _step_reworded(ctx: _Context) -> Verdict | None:
    if _same_information(ctx.a, ctx.b, ctx.similarity, ctx.t):
        names = ", ".join(ctx.b.written(ctx.b.all_names))
        return Verdict(DUPLICATE, None, 0.75, f"The same facts about {names} in other words.")
    return None


def _step_attribute(ctx: _Context) -> Verdict | None:
    a, b, t = ctx.a, ctx.b, ctx.t
    same_attribute, reason = _same_attribute(a, b)
    if not same_attribute:
        confidence = 0.8 if a.attribute and b.attribute else 0.7
        if ctx.similarity is not None and ctx.similarity < t.unrelated_similarity:
            confidence = 0.9
        return Verdict(COMPATIBLE, None, confidence, reason)
    ctx.attribute = _attribute_label(a, b)
    spec = a.spec or b.spec
    if spec is not None and not spec.timeless and a.past != b.past:
        return Verdict(
            COMPATIBLE,
            None,
            0.6,
            f"One statement about {ctx.attribute} is about the past, the other about the present.",
        )
    return None


def _step_values(ctx: _Context) -> Verdict | None:
    a, b = ctx.a, ctx.b
    comparison = ctx.comparison = _compare(a, b, ctx.attribute)
    if _different_events(a, b, comparison):
        return Verdict(
            COMPATIBLE,
            None,
            0.6,
            "Different events on different dates: " + comparison.conflicts[0][2],
        )
    if comparison.conflicts:
        kind, confidence, explanation = max(comparison.conflicts, key=lambda c: c[1])
        return ctx.scaled(Verdict(CONTRADICTION, kind, confidence, explanation))
    if a.negated != b.negated:
        positive, negative = (a, b) if b.negated else (b, a)
        if comparison.matches or not (a.values or b.values):
            return ctx.scaled(
                Verdict(
                    CONTRADICTION,
                    "negation",
                    0.8,
                    f"One statement denies the other: {negative.text!r} vs {positive.text!r}.",
                )
            )
        return Verdict(COMPATIBLE, None, 0.55, "One statement is negative but about other values.")
    if comparison.refinements:
        return Verdict(COMPATIBLE, None, 0.6, comparison.refinements[0] + ".")
    if comparison.doubts:
        # One price in two currencies: a curator (or the judge) must look, never merge it.
        return Verdict(UNCERTAIN, "number", 0.5, comparison.doubts[0])
    return None


def _different_events(a: Statement, b: Statement, comparison: _Comparison) -> bool:
    """Dates differ, but no attribute ties them and each statement tells of something
    the other does not ("graduated on 5 July" / "started the first job on 5 August")."""
    if a.spec or b.spec or not comparison.conflicts:
        return False
    if any(kind != "date" for kind, _c, _e in comparison.conflicts):
        return False
    if not (a.of_kind("date") and b.of_kind("date")):
        return False
    if {fold(w) for w in (a.text + " " + b.text).split()} & lx.RESCHEDULE_WORDS:
        return False  # "moved to 9 November": the same event, changed
    only_a, only_b = _unshared_words(a, b)
    return bool(only_a and only_b)


def _step_duplicate(ctx: _Context) -> Verdict | None:
    a, b, t, comparison = ctx.a, ctx.b, ctx.t, ctx.comparison
    assert comparison is not None
    new_info = _new_information(a, b)
    if comparison.matches and not new_info and not b.additive:
        confidence = 0.9 if comparison.exact else 0.8
        return Verdict(
            DUPLICATE,
            None,
            round(confidence * ctx.penalty, 2),
            f"Same {ctx.attribute}: " + "; ".join(comparison.matches) + ".",
        )
    plain = not comparison.matches and not (a.values or b.values)
    if plain and not new_info and not a.additive and not b.additive:
        overlap = fuzzy_jaccard(a.content, b.content)
        similar = ctx.similarity is not None and ctx.similarity >= t.duplicate_similarity
        if similar or overlap >= 0.8:
            return Verdict(DUPLICATE, None, 0.65, f"Same statement about {ctx.attribute}.")
    if new_info and _reworded_frame(a, b, comparison, new_info):
        return _frame_verdict(ctx, new_info)
    if new_info:
        return Verdict(
            COMPATIBLE, None, 0.7, f"The new statement adds {', '.join(b.written(new_info))}."
        )
    return None


def _reworded_frame(a: Statement, b: Statement, comparison: _Comparison, new: set[str]) -> bool:
    """Same values and names, one or two words swapped for others ("starts"/"kicks off",
    "bought"/"sold"): the same fact reworded, or another fact about the same values."""
    if not comparison.matches or a.negated != b.negated or b.additive:
        return False
    if any(v.text in new for v in b.values) or any(n in new for n in b.names):
        return False
    only_a, only_b = _unshared_words(a, b)
    return bool(only_a) and 0 < len(only_b) <= 2


def _frame_verdict(ctx: _Context, new_info: set[str]) -> Verdict:
    """Same values, other words: a curator is asked when the value-masked frames embed
    alike; otherwise (or with no embedding) the new statement is another fact.

    The frames never make a duplicate on their own. Measured with the bundled
    all-MiniLM-L6-v2: "DevFest starts on [V]" / "kicks off on [V]" 0.96, but "Kevin
    bought a motorbike [V]" / "sold a motorbike [V]" 0.97 and "Bob bought/sold a house
    in Lyon [V]" 0.97: the model does not tell a synonym from an opposite act.
    """
    words = ", ".join(ctx.b.written(new_info))
    score = ctx.frame_score()
    if score is not None and score >= ctx.t.frame_uncertain:
        return Verdict(
            UNCERTAIN,
            None,
            0.5,
            f"Same values about {ctx.attribute}, other words ({words}; the frames agree at "
            f"{score:.2f}): possibly the same fact or its opposite, please check.",
        )
    return Verdict(COMPATIBLE, None, 0.65, f"The new statement adds {words}.")


_STEPS: tuple[Callable[[_Context], Verdict | None], ...] = (
    _step_exclusive_acts,
    _step_subjects,
    _step_exclusive_states,
    _step_reworded,
    _step_attribute,
    _step_values,
    _step_duplicate,
)


# --- subjects and attributes ----------------------------------------------------------


def _plain(text: str) -> str:
    return " ".join(fold(unicodedata.normalize("NFC", text)).strip(" .!?").split())


def _describe(s: Statement) -> str:
    subject: Subject | None = s.subject
    if subject is None:
        return "unknown"
    words = [subject.head] if subject.named else subject.head.split()
    return repr(str(replace(subject, head=" ".join(s.written(words)))))


def _same_subject(a: Subject | None, b: Subject | None) -> bool | None:
    """True/False when both subjects are known and comparable; None when unsure."""
    if a is None or b is None:
        return None
    if a.relations != b.relations:
        return False
    if a.named and b.named:
        return names_match(a.head, b.head)
    if not a.named and not b.named:
        return fuzzy_jaccard(a.head.split(), b.head.split()) >= SKELETON_MATCH
    return None


def _same_attribute(a: Statement, b: Statement) -> tuple[bool, str]:
    if _denied_things(a, b) or _denied_things(b, a):
        return True, ""
    if a.attribute and b.attribute:
        if a.attribute == b.attribute:
            return True, ""
        return False, f"Different attributes: {_named(a)} vs {_named(b)}."
    if a.attribute or b.attribute:
        known = a if a.attribute else b
        if _shared_keys(a, b) and (known.attribute != "status" or _kinds(a) & _kinds(b)):
            return True, ""
        return (
            False,
            f"Different attributes: {_named(a)} vs {_named(b)}.",
        )
    overlap = fuzzy_jaccard(a.content, b.content)
    if overlap >= SKELETON_MATCH or _same_described_object(a, b):
        return True, ""
    if _shared_keys(a, b) and _same_frame_owner(a, b):
        return True, ""
    return False, "The statements are about different things."


def _same_frame_owner(a: Statement, b: Statement) -> bool:
    """The value-masked frames share their owner: the same named subject, or a name
    and a content word in common ("the Ortobio site converts 12%" / "the Ortobio
    site's conversion rate is 3%")."""
    sa, sb = a.subject, b.subject
    if sa is not None and sb is not None and sa.named and sb.named and sa == sb:
        return True
    shared_names = any(names_match(x, y) for x in a.all_names for y in b.all_names)
    shared_words = any(stems_match(x, y) for x in a.content for y in b.content)
    return shared_names and shared_words


def _same_described_object(a: Statement, b: Statement) -> bool:
    """Both describe the same named thing ("a green Bianchi" / "a yellow Bianchi")."""
    targets_a = {v.key for v in a.of_kind("colour") if v.key}
    targets_b = {v.key for v in b.of_kind("colour") if v.key}
    return any(names_match(x, y) for x in targets_a for y in targets_b)


def _kinds(s: Statement) -> set[str]:
    return {v.kind for v in s.values}


def _shared_keys(a: Statement, b: Statement) -> bool:
    """Both sentences carry a value of the same measurable sort (a length, a date...)."""

    def keys(s: Statement) -> set[str]:
        out = set()
        for v in s.values:
            if v.kind == "quantity" and v.key != "number":
                out.add(f"q:{v.key}")
            elif v.kind in ("date", "weekday", "time", "status"):
                out.add(v.kind)
        return out

    return bool(keys(a) & keys(b))


def _named(s: Statement) -> str:
    """The attribute as a curator reads it: "favourite colore", not "preference:color"."""
    if s.attribute is None:
        return "unstated"
    if s.attribute.startswith("preference:"):
        return f"favourite {' '.join(s.written([s.attribute.split(':', 1)[1]]))}"
    return s.attribute


def _attribute_label(a: Statement, b: Statement) -> str:
    if a.attribute or b.attribute:
        return _named(a if a.attribute else b)
    shared = [w for w in b.content if any(stems_match(w, z) for z in a.content)]
    return " ".join(b.written(sorted(shared))) if shared else "the same subject"


# --- comparing values -----------------------------------------------------------------


def _compare(a: Statement, b: Statement, attribute: str) -> _Comparison:
    result = _Comparison([], [], [])
    spec = a.spec or b.spec
    functional = spec.functional if spec is not None else True
    known_attribute = spec is not None or bool(a.attribute)

    _compare_dates(a, b, attribute, result)
    _compare_simple(a, b, "weekday", attribute, result, _weekday_text)
    _compare_simple(a, b, "time", attribute, result, _time_text)
    _compare_quantities(a, b, attribute, result)
    _compare_statuses(a, b, attribute, result)
    _compare_preferences(a, b, attribute, result)
    _compare_colours(a, b, attribute, result)
    _compare_diets(a, b, attribute, result)
    _compare_marital(a, b, result)
    for negative, positive in ((a, b), (b, a)):
        denied = _denied_things(negative, positive)
        if denied:
            result.conflicts.append(
                (
                    "negation",
                    0.8,
                    f"One statement denies the other: {negative.text!r} vs {positive.text!r}.",
                )
            )

    if a.names and b.names:
        if _name_subset(a.names, b.names) or _name_subset(b.names, a.names):
            result.matches.append(", ".join(b.names))
        elif _region_and_place(a.names, b.names):
            result.refinements.append(
                f"{attribute}: {', '.join(_texts(a, 'name'))} may contain or lie within "
                f"{', '.join(_texts(b, 'name'))}"
            )
        elif functional and not b.additive:
            confidence = 0.85 if known_attribute else 0.55
            result.conflicts.append(
                (
                    "name",
                    confidence,
                    f"{attribute}: {', '.join(_texts(a, 'name'))} vs "
                    f"{', '.join(_texts(b, 'name'))}",
                )
            )
    typed = {"date", "weekday", "time", "quantity", "name", "preference", "status", "colour"}
    if (
        spec is not None
        and spec.functional
        and not (_kinds(a) | _kinds(b)) & typed
        and a.object_words
        and b.object_words
        and not b.additive
    ):
        if fuzzy_jaccard(a.object_words, b.object_words) == 0:
            result.conflicts.append(
                (
                    "name",
                    0.6,
                    f"{attribute}: {' '.join(a.written(a.object_words))} vs "
                    f"{' '.join(b.written(b.object_words))}",
                )
            )
        elif fuzzy_jaccard(a.object_words, b.object_words) >= SKELETON_MATCH:
            result.matches.append(" ".join(b.written(b.object_words)))
    return result


def _texts(s: Statement, kind: str) -> list[str]:
    return [v.text for v in s.values if v.kind == kind]


def _name_subset(small: tuple[str, ...], big: tuple[str, ...]) -> bool:
    return all(any(names_match(x, y) for y in big) for x in small)


def _compare_dates(a: Statement, b: Statement, attribute: str, result: _Comparison) -> None:
    da, db = a.of_kind("date"), b.of_kind("date")
    if not (da and db):
        return
    pairs = [(x, y) for x in da for y in db]
    compatible = [(x, y) for x, y in pairs if _date(x).compatible(_date(y))]
    if compatible:
        x, y = compatible[0]
        if x.payload != y.payload:
            result.exact = False
        result.matches.append(f"{x.text} ~ {y.text}")
    else:
        result.conflicts.append(("date", 0.9, f"{attribute}: {da[0].text} vs {db[0].text}"))


def _is_region(name: str) -> bool:
    folded = fold(name)
    return folded in lx.REGIONS or strip_accents(folded) in _PLAIN_REGIONS


_PLAIN_REGIONS = frozenset(strip_accents(r) for r in lx.REGIONS)


def _region_and_place(xs: tuple[str, ...], ys: tuple[str, ...]) -> bool:
    """A country or region on one side and a place that is not one on the other: a
    refinement ("Spain" / "Seville"), never a conflict without a gazetteer to say so."""
    rx, ry = any(_is_region(x) for x in xs), any(_is_region(y) for y in ys)
    return rx != ry


def _date(v: Value) -> DateValue:
    assert isinstance(v.payload, DateValue)
    return v.payload


def _weekday_text(v: Value) -> str:
    return lx.WEEKDAY_NAMES[int(v.payload)]  # type: ignore[call-overload]


def _time_text(v: Value) -> str:
    minutes = int(v.payload)  # type: ignore[call-overload]
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _compare_simple(
    a: Statement,
    b: Statement,
    kind: str,
    attribute: str,
    result: _Comparison,
    show: Callable[[Value], str],
) -> None:
    va, vb = a.of_kind(kind), b.of_kind(kind)
    if not (va and vb):
        return
    pa, pb = {v.payload for v in va}, {v.payload for v in vb}
    if pa & pb:
        result.matches.append(", ".join(sorted({show(v) for v in vb})))
    else:
        result.conflicts.append(
            (
                "date",
                0.85,
                f"{attribute}: {', '.join(show(v) for v in va)} vs "
                f"{', '.join(show(v) for v in vb)}",
            )
        )


def _quantity(v: Value) -> Quantity:
    assert isinstance(v.payload, Quantity)
    return v.payload


def _compare_quantities(a: Statement, b: Statement, attribute: str, result: _Comparison) -> None:
    qa, qb = a.of_kind("quantity"), b.of_kind("quantity")
    if not (qa and qb):
        return
    keys_a = {v.key for v in qa}
    keys_b = {v.key for v in qb}
    shared = keys_a & keys_b
    for key in sorted(k for k in shared if k):
        xs = [v for v in qa if v.key == key]
        ys = [v for v in qb if v.key == key]
        if all(
            any(_quantity(y).same_amount(_quantity(x), QUANTITY_TOLERANCE) for x in xs) for y in ys
        ):
            if any(_quantity(x).raw != _quantity(y).raw for x in xs for y in ys):
                result.exact = False
            result.matches.append(f"{xs[0].text} = {ys[0].text}")
        else:
            confidence = 0.9 if not key.startswith("count") and key != "number" else 0.85
            result.conflicts.append(
                ("number", confidence, f"{attribute}: {xs[0].text} vs {ys[0].text}")
            )
    _compare_zero_counts(qa, qb, attribute, result)
    if shared:
        return
    currencies_a = {k for k in keys_a if k and k.startswith("currency:")}
    currencies_b = {k for k in keys_b if k and k.startswith("currency:")}
    if currencies_a and currencies_b:
        names = sorted(k.split(":")[1] for k in currencies_a | currencies_b)
        raw_a = {_quantity(v).raw for v in qa if (v.key or "").startswith("currency:")}
        raw_b = {_quantity(v).raw for v in qb if (v.key or "").startswith("currency:")}
        if raw_a & raw_b and len(raw_a | raw_b) == 1:
            # The same number in another currency: "10 EUR" / "10 USD" is no conversion.
            result.conflicts.append(
                ("number", 0.7, f"{attribute}: the same amount in {' vs '.join(names)}")
            )
            return
        result.doubts.append(
            f"Amounts in different currencies ({' vs '.join(names)}) cannot be compared offline."
        )
        return
    # A bare number against a single measured one ("height is 180" vs "180 cm"), only
    # when a known attribute says what is measured: "Ubuntu 22.04" is no node count.
    spec = a.spec or b.spec
    if spec is not None and len(qa) == 1 and len(qb) == 1 and "number" in keys_a | keys_b:
        x, y = _quantity(qa[0]), _quantity(qb[0])
        if x.raw == y.raw:
            result.matches.append(f"{qa[0].text} = {qb[0].text}")
        else:
            result.conflicts.append(("number", 0.7, f"{attribute}: {qa[0].text} vs {qb[0].text}"))


def _compare_zero_counts(
    qa: list[Value], qb: list[Value], attribute: str, result: _Comparison
) -> None:
    """ "No children" against "two daughters": none of a kind, yet some of a narrower one."""
    for x in qa:
        for y in qb:
            if x.key == y.key or not (x.key or "").startswith("count:"):
                continue
            if not (y.key or "").startswith("count:"):
                continue
            zero, some = (x, y) if _quantity(x).amount == 0 else (y, x)
            if _quantity(zero).amount != 0 or _quantity(some).amount == 0:
                continue
            broad, narrow = (zero.key or "")[6:], (some.key or "")[6:]
            if lx.COUNT_HYPERNYMS.get(narrow) == broad:
                result.conflicts.append(("number", 0.85, f"{attribute}: {x.text} vs {y.text}"))


def _denied_things(negative: Statement, positive: Statement) -> list[Value]:
    """ "Has no car" against a statement that mentions the car without counting it."""
    if positive.negated:
        return []
    counted = {v.key for v in positive.of_kind("quantity")}
    words = positive.content | positive.attribute_words
    denied = []
    for v in negative.of_kind("quantity"):
        if _quantity(v).amount != 0 or not (v.key or "").startswith("count:"):
            continue
        noun = (v.key or "")[6:]
        if v.key in counted:
            continue
        if any(stems_match(noun, w) or lx.COUNT_HYPERNYMS.get(w) == noun for w in words):
            denied.append(v)
    return denied


def _compare_marital(a: Statement, b: Statement, result: _Comparison) -> None:
    for x in a.of_kind("marital"):
        for y in b.of_kind("marital"):
            if x.payload == y.payload:
                result.matches.append(y.text)
            elif frozenset({x.payload, y.payload}) in lx.MARITAL_CONFLICTS:
                result.conflicts.append(("status", 0.85, f"marital status: {x.text} vs {y.text}"))


def _compare_statuses(a: Statement, b: Statement, attribute: str, result: _Comparison) -> None:
    sa, sb = a.of_kind("status"), b.of_kind("status")
    for x in sa:
        for y in sb:
            if x.payload == y.payload:
                result.matches.append(lx.STATUS_LABELS[str(y.payload)])
            elif frozenset({x.payload, y.payload}) in lx.STATUS_CONFLICTS:
                result.conflicts.append(
                    (
                        "status",
                        0.85,
                        f"status: {lx.STATUS_LABELS[str(x.payload)]} ({x.text!r}) vs "
                        f"{lx.STATUS_LABELS[str(y.payload)]} ({y.text!r})",
                    )
                )


def _compare_preferences(a: Statement, b: Statement, attribute: str, result: _Comparison) -> None:
    pa, pb = a.of_kind("preference"), b.of_kind("preference")
    if not (pa and pb):
        return
    x, y = pa[0], pb[0]
    xs, ys = x.payload, y.payload
    assert isinstance(xs, frozenset) and isinstance(ys, frozenset)
    # "red wine" refines "wine"; "window seats" and "aisle seats" are different things.
    if _stem_subset(xs, ys) or _stem_subset(ys, xs):
        result.matches.append(f"prefers {y.text}")
        return
    ca, cb = a.preference_context, b.preference_context
    if fuzzy_jaccard(ca, cb) >= SKELETON_MATCH and (ca or cb):
        confidence = 0.85
    elif not ca or not cb:
        confidence = 0.85 if not ca and not cb else 0.65
    else:
        return  # preferences in different circumstances ("in the morning" / "at night")
    result.conflicts.append(("preference", confidence, f"{attribute}: {x.text} vs {y.text}"))


def _stem_subset(small: frozenset[str], big: frozenset[str]) -> bool:
    return all(any(stems_match(x, y) for y in big) for x in small)


def _compare_colours(a: Statement, b: Statement, attribute: str, result: _Comparison) -> None:
    for y in b.of_kind("colour"):
        same_target = [x for x in a.of_kind("colour") if x.key == y.key or None in (x.key, y.key)]
        if not same_target:
            continue
        if any(x.payload == y.payload for x in same_target):
            result.matches.append(y.text)
        elif not b.additive:
            target = f" {y.key}" if y.key else ""
            result.conflicts.append(
                ("name", 0.8, f"{attribute}: {same_target[0].text}{target} vs {y.text}{target}")
            )


def _compare_diets(a: Statement, b: Statement, attribute: str, result: _Comparison) -> None:
    for x in a.of_kind("diet"):
        for y in b.of_kind("diet"):
            (dx, px), (dy, py) = x.payload, y.payload  # type: ignore[misc]
            if dx == dy and px != py:
                result.conflicts.append(
                    ("negation", 0.85, f"{attribute}: {dx} is both asserted and denied")
                )
            elif dx == dy:
                result.matches.append(str(dx))


def _diet_conflict(claim: Statement, other: Statement) -> str | None:
    """A diet claim ("is vegan") against food the same person ate ("had a steak")."""
    if claim.past:
        return None
    for d in claim.of_kind("diet"):
        diet, positive = d.payload  # type: ignore[misc]
        if not positive:
            continue
        excluded = "meat" if diet == "vegetarian" else None
        for food in other.of_kind("food"):
            if other.of_kind("diet"):
                continue
            if excluded is None or food.payload == excluded:
                return f"diet: {d.text} vs eating {food.text}"
    return None


def _new_information(a: Statement, b: Statement) -> set[str]:
    """What the new statement says that the existing one does not, added detail included.

    Deliberately one-way: a new fact already implied by a richer existing one adds
    nothing, so it is a duplicate; a new fact that adds a place or a count is not.
    """
    info: set[str] = {n for n in b.names if not any(names_match(n, m) for m in a.all_names)}
    kinds_a = _kinds(a)
    dates_a = [_date(x) for x in a.of_kind("date")]
    for v in b.of_kind("date"):
        # "in May" -> "on 12 May": a more precise date is detail the old fact lacks.
        if dates_a and not any(_date(v).within(x) for x in dates_a):
            info.add(v.text)
    for v in b.values:
        if v.kind not in kinds_a and v.kind != "name":
            info.add(v.text)
    said = a.content | a.attribute_words
    info.update(w for w in b.content if not any(stems_match(w, z) for z in said))
    return info


def _compared_words(a: Statement, b: Statement) -> tuple[frozenset[str], frozenset[str]]:
    """The words (stems) two statements are compared on, names and values aside.

    Words naming the attribute count only when the attributes differ: "born" and
    "birthday" both name the birth date, "loves" and "is afraid of" do not agree.
    """
    if a.attribute is not None and a.attribute == b.attribute:
        return a.content, b.content
    return a.content | a.attribute_words, b.content | b.attribute_words


def _unshared_words(a: Statement, b: Statement) -> tuple[set[str], set[str]]:
    """Words (stems) each statement has and the other lacks (see ``_compared_words``)."""
    wa, wb = _compared_words(a, b)
    only_a = {w for w in wa if not any(stems_match(w, z) for z in wb)}
    only_b = {w for w in wb if not any(stems_match(w, z) for z in wa)}
    return only_a, only_b


def _same_information(a: Statement, b: Statement, similarity: float | None, t: Thresholds) -> bool:
    """Same entities, same values, much the same wording: a reworded duplicate.

    A word swapped for another ("bought"/"sold", "dog"/"cat") is a different fact
    however close the embeddings, and a new statement with words of its own says more.
    Only when the existing statement merely has extra words may the embedding decide.
    """
    if not a.all_names or not b.all_names or a.negated != b.negated or b.additive:
        return False
    if not (_name_subset(a.all_names, b.all_names) and _name_subset(b.all_names, a.all_names)):
        return False
    for x, y in ((a, b), (b, a)):
        for v in x.values:
            if v.kind in ("name", "opinion"):
                continue
            if not any(_value_equal(v, w) for w in y.values):
                return False
    # "in May" -> "on 12 May": a more precise date is added detail, not a rewording.
    if any(not any(_value_within(v, w) for w in a.values) for v in b.of_kind("date")):
        return False
    only_a, only_b = _unshared_words(a, b)
    if only_b:
        return False
    if not only_a:
        return True
    if similarity is not None and similarity >= t.duplicate_similarity:
        return True
    return fuzzy_jaccard(*_compared_words(a, b)) >= REWORDING_OVERLAP


def _name_within(new: str, old: str) -> bool:
    """``new`` names what ``old`` names, adding no word ("Paris" in "Paris", not in
    "Paris, France"); spelling variants ("Postgres"/"PostgreSQL") count."""
    return all(any(stems_match(x, y) for y in old.split()) for x in new.split())


def _value_within(new: Value, old: Value) -> bool:
    """``new`` states ``old`` again, no more precisely (an ambiguous date only verbatim)."""
    if new.kind != old.kind:
        return False
    if new.kind == "date":
        x, y = _date(new), _date(old)
        if x.ambiguous or y.ambiguous:
            return x == y
        return x.compatible(y, both_readings=False) and x.within(y)
    return _value_equal(new, old)


def _opinion_conflict(a: Statement, b: Statement) -> tuple[str, float, str] | None:
    """Fondness against aversion or fear of the same thing ("loves sushi"/"hates sushi")."""
    for x in a.of_kind("opinion"):
        for y in b.of_kind("opinion"):
            (px, ox), (py, oy) = x.payload, y.payload  # type: ignore[misc]
            polarities = {px, py}
            if len(polarities) == 1 or polarities == {"dislike", "fear"}:
                continue
            if not (_stem_subset(ox, oy) or _stem_subset(oy, ox)):
                continue
            confidence = 0.85 if polarities == {"like", "dislike"} else 0.65
            return (
                "preference",
                confidence,
                f"opinion: {a.attribute_text} {x.text} vs {b.attribute_text} {y.text}",
            )
    return None


def _opening_verdict(a: Statement, b: Statement) -> Verdict | None:
    """Open against closed: a contradiction on the same days ("opens on Mondays" / "is
    closed on Mondays") or with no day or hour on either side ("the issue is open" /
    "is closed"); a timetable on different days ("closed on Sundays")."""
    xa, xb = a.of_kind("opening"), b.of_kind("opening")
    states_a, states_b = {v.payload for v in xa}, {v.payload for v in xb}
    if len(states_a) != 1 or len(states_b) != 1 or states_a == states_b:
        return None
    days_a = {int(v.payload) for v in a.of_kind("weekday")}  # type: ignore[call-overload]
    days_b = {int(v.payload) for v in b.of_kind("weekday")}  # type: ignore[call-overload]
    seen = f"{xa[0].text} vs {xb[0].text}"
    if days_a and days_b:
        days = days_a & days_b
        if not days:
            return Verdict(COMPATIBLE, None, 0.7, f"Open and closed on different days: {seen}.")
        when = ", ".join(lx.WEEKDAY_NAMES[d] for d in sorted(days))
        return Verdict(CONTRADICTION, "status", 0.8, f"open or closed on {when}: {seen}")
    if days_a or days_b or any(s.of_kind(k) for s in (a, b) for k in ("time", "date")):
        return None
    return Verdict(CONTRADICTION, "status", 0.6, f"open or closed: {seen}")


def _value_equal(x: Value, y: Value) -> bool:
    if x.kind != y.kind:
        return False
    if x.kind == "quantity":
        return x.key == y.key and _quantity(x).same_amount(_quantity(y), QUANTITY_TOLERANCE)
    if x.kind == "date":
        return _date(x).compatible(_date(y))
    return x.payload == y.payload
