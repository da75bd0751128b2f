"""One domain error type, mapped to HTTP in one place (``kgsite.api.exception_handler``).

A service words its refusal in English (the API's language) as a template marked with
``gettext_noop`` and its ``params``: ``message`` is the English sentence, ``translated``
the same in the active language, for the pages. A sentence that is no error (a merge's
conflict) is a ``Wording``: English wherever it goes, ``in_page_language`` on a page."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext


def _said(template: str, params: dict[str, Any] | None) -> str:
    text = gettext(template) if template else template
    if params is None:
        return text
    # A sentence inside another (a merge's undo refused for a reason) is said likewise.
    return text % {key: in_page_language(value) for key, value in params.items()}


class Wording(str):
    """An English sentence that remembers its template (marked with ``gettext_noop``) and
    its params, so a page can say it in its own language."""

    template: str
    params: dict[str, Any] | None

    def __new__(cls, template: str, params: dict[str, Any] | None = None) -> Wording:
        text = super().__new__(cls, template % params if params is not None else template)
        text.template, text.params = template, params
        return text

    def stored(self) -> dict[str, Any]:
        """The template and params as JSON (a ``Wording`` among them likewise), for a row
        to keep the sentence and a page to say it later in its language (``restored``)."""
        params = self.params
        if params is not None:
            params = {k: v.stored() if isinstance(v, Wording) else v for k, v in params.items()}
        return {"template": self.template, "params": params}

    @classmethod
    def restored(cls, data: dict[str, Any]) -> Wording:
        """The ``Wording`` that ``stored`` kept."""
        params = data.get("params")
        if params is not None:
            params = {k: cls.restored(v) if isinstance(v, dict) else v for k, v in params.items()}
        return cls(data["template"], params)


def in_page_language(text: Any) -> Any:
    """``text`` in the active language if it is a ``Wording`` (as it is otherwise)."""
    return _said(text.template, text.params) if isinstance(text, Wording) else text


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
        params: dict[str, Any] | None = None,
    ) -> None:
        self.template = message
        self.params = params
        message = message % params if params is not None else message
        super().__init__(message)
        self.message = message
        self.field = field
        # The fact the refusal is about, for a page to name it in its own words; not in
        # the API's body (whose message names it).
        self.fact_id = fact_id
        if code:
            self.code = code
        self.extra = extra or {}

    @property
    def wording(self) -> Wording:
        """The message with its template and params (to store it, and say it later)."""
        return Wording(self.template, self.params)

    @property
    def translated(self) -> str:
        """The message in the active language (a page's); ``message`` stays English."""
        return _said(self.template, self.params)

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
