"""Exclusive states and the acts that break them, per language.

A statement such as "X is an only child", "X is single", "X has no allergies", "X died",
"the shop closed for good", "X has never flown" or "X only speaks English" rules out a
whole family of other statements about the same subject: a brother, a husband, an
allergy to pollen, turning 90 next year, opening at 7 every day, a flight to Lisbon,
translating from German. Each category is a small lexicon per language (regular
expressions on case-folded, accent-free text), never a sentence of an evaluation file.

Pure Python: the classifier passes in the owner check (same subject or not), so this
module knows only words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .values import fold, strip_accents


def flat(text: str) -> str:
    """Case-folded text without accents, with single spaces: what the patterns see."""
    return " ".join(strip_accents(fold(text)).replace("'", " ").split())


@dataclass(frozen=True)
class ExclusiveState:
    """A state (``claims``) that no statement matching ``breaks`` can share a subject with.

    ``kind`` is the Contradiction kind a curator sees; ``label`` names the state in the
    explanation. ``unless`` lists what makes a breaking statement harmless (its own
    negation, "no brother", or a past act before a death).
    """

    label: str
    kind: str
    claims: re.Pattern[str]
    breaks: re.Pattern[str]
    unless: re.Pattern[str] | None = None


def _p(*alternatives: str) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{a})" for a in alternatives))


# Negations that keep an act from breaking a state ("has no brother", "non ha allergie").
# A bare "no" is also Portuguese "in the" ("no domingo"): only "has no", "with no".
_NEGATED_ACT = (
    r"\b(?:(?:has|have|had|with) no|not|never|without|non|nessun[oa]?|senza|mai|nao|nunca|sem|"
    r"nenhum[a]?)\b"
)

EXCLUSIVE_STATES: tuple[ExclusiveState, ...] = (
    ExclusiveState(
        "only child",
        "status",
        _p(r"\bonly child\b", r"\bfigli[oa] unic[oa]\b", r"\bfilh[oa] unic[oa]\b"),
        _p(
            r"\b(?:brothers?|sisters?|siblings?)\b",
            r"\b(?:fratell[oi]|sorell[ae])\b",
            r"\b(?:irmaos?|irmas?)\b",
        ),
        re.compile(_NEGATED_ACT),
    ),
    ExclusiveState(
        "single",
        "status",
        _p(
            r"\b(?:is|remains|still) (?:still )?(?:single|unmarried)\b",
            r"\b(?:e|resta|rimane) (?:ancora )?(?:single|celibe|nubile)\b",
            r"\bsolteir[oa]\b",
        ),
        _p(
            r"\b(?:husband|wife|spouse)\b",
            r"\b(?:marito|moglie|coniuge)\b",
            r"\b(?:marido|esposa|conjuge)\b",
        ),
        re.compile(_NEGATED_ACT + r"|\b(?:ex|former|late|defunt[oa]|falecid[oa])\b"),
    ),
    ExclusiveState(
        "never married",
        "status",
        _p(
            r"\bnever (?:been |got |gotten )?married\b",
            r"\bnon (?:si )?e mai (?:stat[oa] )?sposat[oa]\b",
            r"\bnunca (?:se )?casou\b",
            r"\bnunca foi casad[oa]\b",
        ),
        _p(
            r"\b(?:married|divorced|widowed|widow|widower|husband|wife|ex-wife|ex-husband)\b",
            r"\b(?:sposat[oaie]|divorziat[oaie]|vedov[oa]|marito|moglie)\b",
            r"\b(?:casad[oa]s?|divorciad[oa]s?|viuv[oa]|marido|esposa)\b",
        ),
        re.compile(_NEGATED_ACT),
    ),
    ExclusiveState(
        "no allergies",
        "negation",
        _p(
            r"\b(?:no|not any) (?:known )?(?:\w+ )?allerg",
            r"\bnot allergic\b",
            r"\bnessun[ao]? (?:tipo di )?allergi",
            r"\bnon (?:ha|soffre di) (?:alcuna |nessuna )?allergi",
            r"\bnon e allergic",
            r"\bnenhum(?:a|) (?:tipo de )?alergi",
            r"\bnao (?:tem|sofre de) (?:nenhuma )?alergi",
            r"\bnao e alergic",
            r"\bsem (?:nenhuma )?alergias?\b",
        ),
        _p(r"\ballerg", r"\balergi"),
        re.compile(_NEGATED_ACT),
    ),
    ExclusiveState(
        "dead",
        "status",
        _p(
            r"\b(?:died|passed away|is dead|was killed|is no longer alive)\b",
            r"\b(?:e|sono) (?:mort[oaie]|mancat[oaie]|decedut[oaie]|scompars[oaie])\b",
            r"\b(?:morto|morta|deceduto|deceduta)\b",
            r"\b(?:faleceu|morreu|faleceram|morreram)\b",
            r"\b(?:esta|e) (?:mort[oa]|falecid[oa])\b",
        ),
        _p(
            # Present or future acts only the living do.
            r"\b(?:is alive|still alive|lives|will turn|turns|is turning|goes|visits|plays)\b",
            r"\b(?:is celebrating|will celebrate|celebrates)\b",
            r"\b(?:e viv[oa]|ancora viv[oa]|vive|abita|compira|compie|va|gioca|visita)\b",
            r"\b(?:festeggia|festeggera)\b",
            r"\b(?:esta viv[oa]|ainda viv[oa]|mora|vive|vai|fara|faz anos|joga|visita)\b",
            r"\b(?:comemora|comemorara|celebra)\b",
        ),
        _p(r"\b(?:was|were|used to|had|before|until|era|fu|prima|foi|antes|ate|morava)\b"),
    ),
    ExclusiveState(
        "closed for good",
        "status",
        _p(
            r"\b(?:closed|shut) (?:down|for good|permanently)\b",
            r"\bpermanently closed\b",
            r"\bwent out of business\b",
            r"\b(?:ha )?chiuso (?:definitivamente|per sempre|i battenti)\b",
            r"\bchiuso definitivamente\b",
            r"\bfechou (?:definitivamente|de vez|as portas|para sempre)\b",
            r"\bencerrou (?:as )?(?:suas )?atividades\b",
        ),
        _p(
            r"\b(?:opens|is open|open (?:every|daily|from|until|on))\b",
            r"\b(?:apre|aperto|aperta) ",
            r"\b(?:abre|abrem|aberto|aberta) ",
        ),
        _p(r"\b(?:used to|was|were|until|era|fino|antes|era|abria|apriva|opened)\b"),
    ),
    ExclusiveState(
        "never flown",
        "negation",
        _p(
            r"\bnever (?:flown|flew|been on a plane|taken a (?:plane|flight)|boarded a plane)",
            r"\b(?:non|mai) .{0,12}\b(?:mai )?(?:preso un aereo|volato|salito su un aereo)",
            r"\bnunca (?:voou|andou de aviao|viajou de aviao|pegou (?:um )?aviao|entrou num aviao)",
        ),
        _p(
            r"\b(?:flew|flown|flight|plane|airport)\b",
            r"\b(?:volat[oa]|volo|aereo|aeroporto)\b",
            r"\b(?:voou|voo|aviao|aeroporto)\b",
        ),
        re.compile(_NEGATED_ACT),
    ),
)

# "Cannot swim" against having swum: an ability denied, then used.
_CANNOT = (
    r"\b(?:can ?not|can t|cant|unable to|doesn't know how to|does not know how to|never learned "
    r"to|non sa|non e capace di|non riesce a|nao sabe|nao consegue|nunca aprendeu a)\s+"
)
_ABILITIES = {
    "swim": (
        r"swim|nuotare|nadar",
        r"swam|swum|swimming|swims|nuotat[oa]|nuota|a nuoto|nadou|nada|a nado|nadando",
    ),
    "drive": (
        r"drive|guidare|dirigir",
        r"drove|driven|drives|driving|guidat[oa]|guida|dirigiu|dirige|dirigindo",
    ),
    "cook": (r"cook|cucinare|cozinhar", r"cooked|cooks|cucinat[oa]|cucina|cozinhou|cozinha"),
    "ski": (r"ski|sciare|esquiar", r"skied|skis|skiing|sciat[oa]|scia|esquiou|esquia"),
    "read": (r"read|leggere|ler", r"reads|reading|letto|legge|leu|le"),
}
EXCLUSIVE_STATES += tuple(
    ExclusiveState(
        f"cannot {name}",
        "negation",
        re.compile(_CANNOT + rf"(?:{base})\b"),
        re.compile(rf"\b(?:{acts})\b"),
        re.compile(_NEGATED_ACT),
    )
    for name, (base, acts) in _ABILITIES.items()
)

# Left an employer against working there now: both must name the same employer, which
# the classifier checks (``needs_object``).
LEFT_EMPLOYER = ExclusiveState(
    "left the employer",
    "status",
    _p(
        r"\b(?:left|quit|resigned from|was fired from|was laid off from)\b",
        r"\bstopped working (?:at|for)\b",
        r"\b(?:si e licenziat[oa]|ha lasciato|e stat[oa] licenziat[oa]|ha smesso di lavorare)\b",
        r"\b(?:pediu demissao|saiu d[oa]|deixou|foi demitid[oa]|parou de trabalhar)\b",
    ),
    _p(
        r"\b(?:works (?:at|for|in)|is working (?:at|for)|has worked (?:at|for)|still works)\b",
        r"\b(?:lavora (?:ancora )?(?:in|a|per|presso|da|alla|al))\b",
        r"\b(?:trabalha (?:ainda )?(?:no|na|em|para|ha))\b",
    ),
    _p(r"\b(?:used to|(?<!has )(?<!have )worked|lavorava|trabalhava|before|prima|antes|until)\b"),
)

# "Only speaks English" against speaking or translating another language.
LANGUAGE_NAMES: dict[str, str] = {}
for _canon, _row in (
    ("english", "english inglese ingles"),
    ("german", "german tedesco alemao"),
    ("french", "french francese frances"),
    ("spanish", "spanish spagnolo espanhol castelhano"),
    ("italian", "italian italiano"),
    ("portuguese", "portuguese portoghese portugues"),
    ("chinese", "chinese mandarin cinese mandarino chines mandarim"),
    ("japanese", "japanese giapponese japones"),
    ("russian", "russian russo"),
    ("arabic", "arabic arabo arabe"),
    ("dutch", "dutch olandese holandes"),
    ("danish", "danish danese dinamarques"),
    ("swedish", "swedish svedese sueco"),
    ("norwegian", "norwegian norvegese noruegues"),
    ("polish", "polish polacco polaco"),
    ("greek", "greek greco grego"),
    ("turkish", "turkish turco"),
    ("korean", "korean coreano"),
    ("hindi", "hindi"),
    ("catalan", "catalan catalano catalao"),
):
    for _w in _row.split():
        LANGUAGE_NAMES[_w] = _canon
_LANGUAGE_ALT = "|".join(sorted(LANGUAGE_NAMES, key=len, reverse=True))
_ONLY_SPEAKS = _p(
    rf"\bonly (?:speaks|knows|understands) (?P<l1>{_LANGUAGE_ALT})\b",
    rf"\bspeaks only (?P<l2>{_LANGUAGE_ALT})\b",
    rf"\b(?:parla|conosce|capisce) solo (?:l )?(?P<l3>{_LANGUAGE_ALT})\b",
    rf"\bsolo (?:l )?(?P<l4>{_LANGUAGE_ALT})\b",
    rf"\b(?:so|apenas) (?:fala|sabe|entende) (?:o )?(?P<l5>{_LANGUAGE_ALT})\b",
    rf"\bfala (?:so|apenas) (?:o )?(?P<l6>{_LANGUAGE_ALT})\b",
)
_LANGUAGE_ACT = re.compile(
    r"\b(?:speak|speaks|spoke|translat\w*|interpret\w*|fluent|reads|writes|teaches|"
    r"parla|traduc\w*|tradott\w*|tradu\w*|insegna|fala|falou|fluente|ensina|le|escreve)\b"
)
_LANGUAGE_WORD = re.compile(rf"\b(?P<lang>{_LANGUAGE_ALT})\b")


def exclusive_conflict(
    existing: str, new: str, *, same_object: bool = False
) -> tuple[str, str] | None:
    """(kind, explanation) when one statement claims a state the other breaks.

    ``same_object``: both statements also name the same second thing (an employer),
    which states about a relation to it need.
    """
    fa, fb = flat(existing), flat(new)
    states = EXCLUSIVE_STATES + ((LEFT_EMPLOYER,) if same_object else ())
    for claim, other in ((fa, fb), (fb, fa)):
        for state in states:
            found = _broken(state, claim, other)
            if found is not None:
                return state.kind, found
        language = _language_conflict(claim, other)
        if language is not None:
            return "negation", language
    return None


def _broken(state: ExclusiveState, claim: str, other: str) -> str | None:
    if not state.claims.search(claim) or state.claims.search(other):
        return None
    act = state.breaks.search(other)
    if act is None or (state.unless is not None and state.unless.search(other)):
        return None
    return f"{state.label}: {claim!r} vs {act.group(0).strip()!r}"


def _language_conflict(claim: str, other: str) -> str | None:
    m = _ONLY_SPEAKS.search(claim)
    if m is None or not _LANGUAGE_ACT.search(other) or re.search(_NEGATED_ACT, other):
        return None
    spoken = LANGUAGE_NAMES[next(g for g in m.groups() if g)]
    for found in _LANGUAGE_WORD.finditer(other):
        if LANGUAGE_NAMES[found.group("lang")] != spoken:
            return f"speaks only {spoken}: {claim!r} vs {found.group(0)!r}"
    return None
