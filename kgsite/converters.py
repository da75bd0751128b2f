"""URL converters: a numeric id beyond a 64-bit column is no id at all (404), not a 500."""

from __future__ import annotations

# The largest value of a BigAutoField on every database we run on.
MAX_ID = 2**63 - 1


class IdConverter:
    regex = "[0-9]{1,19}"

    def to_python(self, value: str) -> int:
        number = int(value)
        if number > MAX_ID:
            raise ValueError("out of range")  # Django: this route does not match
        return number

    def to_url(self, value: int) -> str:
        return str(value)
