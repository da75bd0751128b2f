"""More closed unit classes for the structure reader (issue 28, round 9): electrical
units with their SI prefixes, US liquid measures, general period words, crowns and the
ISO 4217 codes the first currency table lacked. Merged into ``tables.UNITS``,
``tables.PERIOD_DAYS`` and ``tables.CURRENCIES``; six languages where a language has
its own word.
"""

from __future__ import annotations

# Base units: volt, ampere, watt, joule (a watt-hour is 3600 J), coulomb (an amp-hour
# is 3600 C), volt-ampere, cubic metre.


def electrical_units() -> dict[str, tuple[str, float]]:
    rows: dict[str, tuple[str, float]] = {}

    def add(dimension: str, factor: float, surfaces: str) -> None:
        for surface in surfaces.split():
            rows[surface] = (dimension, factor)

    # Symbols whose case carries no meaning once folded. One-letter "a" and "v" are an
    # article and "versus", "va" and "ah" words: those only as written (CASED_UNITS).
    add("voltage", 1e3, "kv")
    add("current", 1e3, "ka")
    add("power", 1e9, "gw")
    add("power", 1e12, "tw")
    add("energy", 3600.0, "wh")
    add("energy", 3.6e12, "gwh")
    add("energy", 3.6e15, "twh")
    add("charge", 3600.0 * 1e3, "kah")
    add("apparent power", 1e3, "kva")
    add("voltage", 1.0, "volt volts voltios voltio")
    add("voltage", 1e3, "kilovolt kilovolts quilovolts kilovoltios")
    add("voltage", 1e-3, "millivolt millivolts")
    add("current", 1.0, "ampere amperes amp amps ampère ampères amperio amperios")
    add("current", 1e-3, "milliampere milliamperes milliamp milliamps miliamperes")
    add("power", 1.0, "vatio vatios")
    add("power", 1e3, "quilowatt quilowatts kilovatio kilovatios")
    add("power", 1e6, "megawatt megawatts megavatio megavatios")
    add("power", 1e9, "gigawatt gigawatts")
    add(
        "energy",
        3600.0,
        "watt-hour watt-hours wattora wattore watt-hora watt-horas vatio-hora vatios-hora "
        "wattheure wattheures wattstunde wattstunden",
    )
    add(
        "energy",
        3.6e6,
        "kilowatt-hour kilowatt-hours kilowattora kilowattore quilowatt-hora "
        "quilowatts-hora kilovatio-hora kilovatios-hora kilowattheure kilowattheures "
        "kilowattstunde kilowattstunden",
    )
    add("energy", 3.6e9, "megawatt-hour megawatt-hours megawattora megawattore megawattstunden")
    add("energy", 1.0, "joule joules julios")  # not "j": French writes days "30 j"
    add("energy", 1e3, "kj kilojoule kilojoules")
    add("energy", 1e6, "mj megajoule megajoules")
    # US liquid measures (the imperial gallon and pint are a fifth larger).
    add("volume", 3.785411784e-3, "gal gallon gallons gallone galloni galão galões galón")
    add("volume", 3.785411784e-3, "galones gallons gallonen")
    add("volume", 0.946352946e-3, "qt quart quarts")
    add("volume", 0.473176473e-3, "pint pints pinta pinte pintas")
    add("volume", 29.5735295625e-6, "floz")
    return rows


# Symbols whose case decides the prefix ("mW" milliwatt, "MW" megawatt): read from the
# token as written, before the folded tables.
CASED_UNITS: dict[str, tuple[str, float]] = {
    "A": ("current", 1.0),
    "V": ("voltage", 1.0),
    "VA": ("apparent power", 1.0),
    "Ah": ("charge", 3600.0),
    "mA": ("current", 1e-3),
    "mV": ("voltage", 1e-3),
    "MV": ("voltage", 1e6),
    "mW": ("power", 1e-3),
    "MW": ("power", 1e6),
    "mWh": ("energy", 3.6),
    "MWh": ("energy", 3.6e9),
    "MWH": ("energy", 3.6e9),
    "mAh": ("charge", 3.6),
    "MVA": ("apparent power", 1e6),
    # French data sizes in octets ("2 To" = 2 TB): capitalised only ("to", "go" are
    # words); the lower-case symbols and the written-out words are in DATA_WORDS.
    "Ko": ("data", 1e3),
    "Mo": ("data", 1e6),
    "Go": ("data", 1e9),
    "To": ("data", 1e12),
    "Kio": ("data", 1024.0),
    "Mio": ("data", 1024.0**2),
    "Gio": ("data", 1024.0**3),
    "Tio": ("data", 1024.0**4),
}

# Data sizes written out (SI and binary prefixes; the French octet), to the byte.
DATA_WORDS: dict[float, str] = {
    1.0: "octet octets",
    1e3: "kilobyte kilobytes kilooctet kilooctets",
    1e6: "megabyte megabytes mégaoctet mégaoctets megaoctet megaoctets",
    1e9: "gigabyte gigabytes gigaoctet gigaoctets",
    1e12: "terabyte terabytes téraoctet téraoctets teraoctet teraoctets",
    1024.0: "kibibyte kibibytes",
    1024.0**2: "mebibyte mebibytes",
    1024.0**3: "gibibyte gibibytes",
    1024.0**4: "tebibyte tebibytes",
}


def data_units() -> dict[str, tuple[str, float]]:
    return {w: ("data", f) for f, words in DATA_WORDS.items() for w in words.split()}


# Concentrations written as a unit over litres (round 17): amount of substance per litre
# (base mol/L) and mass per litre (base g/L), with the SI prefixes a laboratory writes.
# Before, "à 1 mol/L" was a clock time (01:00) and "mol/L" an identifier.
_PER_LITRE = {"mol": ("molar concentration", 1.0), "g": ("mass concentration", 1.0)}
_PREFIXES = {"": 1.0, "m": 1e-3, "µ": 1e-6, "μ": 1e-6, "u": 1e-6, "n": 1e-9, "k": 1e3}
_LITRES = {"l": 1.0, "dl": 0.1, "ml": 1e-3}


def concentration_units() -> dict[str, tuple[str, float]]:
    return {
        f"{prefix}{base}/{litre}": (dimension, factor * scale / volume)
        for base, (dimension, factor) in _PER_LITRE.items()
        for prefix, scale in _PREFIXES.items()
        for litre, volume in _LITRES.items()
    }


# Fractions named by a noun, read as a share of a whole ("half of the users" = 50 %)
# or of a unit ("three quarters of an hour", "due quarti d'ora", "meio gigabyte").
FRACTION_NOUNS: dict[float, str] = {
    0.5: "half halves metà metade mitad moitié moitie hälfte",
    0.25: "quarter quarters quarto quarti cuarto cuartos viertel",
}
# ("quart", French, is a volume in English: left out; "meta" is "goal" in Spanish.)
# Words for "of" (with an article folded in) between a fraction and what it divides.
_PARTITIVE_WORDS = "of di del dello della dei degli delle d de do da dos das des du der"
PARTITIVES = frozenset(_PARTITIVE_WORDS.split())

# "4 fl oz", "8 fluid ounces": the word before a mass ounce that makes it a volume.
FLUID_BEFORE: frozenset[str] = frozenset(("fl", "fl.", "fluid"))
FLUID_OUNCE = ("volume", 29.5735295625e-6)

# General period words, in days; also read as durations ("a fortnight" = "14 days").
# French "décade" (ten days) and Portuguese "quinzena" only where unambiguous.
PERIODS: dict[float, str] = {
    14.0: "fortnight fortnights quindicina quindicine quinzena quinzenas quincena quincenas "
    "quinzaine quinzaines",
    182.625: "semester semesters semestre semestri semestres halbjahr",
    3652.5: "decade decades decennio decenni década décadas decadas décennie décennies "
    "jahrzehnt jahrzehnte jahrzehnten",
    36525.0: "century centuries secolo secoli século séculos siglo siglos siècle siècles "
    "jahrhundert jahrhunderte jahrhunderten",
    365250.0: "millennium millennia millenni millennio milênio milénio milênios milénios "
    "milenio milenios millénaire millénaires jahrtausend jahrtausende jahrtausenden",
}


# Their adjectives: periods of an amount only ("€90 fortnightly", "semestrale").
PERIOD_ADJECTIVES: dict[float, str] = {
    14.0: "fortnightly quindicinale quinzenal quincenal",
    182.625: "semiannual semestrale semestral semestriel halbjährlich",
}


def period_units() -> tuple[dict[str, float], dict[str, tuple[str, float]]]:
    days: dict[str, float] = {}
    units: dict[str, tuple[str, float]] = {}
    for span, names in PERIODS.items():
        for name in names.split():
            days[name] = span
            units[name] = ("duration", span * 86400.0)
    for span, names in PERIOD_ADJECTIVES.items():
        days.update(dict.fromkeys(names.split(), span))
    return days, units


# Crowns: Swedish, Norwegian, Danish and Icelandic share "kr"; read as one currency,
# never compared with one of the four codes.
CROWNS = "kr kr. krone kroner krona króna krónur kronen corona corone coroa coroas couronne"
# Active ISO 4217 codes missing from the first table. Codes that are words or common
# abbreviations in one of the six languages (ALL, BAM, BOB, BSD, BTN, CRC, CUP, GEL,
# MAD, MOP, MUR, PEN, SCR, SDG, SHP, SOS, TOP, AWG, AMD) stay out.
ISO_CODES = """
    AFN AOA ARS AZN BBD BDT BGN BHD BIF BMD BND BWP BYN BZD CDF CLF CVE DJF DOP DZD
    EGP ERN ETB FJD FKP GHS GIP GMD GNF GTQ GYD HNL HTG IQD IRR ISK JMD JOD KES KGS KHR
    KMF KPW KWD KYD KZT LAK LBP LKR LRD LSL LYD MDL MGA MKD MMK MNT MRU MVR MWK MYR MZN
    NAD NIO NPR OMR PGK PKR PYG QAR RSD RWF SBD SLE SRD SSP STN SYP SZL TJS TMT TND TTD
    TWD TZS UGX UYU UZS VES VUV WST XAF XCD XOF XPF YER ZMW
"""
# Currency signs of the codes above (the rupee sign "₨" is shared: left out).
SIGNS = {"₱": "PHP", "₸": "KZT", "₼": "AZN", "₾": "GEL", "₮": "MNT", "₭": "LAK", "₲": "PYG"}
SIGNS |= {"₵": "GHS", "₡": "CRC", "৳": "BDT"}


def more_currencies() -> dict[str, str]:
    table = {name: "crown" for name in CROWNS.split()}
    for code in ISO_CODES.split():
        table[code.lower()] = code
    table.update(SIGNS)
    return table
