"""Rewrite the ways a language spells a value into the one form the extractor reads.

Before a sentence is analysed, values written in words become digits and units:
"dois mil reais" -> "2000 reais", "2.5 million dollars" -> "2500000 dollars",
"an hour and a half" -> "90 minutes", "un'ora e dieci minuti" -> "70 minuti",
"sei e mezza di sera" -> "18:30", "sete da noite" -> "19:00", "half of the" -> "50% of
the", "metà prezzo" -> "50% di sconto", "three hundred pounds" (of a price) -> "300 GBP",
"35 € a month" -> "420 € a year". Only the patterns of each category are rewritten;
every other word stays as written, so subjects and attributes are read as before.

Measured before writing this (CONVENTIONS, "Libraries before hand-written code"), on
nine clock-time and date phrases and six amounts in the three languages (not from the
evaluation files; script and output in the issue-14 closing note):
``dateparser`` 1.5 ``search_dates`` read 2 of 9 right ("às 7h30", "alle 20:45"): it
missed "sete da noite", "nove meno un quarto di sera", "sei e mezza di sera", took
"às 19h" as the current time, "half past six in the evening" as 18:00 and "4/11" as
April in Italian and Portuguese; ~29 ms a call. ``quantulum3`` 0.10 read 0 of 6 right
(English-only: "23 libras" -> litre-year, "1,85 m" -> 85 m, "three hundred pounds" of a
price -> pound-mass). ``pint`` converts units correctly but knows no Italian or
Portuguese unit names ("chili", "centimetri": UndefinedUnitError); ``babel`` formats
numbers per locale but parses no words. So the extractor keeps its unit table (pint's
factors) and these rewrites.
"""

from __future__ import annotations

import re

from .numbers import _word_numbers, parse_number

# A number already in digits, or an article that means one ("an hour", "un'ora").
_NUM = r"(?P<{name}>\d+(?:[.,]\d+)?|an|a|one|un|una|uno|uma|um)"
_ONE = frozenset({"an", "a", "one", "un", "una", "uno", "uma", "um"})

_MULTIPLIERS = [
    (
        re.compile(
            r"\b(?P<n>\d+(?:[.,]\d+)?)\s*(?:billions?|miliard[io]|bilh(?:oes|ões|ão|ao))\b", re.I
        ),
        1e9,
    ),
    (
        re.compile(
            r"\b(?P<n>\d+(?:[.,]\d+)?)\s*(?:millions?|milion[ie]|milh(?:oes|ões|ão|ao)|mln)\b", re.I
        ),
        1e6,
    ),
    (re.compile(r"\b(?P<n>\d+(?:[.,]\d+)?)\s*(?:thousand|mila|mil)\b", re.I), 1e3),
    (re.compile(r"(?<![\w.,])(?P<n>\d+(?:[.,]\d+)?)\s*(?:k)\b", re.I), 1e3),
]


def _number(raw: str, lang: str) -> float | None:
    if raw.lower() in _ONE:
        return 1.0
    return parse_number(raw, lang)


def _digits(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}".rstrip("0")


def _numbers_to_digits(text: str, lang: str) -> str:
    """ "twenty-nine" -> "29", "dois" -> "2"; "one"/"a" stay (articles more often)."""
    out, last = [], 0
    for start, end, value in _word_numbers(text, lang):
        if value <= 1:
            continue
        out.append(text[last:start])
        out.append(str(value))
        last = end
        if text.startswith("'", end):  # "quarant'anni" -> "40 anni"
            out.append(" ")
            last = end + 1
    out.append(text[last:])
    return "".join(out)


# Hundreds written as words the table of number words lacks: "cento e vinte",
# "quinhentos", "duecento", "milleduecento" (Italian writes compounds as one word).
_PT_HUNDREDS = {
    "cem": 100,
    "cento": 100,
    "duzentos": 200,
    "duzentas": 200,
    "trezentos": 300,
    "trezentas": 300,
    "quatrocentos": 400,
    "quatrocentas": 400,
    "quinhentos": 500,
    "quinhentas": 500,
    "seiscentos": 600,
    "seiscentas": 600,
    "setecentos": 700,
    "setecentas": 700,
    "oitocentos": 800,
    "oitocentas": 800,
    "novecentos": 900,
    "novecentas": 900,
}
_PT_HUNDRED = re.compile(
    r"\b(?P<h>" + "|".join(_PT_HUNDREDS) + r")(?:\s+e\s+(?P<rest>\d{1,2}))?\b", re.I
)
_PT_HUNDRED_AND = re.compile(r"\b(?P<h>[1-9]00)\s+e\s+(?P<rest>\d{1,2})\b")
_PT_THOUSAND_AND = re.compile(r"\b(?P<t>\d+)\s+mil\s+e\s+(?P<rest>\d{1,3})\b", re.I)
_IT_UNITS = {
    "uno": 1,
    "un": 1,
    "due": 2,
    "tre": 3,
    "quattro": 4,
    "cinque": 5,
    "sei": 6,
    "sette": 7,
    "otto": 8,
    "nove": 9,
    "dieci": 10,
    "undici": 11,
    "dodici": 12,
    "tredici": 13,
    "quattordici": 14,
    "quindici": 15,
    "sedici": 16,
    "diciassette": 17,
    "diciotto": 18,
    "diciannove": 19,
    "venti": 20,
    "trenta": 30,
    "quaranta": 40,
    "cinquanta": 50,
    "sessanta": 60,
    "settanta": 70,
    "ottanta": 80,
    "novanta": 90,
}
_IT_SMALL = "|".join(sorted(_IT_UNITS, key=len, reverse=True))
_IT_COMPOUND = re.compile(
    rf"\b(?:(?P<th>{_IT_SMALL})?(?P<mila>mila|mille))?(?:(?P<hu>{_IT_SMALL})?(?P<cento>cento))?"
    rf"(?P<rest>(?:{_IT_SMALL})(?:{_IT_SMALL})?)?\b",
    re.I,
)


def _it_compound(m: re.Match[str]) -> str:
    if not (m.group("mila") or m.group("cento")):
        return m.group(0)
    total = 0
    if m.group("mila"):
        total += 1000 * (_IT_UNITS.get((m.group("th") or "uno").lower(), 1))
    if m.group("cento"):
        total += 100 * (_IT_UNITS.get((m.group("hu") or "uno").lower(), 1))
    rest = (m.group("rest") or "").lower()
    for tens in sorted(_IT_UNITS, key=len, reverse=True):
        if rest.startswith(tens):
            total += _IT_UNITS[tens]
            rest = rest[len(tens) :]
            break
    total += _IT_UNITS.get(rest, 0)
    return str(total)


def _hundreds(text: str, lang: str) -> str:
    if lang == "pt":
        text = _PT_HUNDRED.sub(
            lambda m: str(_PT_HUNDREDS[m.group("h").lower()] + int(m.group("rest") or 0)), text
        )
        text = _PT_HUNDRED_AND.sub(lambda m: str(int(m.group("h")) + int(m.group("rest"))), text)
        text = _PT_THOUSAND_AND.sub(
            lambda m: str(int(m.group("t")) * 1000 + int(m.group("rest"))), text
        )
    elif lang == "it":
        text = _IT_COMPOUND.sub(_it_compound, text)
    return text


# Ages: "turned 31", "ha compiuto 31 anni", "fez 31 anos", "age is 42", "is 29." all say
# "N years old", so they compare with each other and with "42 years old".
_AGE_REWRITES = {
    "en": [
        (r"\b(?:has turned|just turned|turned)\s+(?P<n>\d{1,3})\b", "is {n} years old"),
        (r"\b(?P<who>[A-Z]\w*)'s age is\s+(?P<n>\d{1,3})\b", "{who} is {n} years old"),
        (r"\b(?P<v>is|was)\s+(?P<n>\d{1,3})(?![\d.,]*\d)(?=\s*(?:[.,;!]|$))", "{v} {n} years old"),
        (r"\b(?P<n>\d{1,3})[- ]years?[- ]old\b", "{n} years old"),
    ],
    "it": [
        (r"\b(?:ha compiuto|ha appena compiuto)\s+(?P<n>\d{1,3})\s+anni\b", "ha {n} anni"),
        (r"\bl'eta di (?P<who>\w+) e\s+(?P<n>\d{1,3})\b", "{who} ha {n} anni"),
    ],
    "pt": [
        (r"\b(?:fez|completou|acabou de fazer)\s+(?P<n>\d{1,3})\s+anos\b", "tem {n} anos"),
    ],
}
_AGE = {lang: [(re.compile(p), r) for p, r in rows] for lang, rows in _AGE_REWRITES.items()}
# Multiple births: "twins" are two children, "trigêmeos" three.
_MULTIPLES = {
    "en": [
        (r"\bis (?:the )?(?:father|mother|parent) of\b", "has"),
        (r"\btwins\b", "2 children"),
        (r"\btriplets\b", "3 children"),
    ],
    "it": [
        (r"\bè (?:il |la )?(?:padre|madre|papà|mamma) di\b", "ha"),
        (r"\bgemelli\b", "2 figli"),
        (r"\b(?:tre gemelli|trigemini)\b", "3 figli"),
    ],
    "pt": [
        (r"\bé (?:o |a )?(?:pai|mãe) de\b", "tem"),
        (r"\btrig[eê]meos\b", "3 filhos"),
        (r"\bg[eê]meos\b", "2 filhos"),
    ],
}


def _ages(text: str, lang: str) -> str:
    for pattern, replacement in _AGE.get(lang, []):
        text = pattern.sub(lambda m, r=replacement: r.format(**m.groupdict()), text)
    for pattern, replacement in _MULTIPLES.get(lang, []):
        text = re.sub(pattern, replacement, text, flags=re.I)
    return text


def _multiply(text: str, lang: str) -> str:
    for pattern, factor in _MULTIPLIERS:

        def scaled(m: re.Match[str], factor: float = factor) -> str:
            number = _number(m.group("n"), lang)
            return m.group(0) if number is None else _digits(number * factor)

        text = pattern.sub(scaled, text)
    return text


# --- durations --------------------------------------------------------------------------

_HOUR = r"(?:hours?|or[ae]|horas?)"
_MINUTES = r"(?:minutes?|mins?|minuti|minuto|minutos)"
_HALF = r"(?:a half|half|mezz[ao]|meia)"
_QUARTER = r"(?:a quarter|quarter|un quarto|um quarto)"
_AND = r"(?:and|e)"
_DURATIONS = [
    # "an hour and a half", "un'ora e mezza", "uma hora e meia", "2 hours and 10 minutes"
    re.compile(
        rf"\b{_NUM.format(name='h')}\s*'?\s*{_HOUR}\s+{_AND}\s+(?:(?P<half>{_HALF})|(?P<quarter>{_QUARTER})|(?P<m>\d+)\s*{_MINUTES})\b",
        re.I,
    ),
    # "three quarters of an hour", "tre quarti d'ora", "três quartos de hora"
    re.compile(
        r"\b(?P<tq>(?:three|3)[- ]quarters of an|(?:tre|3) quarti d'|(?:tr[eê]s|3) quartos de)"
        rf"\s*{_HOUR}\b",
        re.I,
    ),
    # "half an hour", "mezz'ora", "meia hora", "a quarter of an hour", "un quarto d'ora"
    re.compile(rf"\b(?:(?P<half>half an|mezz'|mezza|meia)\s*{_HOUR})\b", re.I),
    re.compile(rf"\b(?:(?P<quarter>a quarter of an|un quarto d'|um quarto de)\s*{_HOUR})\b", re.I),
]


def _durations(text: str, lang: str) -> str:
    def minutes(m: re.Match[str]) -> str:
        groups = m.groupdict()
        hours = _number(groups["h"], lang) if groups.get("h") else 0.0
        if hours is None:
            return m.group(0)
        extra = 30 if groups.get("half") else 15 if groups.get("quarter") else 0
        extra = 45 if groups.get("tq") else extra
        if groups.get("m"):
            extra = int(groups["m"])
        word = {"it": "minuti", "pt": "minutos"}.get(lang, "minutes")
        return f"{_digits(hours * 60 + extra)} {word}"

    for pattern in _DURATIONS:
        text = pattern.sub(minutes, text)
    return text


# --- clock times in words -----------------------------------------------------------------

# Part of the day -> hours to add to a 12-hour clock reading (None: morning, as written).
_PERIODS = {
    "en": (
        r"in the morning|in the afternoon|in the evening|at night|tonight|p\.?m\.?|a\.?m\.?|"
        r"o'clock",
        {"afternoon": 12, "evening": 12, "night": 12, "tonight": 12, "p": 12},
    ),
    "it": (
        r"di sera|della sera|di pomeriggio|del pomeriggio|di notte|della notte|di mattina|"
        r"della mattina|del mattino|in punto",
        {"sera": 12, "pomeriggio": 12, "notte": 12},
    ),
    "pt": (
        r"da noite|de noite|à noite|a noite|da tarde|de tarde|à tarde|da manhã|da manha|"
        r"de manhã|da madrugada|em ponto",
        {"noite": 12, "tarde": 12},
    ),
}
_CLOCK = {
    lang: re.compile(
        r"\b(?P<h>1[0-2]|0?[1-9])(?:\s+(?:and|e)\s+(?:(?P<half>a half|half|mezz[ao]|meia)|"
        r"(?P<quarter>a quarter|quarter|un quarto|um quarto|quinze)|"
        r"(?P<tq>tre quarti|três quartos)|(?P<m>[0-5]?\d)))?(?:\s+(?:meno|menos|less)\s+"
        r"(?:(?P<lq>un quarto|um quarto|a quarter)|(?P<lm>[0-5]?\d)))?\s+"
        r"(?P<period>" + periods + r")(?![\w])",
        re.I,
    )
    for lang, (periods, _offsets) in _PERIODS.items()
}
_PAST_TO = re.compile(
    r"\b(?:(?P<half>half)|(?P<quarter>(?:a )?quarter)|(?P<m>[0-5]?\d)(?: minutes)?)\s+"
    r"(?P<dir>past|to)\s+(?P<h>1[0-2]|0?[1-9])\b(?:\s+(?P<period>in the morning|in the "
    r"afternoon|in the evening|at night|p\.?m\.?|a\.?m\.?))?",
    re.I,
)


def _clock_minutes(groups: dict[str, str | None]) -> int:
    if groups.get("half"):
        return 30
    if groups.get("quarter"):
        return 15
    if groups.get("tq"):
        return 45
    return int(groups.get("m") or 0)


def _period_offset(period: str, lang: str, hour: int) -> int:
    """Hours to add for "di sera", "da tarde", "pm"; midnight-ish nights stay early."""
    offsets = _PERIODS.get(lang, _PERIODS["en"])[1]
    word = period.lower().replace(".", "")
    for key, offset in offsets.items():
        if key in word.split() or (key == "p" and word.startswith("p")):
            if key in ("night", "notte", "noite") and hour <= 4:
                return 0
            return offset if hour < 12 else 0
    return 0


def _clock_times(text: str, lang: str) -> str:
    def clock(m: re.Match[str]) -> str:
        groups = m.groupdict()
        hour = int(groups["h"]) % 12
        minute = _clock_minutes(groups)
        if groups.get("lq") or groups.get("lm"):
            less = 15 if groups.get("lq") else int(groups["lm"] or 0)
            hour, minute = (hour - 1) % 12, 60 - less
        hour += _period_offset(groups["period"], lang, hour)
        return f"{hour:02d}:{minute:02d}"

    def past_to(m: re.Match[str]) -> str:
        groups = m.groupdict()
        hour = int(groups["h"]) % 12
        minute = _clock_minutes(groups)
        if groups["dir"].lower() == "to":
            hour, minute = (hour - 1) % 12, 60 - minute
        if groups.get("period"):
            hour += _period_offset(groups["period"], "en", hour)
        return f"{hour:02d}:{minute:02d}"

    if lang == "en":
        text = _PAST_TO.sub(past_to, text)
    return _CLOCK.get(lang, _CLOCK["en"]).sub(clock, text)


# --- fractions and percentages ------------------------------------------------------------

_FRACTIONS = [
    (
        r"half price|half-price|met[aà] prezzo|(?:a )?metade do pre[cç]o|pela metade do pre[cç]o",
        "50% off",
    ),
    (r"three quarters|three-quarters|tre quarti|tr[eê]s quartos", "75%"),
    (r"two thirds|two-thirds|due terzi|dois ter[cç]os", "66.7%"),
    (r"(?:one|a) third|un terzo|um ter[cç]o", "33.3%"),
    (r"(?:one|a) quarter|un quarto|um quarto", "25%"),
    (r"(?:one )?half|(?:la )?met[aà]|(?:a )?metade", "50%"),
]
# Only as a share of something: "half of the", "la metà dei", "metade dos".
_SHARE = r"(?=\s+(?:of|dei|degli|delle|del|della|dello|di|dos|das|do|da|de)\b)"
_FRACTION_PATTERNS = [
    (re.compile(rf"\b(?:{words}){_SHARE}", re.I), percent)
    for words, percent in _FRACTIONS
    if not percent.endswith("off")
] + [(re.compile(rf"\b(?:{w})\b", re.I), p) for w, p in _FRACTIONS if p.endswith("off")]
# "Only about half of ... is covered": a share with no "of" after the verb.
_HALF_ALONE = re.compile(
    r"\b(?:about|roughly|around|only|just|circa|quasi|cerca|quase)\s+(?:half|met[aà]|metade)\b",
    re.I,
)


def _fractions(text: str) -> str:
    for pattern, percent in _FRACTION_PATTERNS:
        text = pattern.sub(percent, text)
    return _HALF_ALONE.sub(lambda m: m.group(0).split()[0] + " 50%", text)


# --- money ----------------------------------------------------------------------------------

# Words that make "pounds" a price ("costs three hundred pounds"), not a weight.
_MONEY_CONTEXT = re.compile(
    r"\b(?:cost|costs|costed|price|priced|paid|pay|pays|spent|spend|spends|fee|fees|salary|"
    r"earns|earned|worth|budget|rent|raised|costa|costano|prezzo|pagato|paga|speso|spende|"
    r"stipendio|guadagna|affitto|custa|custou|pre[cç]o|pagou|paga|gastou|gasta|sal[aá]rio|"
    r"ganha|aluguel|renda)\b",
    re.I,
)
_POUNDS = re.compile(r"(?<=\d)(\s*)(?:pounds?|libras?|libbre)\b", re.I)
_PERIOD_FACTORS = {
    "day": 365,
    "giorno": 365,
    "dia": 365,
    "week": 52,
    "settimana": 52,
    "semana": 52,
    "month": 12,
    "mese": 12,
    "mês": 12,
    "mes": 12,
    "year": 1,
    "anno": 1,
    "ano": 1,
}
_YEAR_WORD = {"en": "a year", "it": "all'anno", "pt": "por ano"}
_MONEY_RATE = re.compile(
    r"(?P<amount>(?:[€$£]|r\$|us\$)\s?\d+(?:[.,]\d+)*|\d+(?:[.,]\d+)*\s?(?:€|\$|£|eur|euros?|"
    r"dollars?|reais|gbp|sterline|usd))\s+(?:a|an|per|each|every|al|alla|ogni|por|ao|à|a cada|"
    r"cada)\s+(?P<period>day|week|month|year|giorno|settimana|mese|anno|dia|semana|m[eê]s|ano)\b",
    re.I,
)
_AMOUNT = re.compile(r"\d+(?:[.,]\d+)*")


def _money(text: str, lang: str) -> str:
    if _MONEY_CONTEXT.search(text):
        text = _POUNDS.sub(r"\1GBP", text)

    def per_year(m: re.Match[str]) -> str:
        factor = _PERIOD_FACTORS.get(m.group("period").lower(), 1)
        amount_text = m.group("amount")
        number_match = _AMOUNT.search(amount_text)
        number = parse_number(number_match.group(0), lang) if number_match else None
        if number is None:
            return m.group(0)
        yearly = amount_text.replace(number_match.group(0), _digits(number * factor))
        return f"{yearly} {_YEAR_WORD.get(lang, 'a year')}"

    return _MONEY_RATE.sub(per_year, text)


# "Daily", "every day": a rate both statements of a pair usually share; dropped so
# "runs 10 km daily" and "a daily run of 10 miles" compare their distances.
_DAILY = re.compile(
    r"\b(?:every day|each day|per day|a day|daily|ogni giorno|al giorno|tutti i giorni|"
    r"quotidian[oa]|giornalier[oa]|todos os dias|por dia|di[aá]ri[oa]|diariamente)\b",
    re.I,
)


# Idioms that name a plain predicate: a state that has lasted until now ("has lived in
# Cork her whole life" lives there now), "saiu por" (cost), "se casa" (marries).
_IDIOMS = {
    "en": [
        (r"\b(?:always|usually) (?:asks for|orders|books|chooses|picks)\b", "prefers"),
        (r"\bworks with\b", "uses"),
        (r"\b(?:has|have) (?:always )?lived\b", "lives"),
        (r"\b(?:has|have) (?:always )?worked\b", "works"),
    ],
    "it": [
        (r"\b(?:chiede|ordina|prenota|sceglie) sempre\b", "preferisce"),
        (r"\blavora con\b", "usa"),
        (r"\bha sempre vissuto\b", "vive"),
        (r"\bha sempre lavorato\b", "lavora"),
        (r"\bsi sposa(no)?\b", "matrimonio"),
    ],
    "pt": [
        (r"\b(?:pede|escolhe|reserva) sempre\b", "prefere"),
        (r"\btrabalha com\b", "usa"),
        (r"\bsempre (morou|viveu)\b", "mora"),
        (r"\bsempre trabalhou\b", "trabalha"),
        (r"\bsaiu por\b", "custou"),
        (r"\bse casa(m|r|ram|rao|rão)?\b", "casamento"),
    ],
}


# Clefts put the value first: "NYC is where the user's brother lives", "JS is the
# language the frontend is written in", "BH é a cidade onde a Patrícia mora". Said in
# the plain order, the subject is where the other statement has it.
_TYPE_NOUN = (
    r"(?:an? |the |la |il |lo |l'|a |o |uma? )?(?:\w+ )?(?:language|city|town|place|tool|"
    r"database|framework|service|company|herb|one|linguaggio|lingua|città|posto|strumento|"
    r"azienda|servizio|linguagem|cidade|lugar|ferramenta|empresa|serviço)"
)
_CLEFTS = {
    "en": [
        (
            rf"^(?P<x>.+?) is (?:where|{_TYPE_NOUN} (?:where|that|which)?) ?(?P<rest>.+?) "
            r"(?P<prep>in|on|with|by|at|for)\s*[.!]?$",
            "{rest} {prep} {x}.",
        ),
        (r"^(?P<x>.+?) is where (?P<rest>.+?)\s*[.!]?$", "{rest} in {x}."),
        (
            rf"^(?P<x>.+?) is {_TYPE_NOUN} (?:that )?(?!who\b|which\b)(?P<rest>.+?)\s*[.!]?$",
            "{rest} {x}.",
        ),
    ],
    "it": [
        (rf"^(?P<x>.+?) è {_TYPE_NOUN} (?:dove|in cui|che) (?P<rest>.+?)\s*[.!]?$", "{rest} a {x}.")
    ],
    "pt": [
        (
            rf"^(?P<x>.+?) é {_TYPE_NOUN} (?:onde|em que|que) (?P<rest>.+?)\s*[.!]?$",
            "{rest} em {x}.",
        )
    ],
}


def _idioms(text: str, lang: str) -> str:
    for pattern, replacement in _IDIOMS.get(lang, []):
        text = re.sub(pattern, replacement, text, flags=re.I)
    for pattern, replacement in _CLEFTS.get(lang, []):
        m = re.match(pattern, text.strip())
        if m:
            return replacement.format(**m.groupdict())
    return text


# Temperatures: every scale and spelling becomes "N °C" ("392 °F" -> "200 °C").
_FAHRENHEIT = re.compile(
    r"(?P<n>-?\d+(?:[.,]\d+)?)\s*(?:°\s*F|ºF|degrees? Fahrenheit|gradi Fahrenheit|"
    r"graus Fahrenheit|Fahrenheit)\b",
    re.I,
)
_CELSIUS = re.compile(
    r"(?P<n>-?\d+(?:[.,]\d+)?)\s*(?:°\s*C|ºC|degrees? Celsius|degrees? centigrade|"
    r"gradi(?: Celsius| centigradi)?|graus(?: Celsius| centígrados)?|degrees|°|º)(?![\w])",
    re.I,
)


def _temperatures(text: str, lang: str) -> str:
    def fahrenheit(m: re.Match[str]) -> str:
        number = parse_number(m.group("n"), lang)
        if number is None:
            return m.group(0)
        return f"{_digits(round((number - 32) * 5 / 9, 1))} °C"

    def celsius(m: re.Match[str]) -> str:
        number = parse_number(m.group("n"), lang)
        return m.group(0) if number is None else f"{_digits(number)} °C"

    return _CELSIUS.sub(celsius, _FAHRENHEIT.sub(fahrenheit, text))


def canonical(text: str, lang: str) -> str:
    """The sentence with its values spelled as digits and units the extractor reads."""
    text = _idioms(text.replace("’", "'"), lang)
    text = _hundreds(text, lang)
    text = _numbers_to_digits(text, lang)
    text = _hundreds(text, lang)
    text = _multiply(text, lang)
    text = _durations(text, lang)
    text = _clock_times(text, lang)
    text = _fractions(text)
    text = _money(text, lang)
    text = _ages(text, lang)
    text = _temperatures(text, lang)
    text = _DAILY.sub(" ", text)
    return " ".join(text.split())
