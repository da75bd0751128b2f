"""Types for names extraction proposes, read from the evidence around them.

Signals, strongest first: the syntax of a code name (``f()`` is a function, ``--x``
an option), the noun a text puts next to the name ("the X library", "X is a
protocol", an acronym's expansion "... Encoding Rules"), the section's heading, then
spaCy's label. The vocabulary is ``settings.KGSITE_ENTITY_TYPES``.
"""

from __future__ import annotations

import re

from django.conf import settings

# Head nouns that say what a thing is. The noun ends the phrase ("the X library",
# "Distinguished Encoding Rules") or follows the copula ("X is a protocol").
HEAD_NOUNS: dict[str, str] = {
    **dict.fromkeys(
        (
            "library",
            "libraries",
            "module",
            "modules",
            "package",
            "api",
            "apis",
            "sdk",
            "framework",
            "toolkit",
            "bindings",
            "binding",
        ),
        "library",
    ),
    **dict.fromkeys(("protocol", "protocols"), "protocol"),
    **dict.fromkeys(
        (
            "standard",
            "standards",
            "specification",
            "notation",
            "rules",
            "recommendation",
            "rfc",
            "syntax",
        ),
        "standard",
    ),
    **dict.fromkeys(("format", "formats", "encoding", "file", "files", "schema"), "format"),
    **dict.fromkeys(
        (
            "program",
            "programs",
            "application",
            "tool",
            "utility",
            "editor",
            "browser",
            "server",
            "service",
            "system",
            "platform",
            "compiler",
            "interpreter",
            "shell",
            "port",
            "software",
            "runtime",
            "daemon",
        ),
        "software",
    ),
    **dict.fromkeys(("command", "commands", "subcommand"), "command"),
    **dict.fromkeys(("function", "functions", "method", "methods", "call", "macro"), "function"),
    **dict.fromkeys(("class", "classes", "type", "types", "struct", "structure"), "class"),
    **dict.fromkeys(
        (
            "option",
            "options",
            "flag",
            "flags",
            "variable",
            "variables",
            "setting",
            "constant",
            "parameter",
            "configuration",
            "key",
        ),
        "option",
    ),
    **dict.fromkeys(
        (
            "foundation",
            "organization",
            "organisation",
            "consortium",
            "union",
            "institute",
            "association",
            "company",
            "corporation",
            "inc",
            "committee",
            "group",
            "society",
            "project",
            "team",
        ),
        "organization",
    ),
    **dict.fromkeys(("license", "licence", "agreement", "book", "manual", "paper"), "work"),
}

# spaCy labels as one signal among others (never decisive for code-like names).
NER_TYPES = {
    "PERSON": "person",
    "ORG": "organization",
    "GPE": "place",
    "LOC": "place",
    "FAC": "place",
    "EVENT": "event",
    "WORK_OF_ART": "work",
    "LAW": "work",
    "PRODUCT": "software",
    "LANGUAGE": "concept",
    "NORP": "concept",
}

_OPTION = re.compile(r"^--?[A-Za-z][\w-]*(?:=\S*)?$")
_CALL = re.compile(r"^[A-Za-z_$][\w$]*(?:[.:#][A-Za-z_$][\w$]*)*\(\)$")
_DOTTED = re.compile(
    r"^(?P<head>[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\.(?P<last>[A-Za-z_$][\w$]*)$"
)
_CONSTANT = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")
_SNAKE = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$")
_CAMEL = re.compile(r"^[a-z]+[0-9]*[A-Z][A-Za-z0-9]*$")
_PASCAL = re.compile(r"^[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+$")
_FILE = re.compile(
    r"^[\w.-]+\.(?:h|hpp|c|cc|py|js|mjs|cjs|ts|rs|go|java|rb|txt|md|json|ya?ml|toml|xml|cfg|conf|ini|asn|proto|sh)$"
)
_STANDARD = re.compile(
    r"^(?:RFC|ISO(?:/IEC)?|IEC|IEEE|ECMA|ITU-T|ANSI|PEP|BCP|STD|FIPS)[ -]?[\w.-]*\d"
    r"|^[A-Z]\.\d{2,4}$"
)
_MAN_PAGE = re.compile(r"^[a-z_][\w.-]*\(\d\w?\)$")


# The sections of the Unix manual (a closed, standard numbering): what a page of each
# section documents. 4 (devices) and 7 (overviews, conventions) name no single kind.
MAN_SECTIONS = {
    "1": "command",  # user commands
    "2": "function",  # system calls
    "3": "function",  # library calls
    "5": "format",  # file formats and conventions
    "6": "command",  # games
    "8": "command",  # administration commands
}


def man_section_type(section: str) -> str | None:
    """The type a manual reference's section gives its name ("ls(1)" a command,
    "printf(3)" a function, "passwd(5)" a file format), or None."""
    return MAN_SECTIONS.get(section[:1])


def known_types() -> dict[str, str]:
    return dict(settings.KGSITE_ENTITY_TYPES)


def type_from_noun(noun: str) -> str | None:
    """The type a head noun stands for ("library" -> library), if any."""
    return HEAD_NOUNS.get(noun.casefold().strip(".,;:"))


def type_from_syntax(name: str) -> str | None:
    """The type a code name's own syntax gives away, or None for a plain word."""
    if _OPTION.match(name) or _MAN_PAGE.match(name) or _CALL.match(name):
        return type_written(name)  # an unknown manual section included: None
    if _STANDARD.match(name):
        return "standard"
    if _FILE.match(name):
        return "format" if not name.endswith((".h", ".hpp", ".c", ".py", ".js")) else "other"
    if _CONSTANT.match(name):
        return "option"
    if dotted := _DOTTED.match(name):
        last = dotted.group("last")
        if _CONSTANT.match(last) or last.isupper():
            return "option"  # module.CONSTANT
        if last[:1].isupper():
            return "class"  # module.Class
        return None  # module.member: a function, an option or a sub-module, by context
    if _PASCAL.match(name):
        return "class"
    if _SNAKE.match(name) or _CAMEL.match(name):
        return None  # an identifier: its context says which
    return None


def type_written(name: str) -> str | None:
    """The type a name's writing leaves no doubt about: ``f()`` a function, ``--x`` an
    option, ``name(N)`` what the manual's section N documents (None otherwise: a dotted
    or capitalised identifier may be one of several kinds)."""
    if _OPTION.match(name):
        return "option"
    if _MAN_PAGE.match(name):
        return man_section_type(name[name.rindex("(") + 1 :])
    if _CALL.match(name):
        return "function"
    return None


def is_code_name(name: str) -> bool:
    """Written the way code is: dots, underscores, parentheses, inner capitals, dashes."""
    return bool(
        _OPTION.match(name)
        or _CALL.match(name)
        or _MAN_PAGE.match(name)
        or _CONSTANT.match(name)
        or _SNAKE.match(name)
        or _CAMEL.match(name)
        or _DOTTED.match(name)
        or _FILE.match(name)
    )
