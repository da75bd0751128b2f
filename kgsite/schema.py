"""OpenAPI: the one error shape, documented on every operation that can answer it.

``kgsite.api.exception_handler`` turns every error into ``{"error": {"code", "message",
"field"}}``; this schema class says so in the OpenAPI document, once, instead of each
view listing its 400/401/403/404/409 answers. A view that documents one of those codes
itself (with an example, say) keeps its own.
"""

from __future__ import annotations

from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from drf_spectacular.utils import OpenApiExample, OpenApiResponse
from rest_framework import serializers

from kgsite.api import CuratorWriteOrReadOnly

WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class _ErrorCandidateSerializer(serializers.Serializer):
    id = serializers.CharField()
    canonical_name = serializers.CharField()
    type = serializers.CharField()


class ErrorDetailSerializer(serializers.Serializer):
    code = serializers.CharField(
        help_text='Machine-readable: "invalid", "not_found", "conflict", "ambiguous", ...'
    )
    message = serializers.CharField(help_text="One readable sentence.")
    field = serializers.CharField(
        allow_null=True, help_text="The offending field or parameter (list items as name.index)."
    )
    candidates = _ErrorCandidateSerializer(
        many=True,
        required=False,
        help_text="With a 409 about a name: the entities it names or that hold it.",
    )
    fact = serializers.IntegerField(
        required=False, help_text="With a 409 about a fact's text: the fact that has it."
    )


class ErrorResponseSerializer(serializers.Serializer):
    """The one error shape of the API (``kgsite.api.exception_handler``)."""

    error = ErrorDetailSerializer()


def bad_request(example_field: str, example_message: str) -> OpenApiResponse:
    """A documented 400 answer with an example naming the field."""
    return OpenApiResponse(
        response=ErrorResponseSerializer,
        description="A parameter is missing, malformed or out of range; `field` names it.",
        examples=[
            OpenApiExample(
                "out of range",
                value={
                    "error": {"code": "invalid", "message": example_message, "field": example_field}
                },
            )
        ],
    )


def _error_codes(method: str, operation: dict, *, curator_only: bool) -> dict[str, str]:
    """The error answers an operation can give, by what it takes and who may call it."""
    params = operation.get("parameters", [])
    codes: dict[str, str] = {}
    if "requestBody" in operation or any(p.get("in") in ("query", "path") for p in params):
        codes["400"] = "Bad input: a field or parameter is missing, malformed or out of range."
    # Reads need credentials too unless KGSITE_PUBLIC_READ opens them.
    codes["401"] = "No credentials, or a bad token."
    codes["403"] = (
        "Authenticated, but without the curator permission."
        if curator_only
        else "Not allowed for this user (a bad or expired session)."
    )
    if any(p.get("in") == "path" for p in params) or any(p.get("name") == "page" for p in params):
        codes["404"] = "No such object (or no such page of a list)."
    if method in {"POST", "PUT", "PATCH"}:
        codes["409"] = "A conflict: the name or alias is taken, the item is already resolved, ..."
    if "requestBody" in operation:
        codes["413"] = "The request body is over KGSITE_MAX_REQUEST_BYTES (an upload: over "
        "KGSITE_MAX_UPLOAD_BYTES)."
    codes["429"] = "Throttled: too many requests; Retry-After says when to try again."
    return codes


class AutoSchema(SpectacularAutoSchema):
    def get_operation(self, path, path_regex, path_prefix, method, registry):
        operation = super().get_operation(path, path_regex, path_prefix, method, registry)
        if operation is None:
            return None
        error_ref = self.resolve_serializer(ErrorResponseSerializer, "response").ref
        responses = operation.setdefault("responses", {})
        classes = getattr(self.view, "permission_classes", [])
        curator_only = method in WRITE_METHODS and any(
            issubclass(p, CuratorWriteOrReadOnly) for p in classes
        )
        for code, description in _error_codes(method, operation, curator_only=curator_only).items():
            responses.setdefault(
                code,
                {
                    "content": {"application/json": {"schema": error_ref}},
                    "description": description,
                },
            )
        return operation
