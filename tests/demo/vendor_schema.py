"""The vendor's Storefront 2.0 OpenAPI document (tests/data/vendor-v2, MIT) as JSON Schema checks.

OpenAPI 3.0 says `nullable: true` where JSON Schema says `type: [T, "null"]`; `response_errors`
converts once and validates a response body against what the document declares for an operation
and status.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

DOCUMENT = Path(__file__).resolve().parents[1] / "data" / "vendor-v2" / "openapi-facts.json"
BASE = "/api/v1/storefront"


def _to_json_schema(node: Any) -> Any:
    if isinstance(node, list):
        return [_to_json_schema(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: _to_json_schema(v) for k, v in node.items() if k != "nullable"}
    if node.get("nullable") is True:
        if "type" in out:
            out["type"] = [out["type"], "null"]
        elif "$ref" in out or "oneOf" in out or "allOf" in out:
            out = {"anyOf": [out, {"type": "null"}]}
    return out


@cache
def document() -> dict[str, Any]:
    converted: dict[str, Any] = _to_json_schema(json.loads(DOCUMENT.read_text(encoding="utf-8")))
    return converted


def _operation(method: str, path: str) -> dict[str, Any]:
    """The document's operation for a concrete path (".../carts/abc" matches ".../{cartId}")."""
    relative = path.partition("?")[0].removeprefix(BASE)
    for template, ops in document()["paths"].items():
        pattern = "^" + re.sub(r"\\{[^}]+\\}", "[^/]+", re.escape(template)) + "$"
        if re.match(pattern, relative) and method.lower() in ops:
            op: dict[str, Any] = ops[method.lower()]
            return op
    raise KeyError(f"{method} {path} is not an operation of the vendor's document")


def schema_for(method: str, path: str, status: int) -> dict[str, Any] | None:
    responses = _operation(method, path)["responses"]
    response = responses.get(str(status))
    if response is None:
        raise AssertionError(f"{method} {path} may not answer {status}: {sorted(responses)}")
    content = response.get("content", {}).get("application/json")
    return None if content is None else content["schema"]


def errors_of(schema: dict[str, Any], body: Any) -> list[str]:
    wrapped = {**schema, "components": document()["components"]}
    validator = Draft202012Validator(wrapped, format_checker=Draft202012Validator.FORMAT_CHECKER)
    return [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(body)
    ]


def response_errors(method: str, path: str, status: int, body: Any) -> list[str]:
    """What is wrong with `body` as the answer `status` to `method path` (empty: nothing)."""
    schema = schema_for(method, path, status)
    if schema is None:
        return []
    return errors_of(schema, body)
