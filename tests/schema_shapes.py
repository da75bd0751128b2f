"""A response checked against the OpenAPI schema the API publishes, with jsonschema: the
shape a client generated from the schema expects is the one it gets."""

from __future__ import annotations

import json
from typing import Any

import jsonschema


def _json_schema(node: Any) -> Any:
    """OpenAPI 3.0 to JSON Schema: ``nullable`` as a null alternative, refs to ``$defs``."""
    if isinstance(node, list):
        return [_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: _json_schema(value) for key, value in node.items()}
    if "$ref" in node:
        node["$ref"] = node["$ref"].replace("#/components/schemas/", "#/$defs/")
    if node.pop("nullable", False):
        node = {"anyOf": [node, {"type": "null"}]}
    return node


def documented_errors(client, method: str, path: str, response) -> list[str]:
    """What in ``response`` the schema of ``method path`` (a template such as
    ``/api/v1/facts/{fact_id}/``) does not allow; empty when it conforms."""
    schema = json.loads(client.get("/api/schema/", {"format": "json"}).content)
    documented = schema["paths"][path][method]["responses"].get(str(response.status_code))
    if documented is None:
        return [f"status {response.status_code} is not documented"]
    shape = _json_schema(documented["content"]["application/json"]["schema"])
    shape["$defs"] = _json_schema(schema["components"]["schemas"])
    validator = jsonschema.Draft202012Validator(shape)
    return [
        f"{'/'.join(map(str, error.absolute_path))}: {error.message}"
        for error in validator.iter_errors(response.json())
    ]


def undocumented_keys(client, method: str, path: str, response) -> list[str]:
    """The keys of ``response`` that the schema of ``method path`` does not list: a
    client generated from the schema drops them (jsonschema lets extra keys pass)."""
    schema = json.loads(client.get("/api/schema/", {"format": "json"}).content)
    components = schema["components"]["schemas"]

    def resolve(node: dict) -> dict:
        while "$ref" in node or "allOf" in node:
            node = node["allOf"][0] if "allOf" in node else node
            if "$ref" in node:
                node = components[node["$ref"].rsplit("/", 1)[-1]]
        return node

    def walk(node: dict, value: Any, where: str) -> list[str]:
        node = resolve(node)
        if isinstance(value, dict) and "properties" in node:
            found = []
            for key, item in value.items():
                if key not in node["properties"]:
                    found.append(f"{where}/{key}")
                else:
                    found += walk(node["properties"][key], item, f"{where}/{key}")
            return found
        if isinstance(value, list) and "items" in node:
            return [
                k for i, item in enumerate(value) for k in walk(node["items"], item, f"{where}/{i}")
            ]
        return []

    documented = schema["paths"][path][method]["responses"][str(response.status_code)]
    return walk(documented["content"]["application/json"]["schema"], response.json(), "")
