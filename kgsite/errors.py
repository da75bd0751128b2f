"""One domain error type, mapped to HTTP in one place (``kgsite.api.exception_handler``)."""

from __future__ import annotations

from typing import Any


class DomainError(Exception):
    status = 400
    code = "invalid"

    def __init__(
        self,
        message: str,
        *,
        field: str | None = None,
        code: str | None = None,
        extra: dict[str, Any] | None = None,
        fact_id: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        # The fact the refusal is about, for a page to name it in its own words; not in
        # the API's body (whose message names it).
        self.fact_id = fact_id
        if code:
            self.code = code
        self.extra = extra or {}

    def as_dict(self) -> dict[str, Any]:
        body: dict[str, Any] = {"code": self.code, "message": self.message, "field": self.field}
        body.update(self.extra)
        return {"error": body}


class InvalidInput(DomainError):
    status = 400
    code = "invalid"


class NotFound(DomainError):
    status = 404
    code = "not_found"


class Conflict(DomainError):
    status = 409
    code = "conflict"
