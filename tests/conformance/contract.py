"""The vendor's Storefront 2.0 OpenAPI facts (tests/data/vendor-v2/openapi-facts.json), loaded
once and turned into jsonschema validators: request bodies, parameters, documented responses.

Written from the vendor's documents only (see vendor_server.py), not from kiosk/api or kiosk/demo.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from jsonschema import Draft7Validator, FormatChecker

FACTS_PATH = Path(__file__).resolve().parents[1] / "data" / "vendor-v2" / "openapi-facts.json"
BASE_PATH = "/api/v1/storefront"

_FORMATS = FormatChecker()


@_FORMATS.checks("uri", raises=ValueError)
def _is_uri(value: object) -> bool:
    # jsonschema checks "uri" only with an optional package; the documents use it for URLs.
    if not isinstance(value, str):
        return True
    parts = urlsplit(value)
    return bool(parts.scheme) and bool(parts.netloc or parts.path)


def openapi_to_json_schema(node: Any) -> Any:
    """OpenAPI 3.0's `nullable: true` is not JSON Schema: it becomes `anyOf [..., null]`."""
    if isinstance(node, list):
        return [openapi_to_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    converted = {key: openapi_to_json_schema(value) for key, value in node.items()}
    if converted.pop("nullable", False):
        return {"anyOf": [converted, {"type": "null"}]}
    return converted


@dataclass(frozen=True)
class Param:
    name: str
    location: str  # path | query | header
    required: bool
    schema: dict[str, Any]


@dataclass
class Operation:
    method: str
    template: str  # the document's path template, without the base path
    raw: dict[str, Any]
    params: list[Param] = field(default_factory=list)

    @property
    def operation_id(self) -> str:
        return str(self.raw["operationId"])

    @property
    def profile(self) -> str:
        return str(self.raw.get("x-crave-security-profile", "anonymous"))

    @property
    def security(self) -> list[dict[str, list[str]]]:
        return list(self.raw.get("security", []))

    @property
    def idempotency_required(self) -> bool:
        return bool(self.raw.get("x-crave-idempotency", {}).get("required"))

    @property
    def revision(self) -> dict[str, Any]:
        return dict(self.raw.get("x-crave-revision", {}))

    def header(self, name: str) -> Param | None:
        wanted = name.lower()
        return next(
            (p for p in self.params if p.location == "header" and p.name.lower() == wanted), None
        )

    def query_params(self) -> dict[str, Param]:
        return {p.name: p for p in self.params if p.location == "query"}

    @property
    def body(self) -> dict[str, Any] | None:
        return self.raw.get("requestBody")

    @property
    def body_required(self) -> bool:
        return bool(self.body and self.body.get("required"))

    def body_schema(self) -> dict[str, Any] | None:
        if not self.body:
            return None
        return self.body["content"]["application/json"]["schema"]

    def response_schema(self, status: int) -> dict[str, Any] | None:
        answer = self.raw["responses"].get(str(status))
        if answer is None:
            return None
        return answer.get("content", {}).get("application/json", {}).get("schema")

    def response_headers(self, status: int) -> dict[str, Any]:
        answer = self.raw["responses"].get(str(status)) or {}
        return dict(answer.get("headers", {}))

    def statuses(self) -> list[int]:
        return [int(code) for code in self.raw["responses"]]


class Contract:
    """The operations of the facts file, keyed by (METHOD, template)."""

    def __init__(self, facts: dict[str, Any]) -> None:
        self.facts = facts
        self.components = openapi_to_json_schema(facts["components"])
        self.operations: dict[tuple[str, str], Operation] = {}
        for template, item in facts["paths"].items():
            shared = item.get("parameters", [])
            for method, raw in item.items():
                if method == "parameters":
                    continue
                params = [
                    Param(p["name"], p["in"], bool(p.get("required")), p.get("schema", {}))
                    for p in [*shared, *raw.get("parameters", [])]
                ]
                self.operations[(method.upper(), template)] = Operation(
                    method.upper(), template, raw, params
                )
        self._validators: dict[str, Draft7Validator] = {}

    def validator(self, schema: dict[str, Any]) -> Draft7Validator:
        key = json.dumps(schema, sort_keys=True)
        found = self._validators.get(key)
        if found is None:
            # The components ride along so that "#/components/schemas/X" resolves from the root.
            root = {"allOf": [openapi_to_json_schema(copy.deepcopy(schema))]}
            root["components"] = self.components
            found = Draft7Validator(root, format_checker=_FORMATS)
            self._validators[key] = found
        return found

    def errors(self, schema: dict[str, Any], value: Any) -> list[str]:
        """Every way `value` breaks `schema`, as short readable lines."""
        found = []
        for error in self.validator(schema).iter_errors(value):
            where = "/".join(str(p) for p in error.absolute_path) or "(root)"
            found.append(f"{where}: {error.message[:200]}")
        return found

    def response_errors(self, method: str, template: str, status: int, body: Any) -> list[str]:
        operation = self.operations[(method, template)]
        if str(status) not in operation.raw["responses"]:
            return [f"status {status} is not documented for {method} {template}"]
        schema = operation.response_schema(status)
        if schema is None:
            return [] if body is None else [f"status {status} documents no body"]
        return self.errors(schema, body)


@cache
def load_contract() -> Contract:
    return Contract(json.loads(FACTS_PATH.read_text(encoding="utf-8")))
