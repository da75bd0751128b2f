"""Every answer under /api/ is the JSON error shape, whatever DEBUG says.

Django renders its own pages for errors that happen before or around a view: the debug
page (traceback, local variables, settings) with ``DEBUG`` on, an HTML 400 for a body
over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` or too many fields. This middleware sits first, so it
sees every answer: an exception raised in an API view becomes the JSON shape with no
internals, a request body over the limits is refused before anything reads it, and any
other error page under /api/ is replaced by the shape with the same status. A NUL
character in the address or a query parameter is refused (400 naming it) for pages and
API alike: no database column can hold one.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.exceptions import (
    BadRequest,
    PermissionDenied,
    RequestDataTooBig,
    SuspiciousOperation,
    TooManyFieldsSent,
)
from django.db import OperationalError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.utils.cache import add_never_cache_headers
from django.utils.html import escape

from kgsite.api import API_PREFIX, error_body

logger = logging.getLogger("kgsite.api")

# The answer for each status when the error page itself says nothing we may repeat.
_GENERIC = {
    400: ("invalid", "bad request"),
    401: ("not_authenticated", "authentication credentials were not provided"),
    403: ("permission_denied", "you may not do this"),
    404: ("not_found", "not found"),
    405: ("method_not_allowed", "method not allowed"),
    413: ("too_large", "the request body is too large"),
    429: ("throttled", "too many requests"),
}

# Seconds a client is asked to wait when the database is busy (issue 27): a write waits
# ``KGSITE_DB_BUSY_TIMEOUT`` for the lock, then the client is told to come back.
BUSY_RETRY_AFTER = 2
BUSY_MESSAGE = "the database is busy with other writes; retry in a moment"


def is_lock_timeout(exc: BaseException) -> bool:
    """Whether ``exc`` is a lock wait that ran out (SQLite's "database is locked" after
    its busy timeout, PostgreSQL's lock_timeout), not another database failure."""
    if not isinstance(exc, OperationalError):
        return False
    cause = exc.__cause__ or exc
    if getattr(cause, "sqlstate", None) == "55P03" or getattr(cause, "pgcode", None) == "55P03":
        return True  # lock_not_available
    message = str(exc).lower()
    return "database is locked" in message or "database table is locked" in message


def busy_response(request: HttpRequest) -> HttpResponse:
    """503 with Retry-After: the JSON error shape under /api/, a short page elsewhere."""
    if _is_api(request):
        response = JsonResponse(error_body("busy", BUSY_MESSAGE), status=503)
    else:
        response = HttpResponse(
            f"<!doctype html><title>Busy</title><p>{BUSY_MESSAGE.capitalize()}.</p>",
            status=503,
        )
    response["Retry-After"] = str(BUSY_RETRY_AFTER)
    return response


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith(API_PREFIX)


def _is_json(response: HttpResponse) -> bool:
    return response.get("Content-Type", "").startswith("application/json")


def body_limit(request: HttpRequest) -> int:
    """The largest body accepted: an upload may be bigger than any other request."""
    if request.content_type == "multipart/form-data":
        return settings.KGSITE_MAX_UPLOAD_BYTES + settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return settings.DATA_UPLOAD_MAX_MEMORY_SIZE


def too_large(limit: int) -> JsonResponse:
    body = error_body("too_large", f"the request body is over the limit of {limit} bytes")
    return JsonResponse(body, status=413)


def exception_response(exc: Exception) -> JsonResponse:
    """The JSON answer for an exception that escaped an API view: never its text, which
    may hold SQL, paths or settings."""
    if isinstance(exc, RequestDataTooBig):
        return too_large(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
    if isinstance(exc, TooManyFieldsSent):
        limit = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
        return JsonResponse(error_body("invalid", f"more than {limit} fields sent"), status=400)
    if isinstance(exc, SuspiciousOperation | BadRequest):
        return JsonResponse(error_body(*_GENERIC[400]), status=400)
    if isinstance(exc, Http404):
        return JsonResponse(error_body(*_GENERIC[404]), status=404)
    if isinstance(exc, PermissionDenied):
        return JsonResponse(error_body(*_GENERIC[403]), status=403)
    if isinstance(exc, OverflowError):
        # An integer beyond 64 bits reaching SQLite: bad input, not a server fault.
        return JsonResponse(error_body("invalid", "a number is out of range"), status=400)
    if isinstance(exc, RecursionError):
        return JsonResponse(error_body("invalid", "the request is nested too deeply"), status=400)
    logger.error("unhandled error under /api/", exc_info=exc)
    return JsonResponse(error_body("server_error", "internal server error"), status=500)


def _nul_field(request: HttpRequest) -> str | None:
    """The address part or query parameter holding a NUL character, which no database
    column can hold (PostgreSQL refuses it outright): "path", or the parameter's name.
    (Form fields are the forms' business: they say what is wrong beside the field.)"""
    if "\x00" in request.path:
        return "path"
    for key, values in request.GET.lists():
        if "\x00" in key or any("\x00" in value for value in values):
            return key.replace("\x00", "")
    return None


def nul_refusal(request: HttpRequest) -> HttpResponse | None:
    """400 naming where a NUL character was sent, before any view reads it."""
    field = _nul_field(request)
    if field is None:
        return None
    message = f"{field} contains a NUL character"
    if _is_api(request):
        return JsonResponse(error_body("invalid", message, field), status=400)
    sentence = escape(message[:1].upper() + message[1:])
    return HttpResponse(f"<!doctype html><title>Bad request</title><p>{sentence}.</p>", status=400)


class ApiErrorMiddleware:
    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        refused = nul_refusal(request)
        if refused is not None:
            return refused
        if not _is_api(request):
            return self.get_response(request)
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return JsonResponse(error_body("invalid", "bad Content-Length"), status=400)
        limit = body_limit(request)
        if length > limit:
            return too_large(limit)
        response = self.get_response(request)
        if response.status_code >= 400 and not _is_json(response):
            code, message = _GENERIC.get(response.status_code, ("error", "request failed"))
            if response.status_code >= 500:
                code, message = "server_error", "internal server error"
            replacement = JsonResponse(error_body(code, message), status=response.status_code)
            for header in ("Allow", "Retry-After", "WWW-Authenticate"):
                if header in response:
                    replacement[header] = response[header]
            return replacement
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if is_lock_timeout(exception):
            logger.warning("database busy: %s %s answered 503", request.method, request.path)
            return busy_response(request)
        if not _is_api(request):
            return None
        return exception_response(exception)


class FreshPagesMiddleware:
    """A curator's pages are never kept by the browser: Back after a merge, a dismissal or
    a resolution asks the server again instead of showing the queue (and its counts) as
    it was before the action, with buttons for what is already done. Answers that say
    how long they may be kept (the favicon, static files) are left as they are."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        user = getattr(request, "user", None)
        if (
            user is not None
            and user.is_authenticated
            and not _is_api(request)
            and "Cache-Control" not in response
            and response.get("Content-Type", "").startswith("text/html")
        ):
            add_never_cache_headers(response)
        return response
