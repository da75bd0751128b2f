"""Keyword tables (English, Italian, Portuguese) that drive value extraction.

Everything language-specific lives here as data, so supporting a new attribute or a new
language means adding rows, not rules. Token patterns are regular expressions matched
against whole case-folded tokens; multi-token phrases are space-separated patterns.
"""

from __future__ import annotations

from dataclasses import dataclass


def words(text: str) -> list[str]:
    """Whitespace-separated words: keeps long vocabulary tables readable."""
    return text.split()


LANGS = ("en", "it", "pt")

# --- function words -------------------------------------------------------------------

STOPWORDS: dict[str, frozenset[str]] = {
    "en": frozenset(
        words("""the a an of to in on at for with by from and or but is are was were be been being
        has have had do does did will would can could should this that these those it its
        his her their our your my me i he she they we you as about into onto than then so
        very also too just there here which who whom whose what when where how yesterday
        today tomorrow now still yet already some any all every each top only same s
        after before during without against under over through via like per near
        doesn isn don didn wasn hasn haven aren weren won couldn shouldn wouldn most""")
    ),
    "it": frozenset(
        words("""il lo la l i gli le un uno una di del dello della dei degli delle dell a al allo
        alla ai agli alle all da dal dallo dalla dai dagli dalle dall in nel nello nella nei
        negli nelle nell su sul sullo sulla sui sugli sulle con per tra fra e ed o ma è e'
        sono era erano stato stata stati state ha hanno aveva che chi cui questo questa
        quello quella suo sua suoi sue loro si ci ne non anche ancora già ieri oggi domani
        molto più mio mia miei mie lui lei presso verso dopo durante senza contro sopra
        sotto come tramite circa""")
    ),
    "pt": frozenset(
        words("""o os a as um uma uns umas de do da dos das em no na nos nas num numa ao aos à às
        por pelo pela pelos pelas para com sem e ou mas é são era foi está estão estava tem
        têm tinha seu sua seus suas dele dela deles delas que quem este esta esse essa isso
        isto ele ela eles elas se não também ainda já ontem hoje amanhã muito mais meu
        minha até após depois durante sobre sob contra entre como junto perto""")
    ),
}
ALL_STOPWORDS: frozenset[str] = frozenset().union(*STOPWORDS.values())

# Verbs that only carry "takes place" / "is": they say nothing about the attribute.
LIGHT_VERBS: frozenset[str] = frozenset(
    words("""happens happen occurs occur takes take place held avviene avvengono svolge svolgono
    tiene tengono acontece acontecem ocorre ocorrem realiza realizam""")
)

# Words that end the subject noun phrase: copulas, auxiliaries, common verbs, negations.
PREDICATE_MARKERS: dict[str, frozenset[str]] = {
    "en": frozenset(
        words("""is are was were be been has have had does do did will would can could should must
        not never doesn isn don didn wasn hasn haven aren weren won works worked lives lived
        prefers preferred likes liked loves enjoys drives drove speaks spoke stores uses used
        runs owns knows wants needs plays eats ate drinks drank costs weighs measures happens
        takes starts started ends ended moved got keeps hosts holds contains belongs earns
        built depends supports reads writes teaches studies studied visits visited goes went
        follows attends meets leads manages resides hates dislikes detests fears opens closes lasts
        lasted""")
    ),
    "it": frozenset(
        words("""è e' sono era erano fu sarà ha hanno aveva avevano sta stanno non mai lavora
        lavorava abita abitava vive viveva preferisce preferiva ama piace parla usa guida
        mangia beve costa pesa misura trova risiede inizia finisce scade segue studia insegna
        legge scrive gioca possiede conosce vuole nacque adora avviene dirige gestisce odia
        detesta teme apre chiude dura durano durava""")
    ),
    "pt": frozenset(
        words("""é são era eram foi foram será está estão estava tem têm tinha fica ficam não nunca
        fala trabalha trabalhava trabalhou mora morava morou vive vivia viveu prefere
        preferia gosta ama usa dirige come comeu bebe custa pesa mede acontece nasceu começa
        termina vence segue estuda ensina lê escreve joga possui conhece quer adora curte
        gerencia odeia detesta teme abre fecha dura duram durava""")
    ),
}

NEGATIONS: dict[str, frozenset[str]] = {
    "en": frozenset({"not", "never", "no", "nobody", "nothing", "'t"}),
    "it": frozenset({"non", "mai", "nessuno", "niente"}),
    "pt": frozenset({"não", "nao", "nunca", "jamais", "nenhum", "nada"}),
}

ADDITIVES: dict[str, frozenset[str]] = {
    "en": frozenset({"also", "too", "additionally", "besides"}),
    "it": frozenset({"anche", "pure", "inoltre"}),
    "pt": frozenset({"também", "tambem", "além"}),
}

# Markers that move a statement into the past, so it no longer competes with the present.
PAST_MARKERS: dict[str, frozenset[str]] = {
    "en": frozenset(words("""used formerly previously lived worked drove preferred liked owned""")),
    "it": frozenset(
        words("""prima passato tempo abitava viveva lavorava guidava preferiva possedeva
        precedentemente""")
    ),
    "pt": frozenset(
        words("""antes antigamente costumava morava vivia trabalhava dirigia preferia morou viveu
        trabalhou anteriormente""")
    ),
}

# The person the memory belongs to, however a sentence names them.
USER_WORDS: dict[str, frozenset[str]] = {
    "en": frozenset({"user", "i", "me", "my", "mine", "myself"}),
    "it": frozenset({"utente", "io", "mio", "mia", "miei", "mie"}),
    "pt": frozenset(
        {
            "usuário",
            "usuária",
            "usuario",
            "usuaria",
            "utilizador",
            "utilizadora",
            "eu",
            "meu",
            "minha",
        }
    ),
}
USER_NOUNS: frozenset[str] = frozenset(
    {"user", "utente", "usuário", "usuária", "usuario", "usuaria", "utilizador", "utilizadora"}
)

# Relations that turn "Bob" into a different subject ("Bob's sister").
KINSHIP: dict[str, str] = {
    **{
        w: w
        for w in words("""sister brother mother father mom dad wife husband son daughter friend
        colleague boss manager partner cousin uncle aunt grandmother grandfather grandson
        granddaughter niece nephew girlfriend boyfriend fiancé fiancée neighbour neighbor
        children child kids parents""")
    },
    "sorella": "sister",
    "fratello": "brother",
    "madre": "mother",
    "mamma": "mother",
    "padre": "father",
    "papà": "father",
    "moglie": "wife",
    "marito": "husband",
    "figlio": "son",
    "figlia": "daughter",
    "figli": "children",
    "amico": "friend",
    "amica": "friend",
    "collega": "colleague",
    "capo": "boss",
    "cugino": "cousin",
    "cugina": "cousin",
    "zio": "uncle",
    "zia": "aunt",
    "nonno": "grandfather",
    "nonna": "grandmother",
    "fidanzato": "boyfriend",
    "fidanzata": "girlfriend",
    "vicino": "neighbour",
    "irmã": "sister",
    "irmão": "brother",
    "mãe": "mother",
    "pai": "father",
    "esposa": "wife",
    "marido": "husband",
    "filho": "son",
    "filha": "daughter",
    "filhos": "children",
    "amigo": "friend",
    "amiga": "friend",
    "colega": "colleague",
    "chefe": "boss",
    "primo": "cousin",
    "prima": "cousin",
    "tio": "uncle",
    "tia": "aunt",
    "avô": "grandfather",
    "avó": "grandmother",
    "namorado": "boyfriend",
    "namorada": "girlfriend",
    "vizinho": "neighbour",
}

TITLES: frozenset[str] = frozenset(
    {
        "dr",
        "mr",
        "mrs",
        "ms",
        "prof",
        "dott",
        "dottor",
        "dottssa",
        "sig",
        "sr",
        "sra",
        "srta",
        "ing",
    }
)
NAME_CONNECTORS: frozenset[str] = frozenset(
    {"de", "da", "do", "dos", "das", "di", "del", "della", "van", "von", "der", "le", "la"}
)

# --- attributes -----------------------------------------------------------------------


@dataclass(frozen=True)
class AttributeSpec:
    """One attribute a fact can state, and how values of it behave.

    ``functional``: one value at a time (one birthday, one home city), so two different
    values contradict. ``timeless``: past tense does not make it a different fact.
    """

    name: str
    functional: bool
    timeless: bool
    phrases: dict[str, tuple[str, ...]]


ATTRIBUTES: tuple[AttributeSpec, ...] = (
    AttributeSpec(
        "birth",
        True,
        True,
        {
            "en": ("born", "birthday", "birth date", "date of birth", "birthdate", "dob"),
            "it": ("nat[oaie]", "nacque", "compleanno", "nascita", "data di nascita"),
            "pt": ("nasceu", "nascid[oa]s?", "nascimento", "aniversário", "aniversario"),
        },
    ),
    AttributeSpec(
        "anniversary",
        True,
        True,
        {
            "en": ("wedding anniversary", "anniversary", "got married", "married on"),
            "it": ("anniversario", "anniversario di matrimonio", "sposat[oaie] il"),
            "pt": (
                "aniversário de casamento",
                "aniversario de casamento",
                "bodas",
                "casou-se",
                "casaram-se",
            ),
        },
    ),
    AttributeSpec(
        "death",
        True,
        True,
        {
            "en": ("died", "death", "passed away"),
            "it": ("mort[oaie]", "morte", "deceduto", "deceduta"),
            "pt": ("morreu", "morte", "faleceu", "falecimento"),
        },
    ),
    AttributeSpec(
        "height",
        True,
        False,
        {
            "en": ("tall", "height", "stands"),
            "it": ("alt[oaie]", "altezza", "statura"),
            "pt": ("altura", "alt[oa]s?", "estatura", "mede"),
        },
    ),
    AttributeSpec(
        "weight",
        True,
        False,
        {
            "en": ("weighs", "weight", "weighed"),
            "it": ("pesa", "peso", "pesava"),
            "pt": ("pesa", "peso", "pesava"),
        },
    ),
    AttributeSpec(
        "age",
        True,
        False,
        {
            "en": ("years old", "year old", "age", "aged"),
            "it": ("anni", "età"),
            "pt": ("anos", "idade"),
        },
    ),
    AttributeSpec(
        "residence",
        True,
        False,
        {
            "en": ("lives?", "living", "lived", "resides", "reside", "home", "moved to"),
            "it": ("abit[aoi]", "abitava", "viv[eo]", "viveva", "risiede", "residente"),
            "pt": (
                "mor[ao]",
                "moram",
                "morava",
                "morou",
                "viv[eo]",
                "vivia",
                "reside",
                "residente",
            ),
        },
    ),
    AttributeSpec(
        "work",
        True,
        False,
        {
            "en": ("works?", "worked", "working", "employed", "employer", "job"),
            "it": ("lavor[ao]", "lavorava", "impiegat[oa]", "dipendente", "datore di lavoro"),
            "pt": ("trabalh[ao]", "trabalhava", "trabalhou", "empregad[oa]", "emprego"),
        },
    ),
    AttributeSpec(
        "office",
        True,
        False,
        {
            "en": ("office", "workplace"),
            "it": ("ufficio", "sede"),
            "pt": ("escritório", "escritorio", "sede"),
        },
    ),
    AttributeSpec(
        "location",
        True,
        False,
        {
            "en": ("located", "based", "hosted", "headquartered", "situated"),
            "it": ("si trova", "trova", "situat[oa]", "sediat[oa]", "ospitat[oa]"),
            "pt": ("fica", "ficam", "localizad[oa]", "situad[oa]", "sediad[oa]", "hospedad[oa]"),
        },
    ),
    AttributeSpec(
        "deadline",
        True,
        False,
        {
            "en": ("deadline", "due", "due date"),
            "it": ("scadenza", "scade", "consegna"),
            "pt": ("prazo", "vence", "entrega"),
        },
    ),
    AttributeSpec(
        "preference",
        True,
        False,
        {
            "en": ("prefers?", "preferred"),
            "it": ("preferisc[eo]", "preferiscono", "preferiva"),
            "pt": ("prefere", "preferem", "preferia", "prefiro"),
        },
    ),
    AttributeSpec(
        "likes",
        False,
        False,
        {
            "en": ("likes?", "liked", "loves?", "enjoys?", "is into"),
            "it": ("piac[ei]", "piacciono", "ama", "adora"),
            "pt": ("gosta", "ama", "adora", "curte"),
        },
    ),
    AttributeSpec(
        "dislikes",
        False,
        False,
        {
            "en": (
                "hates?",
                "hated",
                "dislikes?",
                "disliked",
                "detests?",
                "loathes?",
                "despises?",
                "afraid of",
                "scared of",
                "terrified of",
                "fears?",
            ),
            "it": ("odia", "odiano", "detesta", "detestano", "paura", "teme", "temono"),
            "pt": ("odeia", "odeiam", "detesta", "detestam", "medo", "teme", "temem"),
        },
    ),
    AttributeSpec(
        "marital",
        True,
        False,
        {},  # set from the marital words below, only after a copula
    ),
    AttributeSpec(
        "languages",
        False,
        False,
        {
            "en": ("speaks?", "spoke"),
            "it": ("parla", "parlano"),
            "pt": ("fala", "falam"),
        },
    ),
    AttributeSpec(
        "diet",
        True,
        False,
        {
            "en": ("vegetarian", "vegan", "diet"),
            "it": ("vegetarian[oaie]", "vegan[oaie]", "dieta"),
            "pt": ("vegetarian[oa]s?", "vegan[oa]s?", "dieta"),
        },
    ),
    AttributeSpec(
        "car",
        True,
        False,
        {
            "en": ("car", "drives?", "drove"),
            "it": ("auto", "macchina", "automobile", "guida"),
            "pt": ("carro", "dirige", "automóvel"),
        },
    ),
    AttributeSpec(
        "price",
        True,
        False,
        {
            "en": ("costs?", "price", "priced", "fees?", "fare", "charges?"),
            "it": ("costa", "prezzo", "costano", "tariffa", "quota"),
            "pt": ("custa", "preço", "preco", "custam", "taxa", "tarifa", "mensalidade"),
        },
    ),
    AttributeSpec(
        "salary",
        True,
        False,
        {
            "en": ("salary", "earns"),
            "it": ("stipendio", "guadagna"),
            "pt": ("salário", "salario", "ganha"),
        },
    ),
)
ATTRIBUTE_BY_NAME: dict[str, AttributeSpec] = {a.name: a for a in ATTRIBUTES}

# "favourite colour is ...": an adjective that turns the noun next to it into a preference.
FAVOURITE_ADJECTIVES: dict[str, str] = {
    "en": r"favou?rite|preferred",
    "it": r"preferit[oaie]|favorit[oaie]",
    "pt": r"preferid[oa]s?|favorit[oa]s?",
}

# --- dates and times ------------------------------------------------------------------

MONTHS: dict[str, int] = {}
for _names in (
    "january february march april may june july august september october november december",
    "gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre novembre dicembre",
    "janeiro fevereiro março abril maio junho julho agosto setembro outubro novembro dezembro",
):
    for _i, _m in enumerate(_names.split(), start=1):
        MONTHS[_m] = _i
# Abbreviations only count next to a number ("Jan 5"): alone they are often names.
MONTH_ABBREVIATIONS: dict[str, int] = {
    "jan": 1,
    "feb": 2,
    "apr": 4,
    "jun": 6,
    "jul": 7,
    "aug": 8,
    "sep": 9,
    "sept": 9,
    "oct": 10,
    "nov": 11,
    "dec": 12,
    "fev": 2,
    "abr": 4,
    "ago": 8,
    "set": 9,
    "out": 10,
    "dez": 12,
    "gen": 1,
    "giu": 6,
    "lug": 7,
    "ott": 10,
    "dic": 12,
}
# English month names that are also ordinary words need a capital or a number nearby.
AMBIGUOUS_MONTHS: frozenset[str] = frozenset({"may", "march", "august"})

WEEKDAYS: dict[str, int] = {}
for _names in (
    "monday tuesday wednesday thursday friday saturday sunday",
    "lunedì martedì mercoledì giovedì venerdì sabato domenica",
    "lunedi martedi mercoledi giovedi venerdi sabato domenica",
):
    for _i, _d in enumerate(_names.split()):
        WEEKDAYS[_d] = _i
for _d, _i in {
    "mondays": 0,
    "tuesdays": 1,
    "wednesdays": 2,
    "thursdays": 3,
    "fridays": 4,
    "saturdays": 5,
    "sundays": 6,
    "sabati": 5,
    "domeniche": 6,
    "sábado": 5,
    "sabado": 5,
    "sábados": 5,
    "sabados": 5,
    "domingo": 6,
    "domingos": 6,
}.items():
    WEEKDAYS[_d] = _i
# Portuguese weekdays are ordinals ("segunda" = second) unless "-feira" or context says so.
PT_WEEKDAYS: dict[str, int] = {
    "segunda": 0,
    "terça": 1,
    "terca": 1,
    "quarta": 2,
    "quinta": 3,
    "sexta": 4,
}
WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTH_NAMES = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)

# --- numbers and units ----------------------------------------------------------------

NUMBER_WORDS: dict[str, dict[str, int]] = {
    "en": {
        w: i
        for i, w in enumerate(
            words("""zero one two three four five six seven eight nine ten eleven twelve thirteen
            fourteen fifteen sixteen seventeen eighteen nineteen twenty""")
        )
    }
    | {
        "thirty": 30,
        "forty": 40,
        "fifty": 50,
        "sixty": 60,
        "seventy": 70,
        "eighty": 80,
        "ninety": 90,
        "hundred": 100,
        "dozen": 12,
    },
    "it": {
        w: i
        for i, w in enumerate(
            words("""zero uno due tre quattro cinque sei sette otto nove dieci undici dodici tredici
            quattordici quindici sedici diciassette diciotto diciannove venti""")
        )
    }
    | {
        "trenta": 30,
        "quaranta": 40,
        "cinquanta": 50,
        "sessanta": 60,
        "settanta": 70,
        "ottanta": 80,
        "novanta": 90,
        "cento": 100,
        "dozzina": 12,
    },
    "pt": {
        w: i
        for i, w in enumerate(
            words("""zero um dois três quatro cinco seis sete oito nove dez onze doze treze catorze
            quinze dezesseis dezessete dezoito dezenove vinte""")
        )
    }
    | {
        "duas": 2,
        "tres": 3,
        "quatorze": 14,
        "dezasseis": 16,
        "dezassete": 17,
        "dezanove": 19,
        "trinta": 30,
        "quarenta": 40,
        "cinquenta": 50,
        "sessenta": 60,
        "setenta": 70,
        "oitenta": 80,
        "noventa": 90,
        "cem": 100,
        "dúzia": 12,
    },
}
# Words that are numbers only sometimes: articles ("um", "uno") and homographs ("sei").
AMBIGUOUS_NUMBER_WORDS: frozenset[str] = frozenset({"um", "uno", "zero"})
# Tens that take a unit after them: "thirty-five", "trinta e cinco"; Italian writes the
# compound as one word ("trentacinque", "ventotto": the tens lose their vowel before
# "uno"/"otto") and elides before a vowel ("quarant'anni").
NUMBER_JOINER_WORDS: dict[str, frozenset[str]] = {"pt": frozenset({"e"})}
ITALIAN_UNITS: dict[str, int] = {
    "uno": 1,
    "un": 1,
    "due": 2,
    "tre": 3,
    "tré": 3,
    "quattro": 4,
    "cinque": 5,
    "sei": 6,
    "sette": 7,
    "otto": 8,
    "nove": 9,
}
ITALIAN_ELIDED_TENS: dict[str, int] = {
    "vent": 20,
    "trent": 30,
    "quarant": 40,
    "cinquant": 50,
    "sessant": 60,
    "settant": 70,
    "ottant": 80,
    "novant": 90,
}
# "two hundred", "tre cento", "duzentos" is left alone.
HUNDRED_WORDS: frozenset[str] = frozenset({"hundred", "cento"})
# Unit words a number written in letters may take ("two kilograms", "tre ore"); the
# one- and two-letter symbols and words that are mostly something else are left out.
NUMBER_WORD_UNIT_EXCLUDED: frozenset[str] = frozenset(
    {"m", "s", "g", "h", "t", "b", "mi", "gr", "real", "ora", "set"}
)
# Counted nouns that include others: "no children" excludes "two daughters".
COUNT_HYPERNYMS: dict[str, str] = {
    "daughter": "child",
    "son": "child",
    "kid": "child",
    "figli": "figl",  # figlio/figlia/figlie (stems) are among the figli
    "brother": "sibling",
    "sister": "sibling",
}
# Phrases that say "none of": a zero count of the noun that follows.
ZERO_COUNT_PATTERNS: dict[str, tuple[str, ...]] = {
    "en": (
        r"\b(?:has|have|had|with)\s+no\s+",
        r"\b(?:does|do|did)(?:\s+not|n't)\s+have\s+(?:any\s+)?",
    ),
    "it": (
        r"\bnon\s+(?:ha|hanno|aveva|avevano)\s+(?:nessun[oa]?\s+)?",
        r"\bnessun[oa]?\s+",
    ),
    "pt": (
        r"\bn[ãa]o\s+(?:tem|têm|tinha|possui)\s+(?:nenhuma?\s+)?",
        r"\bnenhuma?\s+",
    ),
}


def _unit_rows() -> dict[str, tuple[str, float]]:
    rows: dict[str, tuple[str, float]] = {}

    def add(dimension: str, factor: float, surfaces: str) -> None:
        for s in surfaces.split("|"):
            rows[s] = (dimension, factor)

    add("length", 0.001, "mm|millimetre|millimetres|millimeter|millimeters|millimetri|millimetro")
    add("length", 0.001, "milímetro|milímetros|milimetro|milimetros")
    add("length", 0.01, "cm|centimetre|centimetres|centimeter|centimeters|centimetri|centimetro")
    add("length", 0.01, "centímetro|centímetros|centimetros")
    add("length", 1.0, "m|metre|metres|meter|meters|metri|metro|metros")
    add("length", 1000.0, "km|kilometre|kilometres|kilometer|kilometers|chilometri|chilometro")
    add("length", 1000.0, "quilômetro|quilômetros|quilómetros|quilometros")
    add("length", 0.0254, "inch|inches|pollici|polegadas")
    add("length", 0.3048, "ft|feet|foot|piedi|pés")
    add("length", 1609.344, "mi|mile|miles|miglia|milhas")
    add("mass", 1e-6, "mg|milligram|milligrams|milligrammi|miligramas")
    add("mass", 0.001, "g|gr|gram|grams|gramme|grammes|grammi|grammo|grama|gramas")
    add("mass", 1.0, "kg|kilo|kilos|kilogram|kilograms|chili|chilo|chilogrammi|quilo|quilos")
    add("mass", 1.0, "quilogramas|quilograma")
    add("mass", 0.45359237, "lb|lbs|pound|pounds|libbre|libras")
    add("mass", 1000.0, "t|tonne|tonnes|ton|tons|tonnellate|tonnellata|tonelada|toneladas")
    add("duration", 0.001, "ms|milliseconds|millisecondi|milissegundos")
    add("duration", 1.0, "s|sec|secs|second|seconds|secondi|secondo|segundo|segundos")
    add("duration", 60.0, "min|mins|minute|minutes|minuti|minuto|minutos")
    add("duration", 3600.0, "h|hr|hrs|hour|hours|ora|ore|hora|horas")
    add("duration", 86400.0, "day|days|giorno|giorni|dia|dias")
    add("duration", 604800.0, "week|weeks|settimana|settimane|semana|semanas")
    add("duration", 2629800.0, "month|months|mese|mesi|mês|meses")
    add("duration", 31557600.0, "year|years|anno|anni|ano|anos")
    # Temperatures in Celsius; Fahrenheit is converted before extraction (an offset,
    # not a factor: see integrity.detection.normalize).
    add("temperature", 1.0, "°c|ºc|celsius")
    add("percent", 1.0, "%|percent|per cent|percento|per cento|por cento")
    add("speed", 1 / 3.6, "km/h|kmh|kph")
    add("speed", 0.44704, "mph")
    add("data", 1.0, "b|byte|bytes")
    add("data", 1024.0, "kb|kib")
    add("data", 1024.0**2, "mb|mib")
    add("data", 1024.0**3, "gb|gib")
    add("data", 1024.0**4, "tb|tib")
    # Currencies are dimensions of their own: 10 EUR and 10 USD are never the same amount.
    add("currency:EUR", 1.0, "€|eur|euro|euros")
    add("currency:USD", 1.0, "usd|dollar|dollars|dollari|dollaro|dólar|dólares|dolares|us$")
    add("currency:GBP", 1.0, "£|gbp|sterling|sterline|sterlina")
    add("currency:BRL", 1.0, "brl|reais|real|r$")
    add("currency:CHF", 1.0, "chf")
    add("currency:JPY", 1.0, "jpy|yen|¥")
    return rows


UNITS: dict[str, tuple[str, float]] = _unit_rows()
CURRENCY_SYMBOLS: dict[str, str] = {
    "€": "currency:EUR",
    "$": "currency:USD",
    "us$": "currency:USD",
    "£": "currency:GBP",
    "r$": "currency:BRL",
    "¥": "currency:JPY",
}
# One length written in two units: 5 ft 8 in, 5 feet 8 inches, 5'8".
FEET_INCHES_PATTERN = (
    r"(?<![\w.,])(?P<ft>\d{1,2})\s*(?:ft\.?|feet|foot|'|′)\s*"
    r"(?P<in>\d{1,2}(?:[.,]\d+)?)(?![\d.,]*\d)\s*(?:in\b\.?|inch(?:es)?\b|\"|''|″)?"
)
FOOT_METRES = 0.3048
INCH_METRES = 0.0254
RATE_WORDS: frozenset[str] = frozenset(
    {"per", "por", "al", "alla", "every", "each", "ogni", "cada"}
)

# --- categorical values ---------------------------------------------------------------

COLOURS: dict[str, str] = {}
for _row in (
    "red rosso rossa rossi rosse vermelho vermelha vermelhos vermelhas",
    "blue blu azzurro azzurra azul azuis",
    "green verde verdi",
    "yellow giallo gialla gialli gialle amarelo amarela",
    "black nero nera neri nere preto preta pretos pretas",
    "white bianco bianca bianchi bianche branco branca brancos brancas",
    "grey gray grigio grigia grigi cinza cinzento cinzenta",
    "orange arancione arancio laranja",
    "purple viola roxo roxa",
    "pink rosa",
    "brown marrone marrom castanho",
    "silver argento argentato prata prateado",
):
    _words = _row.split()
    for _w in _words:
        COLOURS[_w] = _words[0]

DIETS: dict[str, str] = {
    "vegetarian": "vegetarian",
    "vegetariano": "vegetarian",
    "vegetariana": "vegetarian",
    "vegetariani": "vegetarian",
    "vegetariane": "vegetarian",
    "vegetarianos": "vegetarian",
    "vegetarianas": "vegetarian",
    "vegan": "vegan",
    "vegano": "vegan",
    "vegana": "vegan",
    "vegani": "vegan",
    "vegane": "vegan",
    "veganos": "vegan",
    "veganas": "vegan",
}
# Opinions: the "likes" attribute is fondness, "dislikes" aversion; fear is a weaker
# opposite of fondness (one can fear what one admires) and agrees with aversion.
FEAR_WORDS: frozenset[str] = frozenset(
    words("""afraid scared terrified fear fears paura teme temono medo temem""")
)

# Marital status, after a copula ("is married", "è single", "é casada").
MARITAL: dict[str, str] = {}
for _state, _row in (
    ("married", "married sposato sposata sposati sposate casado casada casados casadas"),
    ("single", "single unmarried nubile celibe solteiro solteira solteiros solteiras"),
    ("divorced", "divorced divorziato divorziata divorziati divorziate divorciado divorciada"),
    ("widowed", "widowed widow widower vedovo vedova viúvo viúva viuvo viuva"),
):
    for _w in _row.split():
        MARITAL[_w] = _state
MARITAL_CONFLICTS: frozenset[frozenset[str]] = frozenset(
    frozenset(p)
    for p in (
        ("married", "single"),
        ("married", "divorced"),
        ("married", "widowed"),
        ("married", "not_married"),
        ("single", "not_single"),
        ("divorced", "not_divorced"),
        ("widowed", "not_widowed"),
    )
)
COPULAS: frozenset[str] = frozenset(
    words("""is are was were be been remains è e' sono era erano resta rimane é são está estão
    foi era continua""")
)
# Words allowed between a copula and what it says ("is still single", "è ancora nubile").
COPULA_FILLERS: frozenset[str] = frozenset(
    words("""not still now happily no longer already non ancora ormai felicemente più não ainda
    agora já mais""")
)

# Open or closed (a shop, an office, an issue): a state, not the "closes at 6" event.
OPENING: dict[str, str] = {}
for _state, _row in (
    ("open", "open opens aperto aperta aperti aperte apre aprono aberto aberta abertos abertas"),
    ("open", "abre abrem"),
    ("closed", "closed chiuso chiusa chiusi chiuse fechado fechada fechados fechadas"),
):
    for _w in _row.split():
        OPENING[_w] = _state
# Forms that say it without a copula ("the shop opens on Mondays").
OPENING_VERBS: frozenset[str] = frozenset(words("""opens apre aprono abre abrem"""))

# "è a Milano", "está em Lisboa": a copula, a place preposition and a name say where a
# thing is. English "is in X" is left out: "Milan is in Italy" and "in Lombardy" both hold.
COPULA_LOCATION: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "it": (frozenset({"è", "e'", "sono"}), frozenset({"a", "ad"})),
    "pt": (frozenset({"está", "estão", "esta"}), frozenset({"em", "no", "na", "nos", "nas"})),
}

# A bare "05/05" is a date right after one of these words...
DATE_CUES_BEFORE: frozenset[str] = frozenset(
    words("""on by until till since from before after due il dal al entro fino prima dopo em
    desde até antes depois""")
)
# ...or anywhere in a sentence about a birthday, a death or a deadline.
DATE_CUE_WORDS: frozenset[str] = frozenset(
    words("""born birthday birthdate anniversary died deadline due nato nata nati nate compleanno
    anniversario morto morta scadenza scade nasceu nascido nascida aniversário aniversario
    morreu prazo vence""")
)

# Food that a diet excludes. Singular forms; plurals are matched by stripping an "s".
MEAT_WORDS: frozenset[str] = frozenset(
    words("""meat steak beef pork chicken ham bacon sausage burger hamburger lamb veal salami turkey
    fish salmon tuna shrimp prawn anchovy carne bistecca manzo maiale pollo prosciutto
    salsiccia salame agnello vitello pesce salmone tonno braciola cotoletta bife picanha frango
    porco presunto linguiça salsicha cordeiro vitela peixe salmão atum hambúrguer churrasco
    costela""")
)
ANIMAL_PRODUCT_WORDS: frozenset[str] = frozenset(
    words("""cheese milk egg butter yogurt yoghurt honey cream formaggio latte uova uovo burro miele
    panna queijo leite ovo manteiga iogurte mel""")
)
DIET_EXCLUDES: dict[str, frozenset[str]] = {
    "vegetarian": MEAT_WORDS,
    "vegan": MEAT_WORDS | ANIMAL_PRODUCT_WORDS,
}

# Status of a task or project. Single tokens or space-separated phrases.
STATUSES: dict[str, tuple[str, ...]] = {
    "done": (
        "completed",
        "complete",
        "done",
        "finished",
        "closed",
        "shipped",
        "released",
        "delivered",
        "resolved",
        "completat[oaie]",
        "conclus[oaie]",
        "finit[oaie]",
        "terminat[oaie]",
        "chius[oaie]",
        "consegnat[oaie]",
        "rilasciat[oaie]",
        "uscit[oaie]",
        "pubblicat[oaie]",
        "lanciat[oaie]",
        "launched",
        "published",
        "lan[cç]ad[oa]s?",
        "publicad[oa]s?",
        "resolvid[oa]s?",
        "risolt[oaie]",
        "corrett[oaie]",
        "corrigid[oa]s?",
        "concluíd[oa]s?",
        "concluid[oa]s?",
        "completad[oa]s?",
        "finalizad[oa]s?",
        "terminad[oa]s?",
        "encerrad[oa]s?",
        "entregues?",
    ),
    "in_progress": (
        "in progress",
        "ongoing",
        "underway",
        "under way",
        "in development",
        "being worked on",
        "in corso",
        "in lavorazione",
        "in sviluppo",
        "em andamento",
        "em curso",
        "em progresso",
        "em desenvolvimento",
        "still happens",
        "still happening",
        "still occurs",
        "keeps happening",
        "si verifica ancora",
        "continua a verificarsi",
        "continua a succedere",
        "continua acontecendo",
        "continua a acontecer",
        "ainda acontece",
    ),
    "started": (
        "started",
        "begun",
        "began",
        "kicked off",
        "iniziat[oaie]",
        "avviat[oaie]",
        "cominciat[oaie]",
        "iniciad[oa]s?",
        "começou",
        "comecou",
        "iniciou",
    ),
    "not_started": (
        "planned",
        "pending",
        "da iniziare",
        "pianificat[oaie]",
        "in attesa",
        "planejad[oa]s?",
        "pendentes?",
        "a iniciar",
    ),
    "cancelled": (
        "cancell?ed",
        "abandoned",
        "annullat[oaie]",
        "cancellat[oaie]",
        "abbandonat[oaie]",
        "cancelad[oa]s?",
        "abandonad[oa]s?",
    ),
}
# What a status becomes under negation ("not started" -> not_started).
NEGATED_STATUS: dict[str, str | None] = {
    "done": "not_done",
    "started": "not_started",
    "not_started": "started",
    "in_progress": None,
    "cancelled": None,
}
# Pairs of statuses that cannot hold at the same time.
STATUS_CONFLICTS: frozenset[frozenset[str]] = frozenset(
    frozenset(p)
    for p in (
        ("done", "in_progress"),
        ("done", "not_started"),
        ("done", "not_done"),
        ("done", "cancelled"),
        ("in_progress", "not_started"),
        ("in_progress", "cancelled"),
        ("started", "not_started"),
    )
)
STATUS_LABELS: dict[str, str] = {
    "done": "completed",
    "in_progress": "in progress",
    "started": "started",
    "not_started": "not started",
    "not_done": "not completed",
    "cancelled": "cancelled",
}

# --- frames: words that name the same thing, and words that add nothing ---------------

# Words of one class are one concept when two statements are compared ("starts" and
# "comincia", "employees" and "personale"): small classes per meaning, all languages.
CONCEPT_CLASSES: dict[str, str] = {}
for _concept, _row in (
    (
        "start",
        "start starts started begin begins began kicks leaves departs inizia iniziano "
        "comincia cominciano parte partono começa começam comeca inicia iniciam sai decola",
    ),
    (
        "finish",
        "end ends ended finish finishes finished finisce finiscono termina terminano acaba acabam",
    ),
    (
        "staff",
        "employee employees staff personnel people persons person member members worker "
        "workers dipendente dipendenti personale persone membri lavoratori funcionário "
        "funcionários funcionario funcionarios pessoas membros colaboradores trabalhadores equipe",
    ),
    (
        "use",
        "use uses used user users using usa usano utilizza utilizzano usam utiliza utilizam "
        "usuário usuários usuario usuarios utente utenti runs handled handles powered powers "
        "backed hosted gira funziona roda",
    ),
    (
        "pass",
        "passed pass passes promosso promossi promossa passato passati superato superati "
        "passou passaram aprovado aprovados aprovada aprovadas",
    ),
    (
        "raise",
        "raised raises brought raccolto raccolti raccolse captou captaram arrecadou levantou",
    ),
    (
        "spend",
        "spent spend spends paid pays pay cost costs speso spende pagato paga costa "
        "costano costata costato gastou gasta pagou custa custou custaram",
    ),
    (
        "student",
        "student students pupil pupils studente studenti alunno alunni aluno alunos "
        "estudante estudantes",
    ),
    ("team", "team teams squadra gruppo time equipe equipa"),
    (
        "wedding",
        "wedding weddings marry marries matrimonio nozze sposano sposa sposeranno "
        "casamento casam casar",
    ),
    ("fix", "fixed fix corrected corretto corretta risolto risolta corrigido corrigida consertado"),
    ("car", "car cars drive drives driving auto macchina carro dirigindo guidando"),
    ("plane", "plane flight flights fly flies aereo volo voli avião aviao voo voos"),
    ("train", "train trains treno treni trem trens"),
    ("foot", "walk walks walking foot piedi caminhando"),
    (
        "release",
        "release released rilascio rilasciata rilasciato uscita uscito lançamento lançada lançado",
    ),
):
    for _w in _row.split():
        CONCEPT_CLASSES[_w] = f"~{_concept}"

# Words that change nothing a statement claims: hedges, the verbs and adjectives that
# only say a measure is coming ("measures", "is 5 km long", "pesa", "dura").
FRAME_LIGHT_WORDS: frozenset[str] = frozenset(
    words("""about roughly around approximately almost nearly only just really exactly circa
    quasi cerca circa solo soltanto appena davvero esattamente aproximadamente quase cerca
    apenas só so realmente exatamente measures measure measured long tall high wide deep heavy
    weighs weigh lasts last takes take costs cost misura misurano lungo lunga alto alta largo
    larga profondo pesa pesano dura durano costa costano mede medem comprido comprida pesado
    pesada leva levam demora demoram foram furono were was been é era sono off getting conta
    contano counts mais ou menos most one where dove onde language languages city town tool
    framework linguaggio lingua città strumento linguagem cidade ferramenta herb erba erva""")
)

# Words that change a scheduled thing rather than tell of another one: "moved to 9
# November" replaces "fixed for 4 November".
RESCHEDULE_WORDS: frozenset[str] = frozenset(
    words("""moved rescheduled postponed delayed brought forward pushed changed anticipata
    anticipato spostata spostato rinviata rinviato posticipata posticipato cambiata cambiato
    remarcada remarcado adiada adiado antecipada antecipado mudada mudado transferida
    transferido alterada alterado""")
)


# Countries and first-level regions (English, Italian, Portuguese names): a place that
# may contain a city named in another statement ("lives in Spain" / "in Seville"), so
# the two are a refinement, not a conflict. A category, not a list of test places: every
# country in common use and every Italian region, Portuguese region and Brazilian state.
def _bar_list(text: str) -> list[str]:
    return [" ".join(part.split()).casefold() for part in text.split("|") if part.strip()]


REGIONS: frozenset[str] = frozenset(
    _bar_list(
        """
    italy|italia|itália|portugal|spain|spagna|espanha|france|francia|frança|germany|germania|
    alemanha|united kingdom|regno unito|reino unido|england|inghilterra|inglaterra|scotland|
    scozia|escócia|wales|galles|ireland|irlanda|switzerland|svizzera|suíça|austria|áustria|
    belgium|belgio|bélgica|netherlands|paesi bassi|holanda|países baixos|greece|grecia|grécia|
    sweden|svezia|suécia|norway|norvegia|noruega|denmark|danimarca|dinamarca|finland|
    finlandia|finlândia|poland|polonia|polónia|polônia|brazil|brasile|brasil|argentina|chile|
    cile|peru|perù|colombia|colômbia|mexico|messico|méxico|canada|canadá|united states|
    stati uniti|estados unidos|usa|japan|giappone|japão|china|cina|india|índia|australia|
    austrália|angola|mozambique|mozambico|moçambique|cape verde|capo verde|cabo verde|
    south america|sud america|america do sul|américa do sul|europe|europa|africa|áfrica|asia|
    ásia|california|texas|florida|
    abruzzo|basilicata|calabria|campania|emilia-romagna|emilia romagna|friuli|friuli-venezia
    giulia|lazio|liguria|lombardia|lombardy|marche|molise|piemonte|piedmont|puglia|apulia|
    sardegna|sardinia|sardenha|sicilia|sicily|sicília|toscana|tuscany|trentino|alto adige|
    umbria|valle d'aosta|veneto|
    minho|trás-os-montes|douro|beira|beiras|estremadura|ribatejo|alentejo|algarve|açores|
    azores|madeira|
    acre|alagoas|amapá|amazonas|bahia|ceará|distrito federal|espírito santo|goiás|maranhão|
    mato grosso|mato grosso do sul|minas gerais|pará|paraíba|paraná|pernambuco|piauí|
    rio grande do norte|rio grande do sul|rondônia|roraima|santa catarina|sergipe|tocantins
    """
    )
)
