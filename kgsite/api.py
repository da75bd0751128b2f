"""The API root: error shape, permissions and pagination shared by every endpoint."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponsePermanentRedirect,
    JsonResponse,
)
from django.shortcuts import render
from django.urls import Resolver404, resolve
from django.views import defaults
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, permissions
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response

from kgsite.errors import DomainError, InvalidInput, NotFound
from kgsite.pages import is_curator, swap_target


def _authenticated(request) -> bool:
    return bool(request.user and request.user.is_authenticated)


class Reader(permissions.BasePermission):
    """Reads need an authenticated user, unless ``KGSITE_PUBLIC_READ`` opens them.

    Also for the endpoints that read through a POST (search, extraction, the pair check).
    """

    message = "reading needs an authenticated user"

    def has_permission(self, request, view) -> bool:
        return settings.KGSITE_PUBLIC_READ or _authenticated(request)


class CuratorWriteOrReadOnly(Reader):
    """Reads as ``Reader``; writes need an authenticated user with the curator permission."""

    def has_permission(self, request, view) -> bool:
        if request.method in permissions.SAFE_METHODS:
            return super().has_permission(request, view)
        self.message = "writing needs an authenticated curator"
        return is_curator(request.user)


class Recipient(permissions.BasePermission):
    """Notifications: an authenticated user, whatever ``KGSITE_PUBLIC_READ`` says; which
    ones they see is the selectors' business (their own, broadcasts for curators)."""

    message = "notifications need an authenticated user"

    def has_permission(self, request, view) -> bool:
        return _authenticated(request)


class Pagination(PageNumberPagination):
    """DRF's page numbers, with bad input a 400 naming the parameter: DRF answers a
    malformed ``page`` with a 404 naming nothing and ignores a malformed ``page_size``."""

    page_size_query_param = "page_size"
    max_page_size = 500

    def get_page_size(self, request) -> int:
        _positive_param(request, self.page_size_query_param)
        return super().get_page_size(request)

    def get_page_number(self, request, paginator):
        if request.query_params.get(self.page_query_param) not in self.last_page_strings:
            _positive_param(request, self.page_query_param)
        return super().get_page_number(request, paginator)

    def paginate_queryset(self, queryset, request, view=None):
        if view is not None:  # every list endpoint pages through here: one check for all
            query_parameters_check(request, view, also={self.page_query_param,
                                                        self.page_size_query_param})  # fmt: skip
        try:
            return super().paginate_queryset(queryset, request, view)
        except exceptions.NotFound:
            raise NotFound("no such page of this list", field=self.page_query_param) from None


def documented_query_parameters(view, method: str) -> set[str]:
    """The query parameters the OpenAPI operation of ``view``'s ``method`` lists (its
    ``extend_schema(parameters=...)``: parameters and query serializers), read from the
    same declaration drf-spectacular reads, so the schema and the check cannot differ."""
    from drf_spectacular.plumbing import force_instance, is_serializer  # deferred: settings
    from drf_spectacular.utils import OpenApiParameter  # deferred: as the line above

    handler = getattr(view, method.lower(), None)
    schema_class = getattr(handler, "kwargs", {}).get("schema")
    if schema_class is None:
        return set()
    schema = schema_class()
    schema.view, schema.method = view, method.upper()
    names: set[str] = set()
    for parameter in schema.get_override_parameters():
        if isinstance(parameter, OpenApiParameter):
            if parameter.location == OpenApiParameter.QUERY and not parameter.exclude:
                names.add(parameter.name)
        elif is_serializer(parameter):
            fields = force_instance(parameter).fields
            names |= {name for name, f in fields.items() if not f.read_only}
    return names


def query_parameters_check(request, view, *, also: set[str]) -> None:
    """A query parameter the endpoint does not document is a 400 naming it: a list read
    ``?tpye=person`` as no filter at all and answered every entity. ``also``: what the
    list takes besides its filters (the page and its size); DRF's ``format`` is always
    taken."""
    from rest_framework.settings import api_settings  # deferred: it names this module

    accepted = documented_query_parameters(view, request.method) | also
    if api_settings.URL_FORMAT_OVERRIDE:
        accepted.add(api_settings.URL_FORMAT_OVERRIDE)
    unknown = sorted(set(request.query_params) - accepted)
    if unknown:
        listed = ", ".join(sorted(accepted))
        raise InvalidInput(
            f"{unknown[0]}: unknown query parameter (this list takes: {listed})",
            field=unknown[0],
        )


def _positive_param(request, name: str) -> None:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return
    if not (raw.isascii() and raw.isdigit() and int(raw) > 0):
        raise InvalidInput(f"{name} must be a whole number from 1", field=name)


def validated(serializer_class, data) -> dict:
    """``data`` checked by ``serializer_class``; a 400 naming the field when it fails."""
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


def paginated_response(*, view, queryset, serializer_class) -> Response:
    """One page of ``queryset`` in the list shape every list endpoint answers
    (``count``, ``next``, ``previous``, ``results``), after HackSoft's helper."""
    page = view.paginate_queryset(queryset)
    return view.get_paginated_response(serializer_class(page, many=True).data)


def _first_field(detail: Any) -> tuple[str | None, str]:
    """The first offending field and its message from a DRF validation error."""
    if isinstance(detail, dict):
        for key, value in detail.items():
            field, message = _first_field(value)
            # A list item's key is its index, 0 included (falsy, yet a place).
            name = str(key) if key != "non_field_errors" else None
            if field is not None and name is not None:
                name = f"{name}.{field}"
            return (name if name is not None else field), message
    if isinstance(detail, list) and detail:
        return _first_field(detail[0])
    return None, str(detail)


# Error messages and field names are cut here: no answer repeats a client's megabyte.
MAX_ERROR_MESSAGE_CHARS = 1000
MAX_ERROR_FIELD_CHARS = 200


def _cut(text: str | None, limit: int) -> str | None:
    if text is None or len(text) <= limit:
        return text
    return text[: limit - 3] + "..."


def error_body(code: str, message: str, field: str | None = None, **extra: Any) -> dict:
    message = _cut(message, MAX_ERROR_MESSAGE_CHARS) or ""
    field = _cut(field, MAX_ERROR_FIELD_CHARS)
    return {"error": {"code": code, "message": message, "field": field, **extra}}


def exception_handler(exc: Exception, context: dict) -> Response | None:
    """Map every error to ``{"error": {"code", "message", "field"}}``."""
    # deferred: rest_framework.views imports the API settings, which name this module
    from rest_framework.views import exception_handler as drf_exception_handler

    if isinstance(exc, DomainError):
        body = exc.as_dict()
        body["error"].update(error_body(exc.code, exc.message, exc.field)["error"])
        return Response(body, status=exc.status)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        field, message = _first_field(exc.detail)
        response.data = error_body("invalid", f"{field}: {message}" if field else message, field)
    else:
        detail = getattr(exc, "detail", str(exc))
        code = getattr(detail, "code", None) or getattr(exc, "default_code", "error")
        response.data = error_body(str(code), str(detail))
    return response


# --- Django's own error pages, for URLs no API view handles ------------------------------

API_PREFIX = "/api/"


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith(API_PREFIX)


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """handler404: the JSON error shape under /api/, the HTML page elsewhere."""
    if _is_api(request):
        body = error_body("not_found", f"no API endpoint at {request.path}")
        return JsonResponse(body, status=404)
    if getattr(request, "htmx", False):
        # A card's button (resolve, retract) on something deleted since the page was
        # drawn: a fragment for the swapped element, not the whole 404 page inside it.
        return render(request, "_gone.html", {"target": swap_target(request)}, status=404)
    return defaults.page_not_found(request, exception)


API_NOT_FOUND = "api-not-found"


@csrf_exempt
def api_not_found(request: HttpRequest) -> HttpResponse:
    """The last /api/ route: an unknown API URL answers the JSON 404 even with DEBUG on
    (where Django's debug page would replace handler404). A GET missing only its
    trailing slash is still redirected, as APPEND_SLASH would."""
    path = request.path_info
    if not path.endswith("/") and settings.APPEND_SLASH:
        try:
            match = resolve(f"{path}/", getattr(request, "urlconf", None))
        except Resolver404:  # pragma: no cover - the catch-all matches every /api/ path
            match = None
        if match is not None and match.url_name != API_NOT_FOUND:
            if request.method in ("GET", "HEAD"):
                return HttpResponsePermanentRedirect(request.get_full_path(force_append_slash=True))
            body = error_body(
                "not_found", f"no API endpoint at {request.path}; did you mean {request.path}/?"
            )
            return JsonResponse(body, status=404)
    return not_found(request)


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: the JSON error shape under /api/, the HTML page elsewhere."""
    if _is_api(request):
        return JsonResponse(error_body("server_error", "internal server error"), status=500)
    return defaults.server_error(request)
