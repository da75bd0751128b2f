"""URL converters: a numeric id beyond a 64-bit column is no id at all (404), not a 500."""

from __future__ import annotations

# The largest value of a BigAutoField on every database we run on.
MAX_ID = 2**63 - 1


def parse_id(raw: object) -> int | None:
    """A database id written in ASCII digits (``"12"``), else None: other digits that
    ``str.isdigit`` accepts ("²", "①") and numbers beyond a 64-bit column are no id."""
    if not isinstance(raw, str) or not (raw.isascii() and raw.isdigit()) or len(raw) > 19:
        return None
    number = int(raw)
    return number if number <= MAX_ID else None


class IdConverter:
    regex = "[0-9]{1,19}"

    def to_python(self, value: str) -> int:
        number = int(value)
        if number > MAX_ID:
            raise ValueError("out of range")  # Django: this route does not match
        return number

    def to_url(self, value: int) -> str:
        return str(value)
