"""The README is the front door: short, and every link and picture in it leads somewhere.

The pages behind it (docs/) are checked by ``mkdocs build --strict`` (``make docs``, CI),
which fails on a link to a missing page or heading; the README is not part of that
site, so its links are checked here.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
MAX_LINES = 150

# [text](target) and ![alt](target); the text holds no bracket, the target no space or
# parenthesis, so each character is looked at a bounded number of times.
LINK = re.compile(r"\[[^\[\]\n]*\]\(([^()\s]+)\)")
HEADING = re.compile(r"^#{1,6}[ \t]+(.+)$", re.MULTILINE)


def _slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to -."""
    kept = "".join(c for c in heading.strip().lower() if c.isalnum() or c in " -_")
    return kept.replace(" ", "-")


def _local_targets(text: str) -> list[str]:
    outside = ("http://", "https://", "mailto:")
    return [t for t in LINK.findall(text) if not t.startswith(outside)]


def _problem(target: str) -> str:
    """Why a relative link of the README leads nowhere, or "" when it resolves."""
    path, _, anchor = unquote(target).partition("#")
    file = (ROOT / path) if path else README
    if not file.is_file():
        return f"{target}: no such file"
    if anchor and file.suffix == ".md":
        slugs = {_slug(h) for h in HEADING.findall(file.read_text(encoding="utf-8"))}
        if anchor not in slugs:
            return f"{target}: no heading #{anchor} in {path or 'README.md'}"
    return ""


def test_the_readme_is_a_short_front_door():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_LINES, f"README.md has {len(lines)} lines; move detail to docs/"
    text = "\n".join(lines)
    assert "make run" in text and "make test" in text  # the two commands


def test_every_link_and_picture_in_the_readme_resolves():
    targets = _local_targets(README.read_text(encoding="utf-8"))
    assert any(t.endswith(".png") for t in targets)  # the screenshot
    assert any(t.startswith("docs/") and t.endswith(".md") for t in targets)
    assert [p for p in map(_problem, targets) if p] == []


def test_the_link_check_finds_a_broken_link_and_a_missing_heading():
    assert _problem("docs/no-such-page.md") == "docs/no-such-page.md: no such file"
    assert _problem("README.md#two-commands") == ""
    assert _problem("#no-such-heading").endswith("no heading #no-such-heading in README.md")
    text = "![a](docs/x.png) [b](https://example.org/) [c [d](e.md) [f](g.md#h)"
    assert _local_targets(text) == ["docs/x.png", "e.md", "g.md#h"]
