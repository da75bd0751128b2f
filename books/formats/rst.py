"""reStructuredText and roff manual sources to Markdown, so one outline serves them all.

docutils is not a dependency, and a Sphinx document is full of roles and directives
plain docutils rejects (``:func:``, ``.. autoclass::``); the structure we need is small:

* reStructuredText: titles over- and/or underlined (levels by the order in which each
  adornment style first appears, as docutils assigns them), ``.. rubric::`` headings,
  roles (``:pep:`8``` → "PEP 8", ``:func:`~pkg.run``` → ```run```), inline literals,
  literal blocks (``::`` and code directives, fenced so they are read as code), and
  directives, comments and link targets dropped with their markers.
* roff (``.TH``/``.SH``/``.SS`` manual sources): section and subsection requests become
  headings, font escapes and other requests disappear, ``.TP`` tags stay as lines.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_ADORNMENT = re.compile(r"^([=\-~^\"'`#*+:.<>_!$%&,;?@\\/|])\1{2,}[ \t]*$")
_ROLE = re.compile(r":(?P<role>[\w.+-]+(?::[\w.+-]+)?):`(?P<text>[^`\n]+)`")
_LITERAL = re.compile(r"``(?P<code>[^`\n]+?)``")
_DIRECTIVE = re.compile(r"^(?P<indent>[ \t]*)\.\.[ \t]+(?P<name>[\w:.+-]+)::[ \t]*(?P<arg>.*)$")
_COMMENT = re.compile(r"^(?P<indent>[ \t]*)\.\.(?:[ \t]+(?:_[^:]*:.*|\[[^\]]*\].*|[^:]*))?$")
# A substitution definition (``.. |name| replace:: text``, ``.. |logo| image:: x.png``).
_SUBSTITUTION = re.compile(
    r"^[ \t]*\.\.[ \t]+\|(?P<name>[^|\n]+)\|[ \t]+(?P<kind>[\w:.+-]+)::[ \t]*(?P<arg>.*)$"
)
_CODE_DIRECTIVES = frozenset({"code", "code-block", "sourcecode", "literalinclude", "doctest"})
# Directives whose argument is a path, a format or a setting, not prose; and those whose
# body is not prose either (a table of contents' entries, raw HTML, index entries).
_ARGUMENT_NOT_TEXT = frozenset(
    {"image", "figure", "include", "raw", "only", "index", "toctree", "highlight"}
    | {"contents", "sectnum", "currentmodule", "default-role", "tabularcolumns"}
)
_BODY_NOT_TEXT = frozenset({"toctree", "raw", "index", "meta", "tabularcolumns", "graphviz"})
# A footnote's or a citation's text (``.. [#] text``, ``.. [CIT2002] text``).
_NOTE = re.compile(r"^[ \t]*\.\.[ \t]+\[(?P<label>[^\]\n]+)\](?:[ \t]+(?P<text>.*))?$")
# A footnote's label (``[#]``, ``[#name]``, ``[*]``, ``[3]``; any other is a citation's),
# and its mark in the text, with the blanks before it (taken from a run's start: a
# pattern free to start inside a long run of blanks re-read it from every position).
_FOOTNOTE_LABEL = r"#[\w-]*|\*|\d+"
_FOOTNOTE_MARK = re.compile(rf"(?<![ \t])[ \t]*\[(?:{_FOOTNOTE_LABEL})\]_(?!\w)")
# A directive's option (``:caption: Flying``), a field of its own line.
_FIELD = re.compile(r"^\s*:\w[\w-]*:")
# Roles whose text is a standard's number.
_NUMBERED_ROLES = {"pep": "PEP", "rfc": "RFC"}
# A hyperlink with its target: the text and the blanks before "<" in one run of what
# may precede it, so no position is read twice.
_LINK = re.compile(r"`(?P<written>[^`\n<]++)<[^<>\n]+>`_{1,2}")
_CODEISH = re.compile(r"[._()\[\]]|^[a-z]+[A-Z]|^[A-Z][a-z]+[A-Z]")


def _role(match: re.Match) -> str:
    role = match.group("role").rsplit(":", 1)[-1].casefold()
    text = match.group("text").strip()
    if role in _NUMBERED_ROLES:
        return f"{_NUMBERED_ROLES[role]} {text}"
    text = _target_text(text) or text
    if text.startswith("~"):
        text = text[1:].rsplit(".", 1)[-1]
    text = text.lstrip("!")
    return f"`{text}`" if _CODEISH.search(text) or " " not in text else text


def _target_text(text: str) -> str | None:
    """A role's or a link's text before its target ("the rules <rules.html>" -> "the
    rules"), None without a target. One search from the right: a lazy text followed by
    blanks (``(.*?)\\s*<[^<>]+>$``) re-read a long run of blanks once per blank."""
    start = text.rfind("<")
    if start < 0 or not text.endswith(">") or ">" in text[start + 1 : -1] or len(text) - start < 3:
        return None
    return text[:start].rstrip()


def _link_text(match: re.Match) -> str:
    """`text <url>`_ reads as its text (its first character if all blank)."""
    written = match.group("written")
    return written.rstrip() or written[0]


def _inline(line: str) -> str:
    line = _ROLE.sub(_role, line)
    line = _LITERAL.sub(lambda m: f"`{m.group('code')}`", line)
    line = _LINK.sub(_link_text, line)  # `text <url>`_
    line = re.sub(r"(?<![`\w])`([^`\n]+)`_{1,2}(?![\w`])", r"\1", line)  # `the rules`_
    line = _FOOTNOTE_MARK.sub("", line)  # footnote marks: [#]_
    return re.sub(r"\[([A-Za-z][\w.-]*)\]_(?!\w)", r"[\1]", line)  # citations: [CIT2002]_


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _title(lines: list[str], i: int, styles: dict[str, int]) -> tuple[str, int] | None:
    """A Markdown heading for the title at line ``i`` and the lines it takes, if any."""
    line = lines[i]
    nxt = lines[i + 1] if i + 1 < len(lines) else ""
    after = lines[i + 2] if i + 2 < len(lines) else ""
    over = _ADORNMENT.match(line)
    under = _ADORNMENT.match(after)
    if over and nxt.strip() and under and under.group(1) == over.group(1):
        level = styles.setdefault("over" + over.group(1), len(styles) + 1)
        return f"{'#' * min(level, 6)} {_inline(nxt.strip())}", 3
    under = _ADORNMENT.match(nxt)
    title = line.strip()
    if title and not line[:1].isspace() and under and len(nxt.strip()) >= len(title) - 1:
        level = styles.setdefault(under.group(1), len(styles) + 1)
        return f"{'#' * min(level, 6)} {_inline(title)}", 2
    return None


def _block(
    lines: list[str], i: int, directive: re.Match | None, styles: dict[str, int], base: int
) -> tuple[list[str], int]:
    """A directive (or the literal block after ``::``, indented beyond ``base``) as
    Markdown, and where it ends."""
    block_indent = _indent(lines[i]) if directive else base
    name = directive.group("name").casefold() if directive else "::"
    j = i + 1 if directive else i
    body: list[str] = []
    while j < len(lines) and (not lines[j].strip() or _indent(lines[j]) > block_indent):
        body.append(lines[j])
        j += 1
    while body and not body[-1].strip():
        body.pop()
    depth = min((_indent(b) for b in body if b.strip()), default=0)
    if directive and name == "rubric":
        level = max(len(styles) + 1, 2)  # below the deepest title so far, taking no style
        return [f"{'#' * min(level, 6)} {_inline(directive.group('arg').strip())}", ""], j
    if name in _CODE_DIRECTIVES or name == "::":
        code = body if name == "::" else _without_options(body)
        depth = min((_indent(b) for b in code if b.strip()), default=0)
        return (["```", *(b[depth:] for b in code), "```", ""] if code else []), j
    out: list[str] = []
    argument = directive.group("arg").strip() if directive else ""
    if argument and ":" not in name and name not in _ARGUMENT_NOT_TEXT:
        out.append(_inline(argument))
    if name not in _BODY_NOT_TEXT:
        out += [_inline(b[depth:]) for b in body if not _FIELD.match(b)]
    return [*out, ""], j


def _note(lines: list[str], i: int) -> tuple[list[str], int] | None:
    """A footnote or citation (``.. [#] text``, ``.. [CIT2002] text``) as its text, a
    citation after its label, and where it ends; None for another line."""
    note = _NOTE.match(lines[i])
    if note is None:
        return None
    label = note.group("label")
    prefix = "" if re.fullmatch(_FOOTNOTE_LABEL, label) else f"[{label}] "
    out = [_inline(prefix + (note.group("text") or "").strip())]
    j = i + 1
    while j < len(lines) and lines[j].strip() and _indent(lines[j]) > _indent(lines[i]):
        out.append(_inline(lines[j].strip()))
        j += 1
    return [*out, ""], j


def _without_options(body: list[str]) -> list[str]:
    """A directive's content without the options that open it (``:linenos:``,
    ``:caption: ...``) and the blank lines before it."""
    start = 0
    while start < len(body) and (_FIELD.match(body[start]) or not body[start].strip()):
        start += 1
    return body[start:]


def rst_to_markdown(text: str) -> str:
    """Markdown carrying the same text and outline as the reStructuredText source."""
    lines = text.split("\n")
    out: list[str] = []
    styles: dict[str, int] = {}
    i = 0
    literal_after = False  # the previous paragraph ended with "::"
    base = 0  # its indentation
    while i < len(lines):
        line = lines[i]
        if title := _title(lines, i, styles):
            out += [title[0], ""]
            i += title[1]
            continue
        directive = _DIRECTIVE.match(line)
        if directive or (literal_after and line.strip() and _indent(line) > base):
            block, i = _block(lines, i, directive, styles, base)
            out += block
            literal_after = False
            continue
        if note := _note(lines, i):
            out += note[0]
            i = note[1]
            continue
        if (_COMMENT.match(line) or _SUBSTITUTION.match(line)) and line.strip():
            i += 1
            while i < len(lines) and lines[i].strip() and _indent(lines[i]) > _indent(line):
                i += 1
            continue
        if line.strip():
            literal_after = line.rstrip().endswith("::")
            base = _indent(line)
            line = line.rstrip()[:-1] if literal_after else line
        out.append(_inline(line))
        i += 1
    return "\n".join(_substituted(out, lines))


def _substituted(markdown: list[str], source: list[str]) -> list[str]:
    """The Markdown lines with each defined ``|name|`` (or ``|name|_``) replaced by its
    text (``replace::``; nothing for an image or another directive), outside code."""
    texts = {
        found.group("name").strip(): (
            _inline(found.group("arg").strip()) if found.group("kind") == "replace" else ""
        )
        for found in map(_SUBSTITUTION.match, source)
        if found
    }
    if not texts:
        return markdown
    reference = re.compile(
        r"\|(?P<name>" + "|".join(re.escape(name) for name in texts) + r")\|(?:__?)?"
    )
    fenced = False
    out = []
    for line in markdown:
        fenced ^= line.startswith("```")
        out.append(line if fenced else reference.sub(lambda m: texts[m.group("name")], line))
    return out


# --- roff ------------------------------------------------------------------------------

# One pass over a line's escapes, left to right (so ``\en`` stays the text "\n"):
# named characters (``\(co``, ``\[em]``, ``\[u00E9]``), interpolated strings
# (``\*(L"``), characters written as escapes (``\-``, ``\e``), and what prints nothing:
# fonts, sizes, colours, motions (``\h'..'``, ``\u``), number registers, italic
# corrections and thin spaces (help2man's ``\,`` and ``\/``, DocBook's ``\m[blue]``,
# Pod::Man's ``\|``), and a comment to the line's end. A bracketed name ends before a
# backslash (one free to run past it re-read the rest of the line from every ``\[``).
_ROFF_ESCAPE = re.compile(
    r"\\(?:\((?P<glyph>..)|\[(?P<glyph_long>[^\]\s\\]+)\]"
    r"|\*(?:\[(?P<string_long>[^\]\n\\]*)\]|\((?P<string>..)|(?P<string_one>[^(\[\n]))"
    r"|(?P<char>[-e ~0\\])"
    r"|[fFmMn](?:\[[^\]\n\\]*\]|\(..|[^\[(\n])"
    r"|s(?:\[[^\]\n\\]*\]|[+-]?\(\d\d|[+-]?\d)"
    r"|[hvwxlLDNSHR](?P<q>['\"|]).*?(?P=q)"
    r"|k.|\".*|[&c:%,/|^)duz])"
)
_ROFF_CHARS = {"-": "-", "e": "\\", " ": " ", "~": " ", "0": " ", "\\": "\\"}
# Named characters; a name not listed prints nothing.
_ROFF_GLYPHS = {
    "em": "—",
    "en": "–",
    "bu": "•",
    "aq": "'",
    "dq": '"',
    "lq": "“",
    "rq": "”",
    "oq": "‘",
    "cq": "’",
    "hy": "-",
    "co": "©",
    "rg": "®",
    "tm": "™",
    "de": "°",
    "mu": "×",
    "+-": "±",
    "<=": "≤",
    ">=": "≥",
    "!=": "≠",
    "->": "→",
    "<-": "←",
    "ga": "`",
    "ti": "~",
    "ha": "^",
    "rs": "\\",
    "sl": "/",
    "Fo": "«",
    "Fc": "»",
}
# Strings the man macros and Pod::Man define (its ``C``` and ``C'`` mark code); the
# definitions themselves are requests, never read. Another prints nothing.
_ROFF_STRINGS = {
    'L"': "“",
    'R"': "”",
    "lq": "“",
    "rq": "”",
    "C`": "`",
    "C'": "`",
    "Aq": "'",
    "--": "—",
    "PI": "π",
    "C+": "C++",
    "R": "®",
    "Tm": "™",
}
_ROFF_REQUEST = re.compile(r"^[.'][ \t]*(?P<name>[A-Za-z]{1,3})\b[ \t]*(?P<args>.*)$")
_FONT_REQUESTS = frozenset({"B", "I", "BR", "RB", "BI", "IB", "IR", "RI", "SM", "SB"})
# A macro definition (``.de``, ``.am``) or an ignored block (``.ig``): lines up to ``..``
# are the macro's body, never the page's text.
_ROFF_DEFINITION = re.compile(r"^[.'][ \t]*(?:de|de1|am|am1|ig)(?:[ \t]|$)")


# mdoc (BSD manual pages): macros whose arguments are the page's words. Enclosures wrap
# the rest of the line; "Fl" makes a flag of the next word; the others print their words.
_MDOC_ENCLOSE = {
    "Op": ("[", "]"),
    "Bq": ("[", "]"),
    "Pq": ("(", ")"),
    "Dq": ("“", "”"),
    "Sq": ("‘", "’"),
    "Ql": ("‘", "’"),
    "Qq": ('"', '"'),
    "Brq": ("{", "}"),
    "Aq": ("<", ">"),
}
_MDOC_WORDS = frozenset(
    {"Nm", "Nd", "Fl", "Ar", "Cm", "Ic", "Em", "Sy", "Li", "Pa", "Va", "Ev", "Dv", "Er"}
    | {"Fa", "Fn", "Ft", "Fo", "Sx", "Tn", "Ad", "Cd", "Ms", "Mt", "Lk", "No", "An", "Lb"}
    | {"It", "D1", "Dl", "Xr", "Ns", "Pf", "Oo", "Oc", "Nx", "Bx", "Ux", "At"}
    | set(_MDOC_ENCLOSE)
)
_MDOC_PUNCT = frozenset({".", ",", ";", ":", "?", "!", ")", "]"})


def _mdoc(words: list[str], names: list[str]) -> str:
    """One mdoc line's words as printed (``Op Fl v`` is "[-v]", ``Xr spool 1`` is
    "spool(1)"); ``names`` remembers the page's ``Nm`` for a bare ``Nm``."""
    out = ""
    glue = False  # the next word joins the previous one (after Fl, Ns, Pf)
    i = 0
    while i < len(words):
        word, nxt = words[i], words[i + 1] if i + 1 < len(words) else None
        i += 1
        if word in _MDOC_ENCLOSE:
            rest, tail = words[i:], []
            while rest and rest[-1] in _MDOC_PUNCT:
                tail.insert(0, rest.pop())
            opening, closing = _MDOC_ENCLOSE[word]
            piece, i = opening + _mdoc(rest, names) + closing + "".join(tail), len(words)
        elif word == "Nm" and (nxt is None or nxt in _MDOC_WORDS or nxt in _MDOC_PUNCT):
            piece = names[0] if names else ""
        elif word == "Nm":  # "Nm kite" names the page: the word itself follows
            names[:] = names or [nxt]
            continue
        elif word == "Xr" and nxt is not None and i + 1 < len(words):
            piece, i = f"{nxt}({words[i + 1]})", i + 2
        elif word == "Ar" and (nxt is None or nxt in _MDOC_WORDS):
            piece = "file ..."
        elif word in ("Fl", "Ns", "Pf"):  # a flag's dash, or no space, before the next
            if word == "Fl":
                out += "-" if glue or not out else " -"
            glue = True
            continue
        elif word in _MDOC_WORDS:
            continue
        else:
            piece = word
        joined = glue or word in _MDOC_PUNCT or not out
        out += piece if joined else f" {piece}"
        glue = False
    return out


def is_roff(text: str) -> bool:
    """A manual page's roff source (rather than a page already rendered to text): a title
    or section request, a roff comment, or a ``.so`` line (a page that only includes
    another); a rendered page has none of them at a line's start."""
    return bool(re.search(r"^(?:\.(?:TH|SH|Dd|Sh|so)\b|[.']\\\")", text, re.M))


def roff_includes(text: str) -> list[str]:
    """The pages a roff source includes (``.so man1/other.1``), in order."""
    return re.findall(r"^\.so[ \t]+(\S+)", text, re.M)


def _roff_args(args: str) -> list[str]:
    return [a.strip('"') for a in re.findall(r'"[^"]*"|\S+', args)]


def _glyph(name: str) -> str:
    if re.fullmatch(r"u[0-9A-Fa-f]{4,6}(?:_[0-9A-Fa-f]{4,6})*", name):  # \[u00E9], \[u0065_0301]
        codes = [int(code.lstrip("u"), 16) for code in name.split("_")]
        return "".join(chr(c) for c in codes if c <= 0x10FFFF and not 0xD800 <= c <= 0xDFFF)
    return _ROFF_GLYPHS.get(name, "")


def _escape(match: re.Match) -> str:
    found = match.groupdict()
    if glyph := found["glyph"] or found["glyph_long"]:
        return _glyph(glyph)
    if string := found["string"] or found["string_long"] or found["string_one"]:
        return _ROFF_STRINGS.get(string, "")
    return _ROFF_CHARS.get(found["char"] or "", "")


def _roff_text(line: str) -> str:
    return _ROFF_ESCAPE.sub(_escape, line)


def _roff_lines(text: str) -> Iterator[str]:
    """The source lines that say something: text and requests. Comments, macro
    definitions (``.de`` up to ``..``) and other control lines (``..``, ``.\\}``) are
    no text of the page."""
    defining = False
    for raw in re.sub(r"(?<!\\)\\\n", "", text).split("\n"):  # "\" ends a continued line
        if defining:
            defining = raw.rstrip() != ".."
        elif _ROFF_DEFINITION.match(raw):
            defining = True
        elif raw.startswith(('.\\"', "'\\\"", ".\\#")) or raw.strip() == ".":
            continue
        elif _ROFF_REQUEST.match(raw) or not raw.startswith((".", "'")):
            yield raw


def roff_to_markdown(text: str) -> str:
    """Markdown with the page's sections (``.SH``, ``.Sh``) and subsections (``.SS``)."""
    out: list[str] = []
    fenced = False  # inside .nf/.EX: a heading closes it (no heading is preformatted)
    names: list[str] = []  # an mdoc page's name (.Nm), for a bare .Nm
    for raw in _roff_lines(text):
        request = _ROFF_REQUEST.match(raw)
        if request is None:
            out.append(_roff_text(raw))
            continue
        name, args = request.group("name"), _roff_text(request.group("args"))
        words = _roff_args(args)
        if name in ("TH", "Dt") and words:  # mdoc's .Dt is man's .TH
            title = f"{words[0]}({words[1]})" if len(words) > 1 else words[0]
            out += [f"# {title}", ""]
        elif name in ("SH", "Sh", "SS", "Ss"):
            if fenced:
                out.append("```")
                fenced = False
            marks = "##" if name in ("SH", "Sh") else "###"
            out += ["", f"{marks} {' '.join(words)}", ""]
        elif name in _MDOC_WORDS:
            out.append(_mdoc([name, *words], names))
        elif name in _FONT_REQUESTS:
            joined = "".join(words) if len(name) == 2 else " ".join(words)
            out.append(joined)
        elif name in ("PP", "LP", "P", "TP", "IP", "sp", "br", "RS", "RE", "Pp"):
            out.append("")
            if name == "IP" and words:
                out.append(words[0])
        elif name in ("nf", "EX", "fi", "EE") and fenced != (name in ("nf", "EX")):
            out.append("```")
            fenced = not fenced
    if fenced:
        out.append("```")
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip() + "\n"
