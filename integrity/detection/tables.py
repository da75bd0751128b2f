"""Closed categories the structure reader needs, in English, Italian, Portuguese,
Spanish, French and German: month and weekday names, number words, negation and
approximation words, periods of time, units of measure with their factors to a base
unit, currencies and time-zone abbreviations with their UTC offsets.

Only closed classes and general unit tables live here (CONVENTIONS.md, "Generalisation"):
no attribute, verb or phrase of any evaluation set. The learned pair model decides
what a difference means; these tables only say what a value is.
"""

from __future__ import annotations

from . import unit_tables as ut


def _words(text: str) -> list[str]:
    """Whitespace-separated words: keeps the tables readable."""
    return text.split()


def _rows(spec: str) -> dict[str, int]:
    """ "1 january gennaio janeiro ..." lines -> {word: number}."""
    table: dict[str, int] = {}
    for line in spec.strip().splitlines():
        number, *names = line.split()
        for name in names:
            table[name] = int(number)
    return table


MONTHS: dict[str, int] = _rows(
    """
    1 january gennaio janeiro enero janvier januar jänner jan genn gen ene janv
    2 february febbraio fevereiro febrero février fevrier februar feb febb fev fév févr
    3 march marzo março marco mars märz maerz mar
    4 april aprile abril avril apr abr avr
    5 may maggio maio mayo mai mag
    6 june giugno junho junio juin juni jun giu
    7 july luglio julho julio juillet juli jul lug juil
    8 august agosto août aout aug ago
    9 september settembre setembro septiembre septembre sep sept set
    10 october ottobre outubro octubre octobre oktober oct ott out okt
    11 november novembre novembro noviembre nov
    12 december dicembre dezembro diciembre décembre decembre dezember dec dic dez déc
    """
)
# Month names that are also common words in some language: a month only next to a
# number ("may", "mar" = sea, "set", "mai" = never, "out", "gen", "marco": a first
# name, and Portuguese "março" without its cedilla).
AMBIGUOUS_MONTHS: frozenset[str] = frozenset(
    _words("may mar set mai out gen march august jan sep ago dic marco")
)

WEEKDAYS: dict[str, int] = _rows(
    """
    0 monday lunedì lunedi segunda lunes lundi montag mon
    1 tuesday martedì martedi terça terca martes mardi dienstag tue tues
    2 wednesday mercoledì mercoledi quarta miércoles miercoles mercredi mittwoch wed
    3 thursday giovedì giovedi quinta jueves jeudi donnerstag thu thurs
    4 friday venerdì venerdi sexta viernes vendredi freitag fri
    5 saturday sabato sábado sabado samedi samstag sat
    6 sunday domenica domingo dimanche sonntag sun
    """
)

NUMBER_WORDS: dict[str, int] = _rows(
    """
    2 two due dois duas dos deux zwei
    3 three tre três tres trois drei
    4 four quattro quatro cuatro quatre vier
    5 five cinque cinco cinq fünf
    6 six sei seis sechs
    7 seven sette sete siete sept sieben
    8 eight otto oito ocho huit acht
    9 nine nove nueve neuf neun
    10 ten dieci dez diez dix zehn
    11 eleven undici onze once elf
    12 twelve dodici doze doce douze zwölf dozen dozzina dúzia docena douzaine
    13 thirteen tredici treze trece treize dreizehn
    14 fourteen quattordici catorze quatorze catorce vierzehn
    15 fifteen quindici quinze quince fünfzehn
    16 sixteen sedici dezesseis dezasseis dieciséis seize sechzehn
    17 seventeen diciassette dezessete dezassete diecisiete siebzehn
    18 eighteen diciotto dezoito dieciocho achtzehn
    19 nineteen diciannove dezenove dezanove diecinueve neunzehn
    20 twenty venti vinte veinte vingt zwanzig
    30 thirty trenta trinta treinta trente dreißig
    40 forty quaranta quarenta cuarenta quarante vierzig
    50 fifty cinquanta cinquenta cincuenta cinquante fünfzig
    60 sixty sessanta sessenta sesenta soixante sechzig
    70 seventy settanta setenta siebzig
    80 eighty ottanta oitenta ochenta achtzig
    90 ninety novanta noventa neunzig
    100 hundred cento cem cien ciento cent cents hundert
    200 duzentos duzentas doscientos doscientas
    300 trezentos trezentas trescientos trescientas
    400 quatrocentos quatrocentas cuatrocientos cuatrocientas
    500 quinhentos quinhentas quinientos quinientas
    600 seiscentos seiscentas seiscientos seiscientas
    700 setecentos setecentas setecientos setecientas
    800 oitocentos oitocentas ochocientos ochocientas
    900 novecentos novecentas novecientos novecientas
    1000 thousand mille mila mil tausend
    1000000 million millions milione milioni milhão milhões millón millones
    """
)

# Negation words: a function-word class in each language ("n't" is read as "not").
NEGATIONS: frozenset[str] = frozenset(
    _words(
        """not never n't nor neither none nobody nothing without non mai nessun nessuno
    nessuna niente nulla senza né não nunca nenhum nenhuma nada ninguém nem sem ni ninguno
    ninguna nadie jamás jamas sin pas jamais aucun aucune rien sans nicht nie
    niemals kein keine keinen keiner nichts ohne"""
    )
)

# French negation has two parts, "ne" (or "n'") and a second word; "pas", "jamais",
# "rien", "aucun" are counted above, these only after "ne" ("une personne" is a person,
# "plus" is "more"). "ne" alone is not counted: in Italian it is a pronoun.
NE_PAIRED: frozenset[str] = frozenset(_words("personne plus guère guere nulle"))

# "no": a negation in English, Spanish and Italian, "in the" in Portuguese. ("nos" is
# no negation in any of the languages read: Portuguese "in the", Spanish "us", French
# "our".)
AMBIGUOUS_NEGATIONS: frozenset[str] = frozenset({"no"})

# Words that make an amount approximate: "about 40", "circa 40", "~40".
APPROXIMATE: frozenset[str] = frozenset(
    _words(
        """about around roughly approximately approx nearly almost circa cerca quasi
    approssimativamente aproximadamente quase cerca aprox environ presque ungefähr etwa
    fast rund ~ ca unos unas"""
    )
)
# Words joining the two ends of a range: "between 5 and 10", "5 to 10", "da 5 a 10".
RANGE_OPENERS: frozenset[str] = frozenset(
    _words("""between from tra fra da dal entre de desde zwischen von""")
)
RANGE_JOINERS: frozenset[str] = frozenset(
    _words("""and to through e a al ao y à et bis und - – —""")
)
# Bounds: "at most 10", "up to 10", "fino a 10", "até 10", "over 10", "at least 10".
UPPER_BOUND: frozenset[str] = frozenset(
    _words(
        """most max maximum up under below less fino massimo até máximo hasta máximo jusqu
    maximal höchstens bis"""
    )
)
# A bound after the amount, through "or" / "and" and at most two words: "8 or later",
# "2.4 or newer", "5 o più", "9 ou plus", "6 et supérieures", "10 ou menos".
BOUND_JOINERS: frozenset[str] = frozenset(_words("or o ou oder and e y et und"))
LOWER_AFTER: frozenset[str] = frozenset(
    _words(
        """more higher above later newer greater superior superiore superiori successive
    successivi successiva più oltre mais superiores posterior posteriores más plus
    ultérieure ultérieures supérieure supérieures mehr höher neuer"""
    )
)
UPPER_AFTER: frozenset[str] = frozenset(
    _words(
        """less fewer lower below earlier older inferior inferiore inferiori meno menos
    inferiores anterior anteriores moins inférieure inférieures antérieures weniger"""
    )
)
# Between a range word and its number: "tra i 30 e i 35", "between $5 and $10".
RANGE_SKIPPED: frozenset[str] = frozenset(_words("i gli les los las os as the le la"))
LOWER_BOUND: frozenset[str] = frozenset(
    _words(
        """least min minimum over above more almeno minimo pelo menos mínimo al menos moins
    mindestens über"""
    )
)

# Periods of time, in days: "€35 a month", "50 per week", "/yr", "mensile".
PERIOD_DAYS: dict[str, float] = {}
for _days, _names in (
    (
        1.0,
        "day days daily giorno giorni giornaliero dia dias diário diario día días jour jours "
        "journalier quotidien tag tage täglich d",
    ),
    (
        7.0,
        "week weeks weekly settimana settimane settimanale semana semanas semanal semaine "
        "semaines hebdomadaire woche wochen wöchentlich wk",
    ),
    (
        30.4375,
        "month months monthly mese mesi mensile mês meses mensal mes mensual mois "
        "mensuel monat monate monatlich mo",
    ),
    (91.3125, "quarter quarterly trimestre trimestrale trimestral trimestriel quartal"),
    (
        365.25,
        "year years yearly annual annually anno anni annuale annuo ano anos anual año "
        "años an ans année années annuel jahr jahre jährlich yr y",
    ),
):
    for _name in _names.split():
        PERIOD_DAYS[_name] = _days
# The period adjectives' other genders and plurals ("€300 mensuels", "1.200 € annui",
# "200 llamadas diarias"): read after an amount like "monthly" (``amounts._period_after``).
PERIOD_ADJECTIVE_FORMS: dict[str, float] = {}
for _days, _names in (
    (
        1.0,
        "giornaliera giornalieri giornaliere quotidiano quotidiana quotidiani quotidiane "
        "diária diárias diários diaria diarias diarios quotidienne quotidiens quotidiennes "
        "journalière journaliers journalières tägliche täglichen täglicher",
    ),
    (
        7.0,
        "settimanali semanais semanales hebdomadaires wöchentliche wöchentlichen",
    ),
    (
        30.4375,
        "mensili mensais mensuales mensuelle mensuels mensuelles monatliche monatlichen",
    ),
    (91.3125, "trimestrali trimestrais trimestrales trimestrielle trimestriels trimestrielles"),
    (
        365.25,
        "annuali annui annua annue anuais anuales annuelle annuels annuelles jährliche jährlichen",
    ),
):
    PERIOD_ADJECTIVE_FORMS.update(dict.fromkeys(_names.split(), _days))
PERIOD_DAYS.update(PERIOD_ADJECTIVE_FORMS)
# Words after a count that make it a frequency: "three times an hour", "3 volte al giorno".
TIMES_WORDS: frozenset[str] = frozenset(_words("times time volte volta vezes vez veces fois mal"))
# A count and "times" in one word: "once a day", "twice a week", "zweimal pro Tag".
ONCE_WORDS: dict[str, int] = {"once": 1, "twice": 2, "thrice": 3, "einmal": 1, "zweimal": 2}
# Words before a duration that make it a period: "every 20 minutes", "ogni 20 minuti",
# "a cada 20 minutos" ("toutes les 20 minutes": the article is skipped).
# Articles of the six languages: a short weekday form after one is a noun ("the Sun").
ARTICLES: frozenset[str] = frozenset(
    _words("the a an il lo la le l el los las o os as un une uno una um uma der die das")
)
EVERY_WORDS: frozenset[str] = frozenset(_words("every each ogni cada toutes jede jeden"))
# Words before a period noun that make it the period of a statement's one sum of money:
# "across the whole year", "por ano", "per month", "ogni anno", "each year".
PERIOD_LEADS: frozenset[str] = frozenset(
    _words(
        "per a an in over across throughout each every por ao al all alla nel em en dans im pro "
        "par cada ogni"
    )
)
# Words between an amount and its period: "a month", "per month", "al mese", "por mês".
RATE_WORDS: frozenset[str] = frozenset(
    _words("""a an per each every / al all alla ogni por ao à cada par pro je im la le""")
)


def _unit_rows() -> dict[str, tuple[str, float]]:
    rows: dict[str, tuple[str, float]] = {}

    def add(dimension: str, factor: float, surfaces: str) -> None:
        for surface in surfaces.split():
            rows[surface] = (dimension, factor)

    add("length", 1e-6, "µm μm micrometre micrometres micrometer micrometers micron microns")
    add(
        "length",
        0.001,
        "mm millimetre millimetres millimeter millimeters millimetri millimetro "
        "milímetro milímetros milimetro milimetros millimètre millimètres",
    )
    add(
        "length",
        0.01,
        "cm centimetre centimetres centimeter centimeters centimetri centimetro "
        "centímetro centímetros centimetros centimètre centimètres zentimeter",
    )
    add("length", 1.0, "m metre metres meter meters metri metro metros mètre mètres")
    add(
        "length",
        1000.0,
        "km kilometre kilometres kilometer kilometers chilometri chilometro "
        "quilômetro quilômetros quilómetros quilometros kilómetro kilómetros kilomètre "
        "kilomètres",
    )
    add("length", 0.0254, "in inch inches pollici pollice polegadas polegada pulgadas pouces zoll")
    add("length", 0.3048, "ft feet foot piedi pés pies pieds fuß")
    add("length", 1609.344, "mi mile miles miglia milhas millas")
    add(
        "mass",
        1e-9,
        "µg μg mcg microgram micrograms microgrammi microgramas microgramos microgrammes",
    )
    add("mass", 1e-6, "mg milligram milligrams milligrammi miligramas miligramos milligrammes")
    add("mass", 0.001, "g gr gram grams gramme grammes grammi grammo grama gramas gramos gramo")
    add(
        "mass",
        1.0,
        "kg kilo kilos kilogram kilograms chili chilo chilogrammi quilo quilos "
        "quilogramas quilograma kilogramos kilogrammes",
    )
    add("mass", 0.45359237, "lb lbs pound pounds libbre libras livres")
    add("mass", 0.028349523125, "oz ounce ounces once onças onzas")
    add("mass", 1000.0, "t tonne tonnes ton tons tonnellate tonnellata tonelada toneladas")
    add("volume", 1e-6, "ml millilitre millilitres milliliter milliliters millilitri mililitros")
    add("volume", 0.001, "l litre litres liter liters litri litro litros")
    add("volume", 1.0, "m³ m3")
    return rows


def _more_unit_rows() -> dict[str, tuple[str, float]]:
    rows: dict[str, tuple[str, float]] = {}

    def add(dimension: str, factor: float, surfaces: str) -> None:
        for surface in surfaces.split():
            rows[surface] = (dimension, factor)

    add("duration", 1e-3, "ms millisecond milliseconds millisecondi milissegundos milisegundos")
    add(
        "duration",
        1.0,
        "s sec secs second seconds secondi secondo segundo segundos seconde secondes sekunden",
    )
    add("duration", 60.0, "min mins minute minutes minuti minuto minutos minuten")
    add("duration", 3600.0, "h hr hrs hour hours ora ore hora horas heure heures stunde stunden")
    add("duration", 86400.0, "day days giorno giorni dia dias día días jour jours tag tage")
    add(
        "duration",
        604800.0,
        "week weeks settimana settimane semana semanas semaine semaines woche wochen",
    )
    add("duration", 2629800.0, "month months mese mesi mês meses mes mois monat monate")
    add("duration", 31557600.0, "year years anno anni ano anos año años an ans jahr jahre")
    add("percent", 1.0, "% percent percento porcento pourcent prozent")
    add("speed", 1 / 3.6, "km/h kmh kph")
    add("speed", 0.44704, "mph")
    add("data", 1.0, "b byte bytes")
    add("data", 1e3, "kb")
    add("data", 1024.0, "kib")
    add("data", 1e6, "mb")
    add("data", 1024.0**2, "mib")
    add("data", 1e9, "gb")
    add("data", 1024.0**3, "gib")
    add("data", 1e12, "tb")
    add("data", 1024.0**4, "tib")
    add("frequency", 1.0, "hz")
    add("frequency", 1e3, "khz")
    add("frequency", 1e6, "mhz")
    add("frequency", 1e9, "ghz")
    add("power", 1.0, "w watt watts")
    add("power", 1e3, "kw kilowatt kilowatts")
    add("energy", 3.6e6, "kwh")
    add("pressure", 133.322, "mmhg")
    add("area", 1.0, "m2 m² sqm")
    add("area", 0.09290304, "sqft ft²")
    add("area", 1e4, "hectare hectares ettaro ettari hectárea hectáreas hektar")
    add("area", 4046.8564224, "acre acres acri")
    return rows


_PERIOD_WORDS, _PERIOD_UNITS = ut.period_units()
PERIOD_DAYS.update(_PERIOD_WORDS)  # "a fortnight", "every semester", "per decade"
UNITS: dict[str, tuple[str, float]] = (
    _unit_rows()
    | _more_unit_rows()
    | ut.electrical_units()
    | _PERIOD_UNITS
    | ut.data_units()
    | ut.concentration_units()
)
CASED_UNITS = ut.CASED_UNITS
FLUID_BEFORE = ut.FLUID_BEFORE
FLUID_OUNCE = ut.FLUID_OUNCE

# Temperatures: offsets, not factors; read to degrees Celsius.
TEMPERATURE_UNITS: dict[str, str] = {
    "°c": "C",
    "ºc": "C",
    "celsius": "C",
    "c": "C",
    "°f": "F",
    "ºf": "F",
    "fahrenheit": "F",
    "f": "F",
    "k": "K",
    "kelvin": "K",
}
DEGREE_WORDS: frozenset[str] = frozenset(
    _words("° º degree degrees gradi grado graus grau grados grado degré degrés grad")
)

CURRENCIES: dict[str, str] = {}
for _code, _names in (
    ("EUR", "€ eur euro euros"),
    ("USD", "$ us$ usd dollar dollars dollari dollaro dólar dólares dolares dollar"),
    ("GBP", "£ gbp sterling sterline sterlina libra libras pound pounds"),
    ("BRL", "r$ brl real reais"),
    ("CHF", "chf"),
    ("JPY", "¥ jpy yen"),
    ("INR", "₹ inr rupee rupees rupie"),
    ("CAD", "cad"),
    ("AUD", "aud"),
    ("MXN", "mxn"),
    # Other currencies by ISO 4217 code, sign and name (codes that are also common
    # words, such as TRY, ALL, CUP, COP, RON or PHP, only by their sign and name).
    ("CNY", "cny rmb yuan renminbi 元"),
    ("KRW", "₩ krw"),
    ("RUB", "₽ rub rouble roubles ruble rubles rublo rubli"),
    ("PLN", "zł pln złoty zloty złotych zlotys"),
    ("SEK", "sek kronor"),
    ("NOK", "nok"),
    ("DKK", "dkk"),
    ("CZK", "kč czk"),
    ("HUF", "huf forint forints fiorini"),
    ("TRY", "₺ lira lire liras"),
    ("ZAR", "zar rand"),
    ("NZD", "nzd"),
    ("SGD", "sgd"),
    ("HKD", "hkd"),
    ("ILS", "₪ ils shekel shekels"),
    ("THB", "฿ thb baht"),
    ("VND", "₫ vnd dong"),
    ("NGN", "₦ ngn naira"),
    ("UAH", "₴ uah hryvnia"),
    ("RON", "leu"),
    ("CLP", "clp"),
    ("IDR", "idr rupiah"),
    ("AED", "aed dirham dirhams"),
    ("SAR", "riyal riyals"),
):
    for _name in _names.split():
        CURRENCIES[_name] = _code
CURRENCIES.update(ut.more_currencies())
# "pound" is a unit of mass and a currency: next to a currency symbol or code it is money.
MONEY_OVER_MASS: frozenset[str] = frozenset({"pound", "pounds", "libra", "libras"})

# Time-zone abbreviations with their offset from UTC in minutes (a general table; named
# zones such as "Europe/Rome" go through zoneinfo).
TIME_ZONES: dict[str, int] = {
    "utc": 0,
    "gmt": 0,
    "z": 0,
    "wet": 0,
    "bst": 60,
    "ist": 330,
    "cet": 60,
    "cest": 120,
    "eet": 120,
    "eest": 180,
    "msk": 180,
    "est": -300,
    "edt": -240,
    "cst": -360,
    "cdt": -300,
    "mst": -420,
    "mdt": -360,
    "pst": -480,
    "pdt": -420,
    "akst": -540,
    "hst": -600,
    "brt": -180,
    "art": -180,
    "jst": 540,
    "kst": 540,
    "sgt": 480,
    "hkt": 480,
    "aest": 600,
    "aedt": 660,
    "nzst": 720,
    "nzdt": 780,
    "wat": 60,
    "cat": 120,
    "eat": 180,
    "pkt": 300,
    "ict": 420,
    "wib": 420,
}
# Clock words: "2 pm", "14h", "alle 14", "às 14h".
AM_PM: dict[str, int] = {"am": 0, "a.m": 0, "pm": 12, "p.m": 12}

# Multipliers written after a number: "2.5 million", "1,2 milioni", "3 mil".
MULTIPLIERS: dict[str, float] = {}
for _factor, _names in (
    (1e3, "thousand thousands mila mil mille tausend k"),
    (
        1e6,
        "million millions milione milioni milhão milhões milhao milhoes millón millones "
        "millon mio mln",
    ),
    (1e9, "billion billions miliardo miliardi bilhão bilhões bilhao bilhoes mrd bn"),
):
    for _name in _names.split():
        MULTIPLIERS[_name] = _factor
# Glued after an amount of money only ("$1.2m", "€3bn"): "5m" alone is five metres.
MONEY_MULTIPLIERS: dict[str, float] = {"m": 1e6, "mn": 1e6, "bn": 1e9, "b": 1e9}
# An area written in words: "square" before a length unit, or the adjective after it
# (accents taken off: "metri quadrati", "metros quadrados", "mètres carrés").
SQUARE_BEFORE: frozenset[str] = frozenset(_words("square sq"))
SQUARE_AFTER: frozenset[str] = frozenset(
    _words(
        "quadrato quadrati quadrata quadrate quadrado quadrados quadrada quadradas "
        "cuadrado cuadrados carre carres"
    )
)
# "an hour", "un'ora", "uma hora": the article is the number one before a unit.
ONE_WORDS: frozenset[str] = frozenset(_words("a an one un una uno uma um une ein eine einen"))
HALF_WORDS: frozenset[str] = frozenset(
    _words("half mezzo mezza meio meia media medio demi demie halb")
)
# Time deixis, a closed class of each language: the adverbs and prepositions that
# anchor a statement at a time relative to another ("now", "still", "since", "until",
# "previously"). A statement anchored at another time may describe a later state.
TIME_DEIXIS: frozenset[str] = frozenset(
    _words(
        """now today currently nowadays still since until anymore previously formerly
    previous former ago yesterday ora adesso oggi attualmente ancora finora precedente ieri
    agora hoje atualmente ainda desde até anterior ontem ahora hoy actualmente todavía
    aún hasta ayer maintenant aujourd actuellement encore depuis jusqu précédent hier
    jetzt heute derzeit aktuell noch seit bis früher gestern vorher"""
    )
)
# Times of day said in words.
CLOCK_WORDS: dict[str, int] = {
    "noon": 720,
    "midday": 720,
    "mezzogiorno": 720,
    "mezzodì": 720,
    "meio-dia": 720,
    "mediodía": 720,
    "mediodia": 720,
    "midi": 720,
    "mittag": 720,
    "midnight": 0,
    "mezzanotte": 0,
    "meia-noite": 0,
    "medianoche": 0,
    "minuit": 0,
    "mitternacht": 0,
}
# Words before an hour that make it a clock time: "at 9", "alle 21", "às 19", "a las 8".
# "dalle 9 alle 17": a span of hours opens with one too.
CLOCK_CUES: frozenset[str] = frozenset(_words("at alle dalle ore às as a las à um gegen"))
ENGLISH_LOOKALIKE_CUES: frozenset[str] = frozenset(_words("a as"))
# Words after an hour that put it in the afternoon or evening.
EVENING_WORDS: frozenset[str] = frozenset(
    _words(
        "pm evening afternoon night sera pomeriggio notte tarde noite soir nachmittag abend abends"
    )
)

# Words joining the parts of a number or an amount: "cento e vinte", "an hour and ten
# minutes", "vingt et un".
JOINERS: frozenset[str] = frozenset(_words("and e y et und -"))
# Italian writes numbers as one word: "ventitré", "trentacinque", "duecento".
ITALIAN_UNIT_WORDS: dict[str, int] = {
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
ITALIAN_TENS: dict[str, int] = {
    "venti": 20,
    "trenta": 30,
    "quaranta": 40,
    "cinquanta": 50,
    "sessanta": 60,
    "settanta": 70,
    "ottanta": 80,
    "novanta": 90,
}

# Prefixes that turn a word into its opposite ("locked"/"unlocked", "attivo"/"disattivo",
# "ativado"/"desativado", "legal"/"illegal"): a closed class of each language's
# morphology, read as a signal, never as a verdict.
NEGATIVE_PREFIXES: tuple[str, ...] = (
    "un", "in", "im", "il", "ir", "dis", "non", "de", "dé", "des", "dés", "s", "a", "anti", "mis",
)  # fmt: skip
# Boolean literals of configuration and forms.
BOOLEANS: dict[str, bool] = {
    "true": True, "false": False, "on": True, "off": False, "yes": True, "no": False,
    "enabled": True, "disabled": False, "sì": True, "si": True, "sim": True, "não": False,
    "vero": True, "falso": False, "verdadeiro": True, "verdadero": True, "vrai": True,
    "faux": False, "oui": True, "non": False,
}  # fmt: skip
