"""Storefront 2.0 request bodies checked against the vendor's own schemas, before they are sent.

The rules are the vendor's OpenAPI document (`../shared/vendor-v2/openapi-facts.json`), not patterns
typed again here: `kiosk/api/vendor/storefront-requests.json` is the request-body schema of every
operation the kiosk sends, extracted from that document by `extract()` (with the components they
refer to, and OpenAPI's `nullable` spelt as JSON Schema), under the vendor's MIT licence
(`kiosk/api/vendor/LICENSE`). A test extracts it again from the document in tests/data and compares.

Regenerate after the vendor document changes:

    python -m kiosk.api.request_schema tests/data/vendor-v2/openapi-facts.json \\
        > kiosk/api/vendor/storefront-requests.json

Why jsonschema rather than generated pydantic models: the document is the rule as it stands (no
generated code that could drift from it, no second reading of its regexes: the email pattern uses
look-aheads, which pydantic's Rust regex engine refuses), and a failure names the keyword and the
limit broken, which the screens turn into the customer's words. The cost is an import of about
60 ms, paid on the first write of the first order (never before the first frame: imported here,
lazily), and the schemas file (about 10 KB) read once.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from .errors import InvalidRequestError

__all__ = [
    "SCHEMAS_PATH",
    "check_body",
    "extract",
    "field_limit",
    "operation_key",
    "required_fields",
]

SCHEMAS_PATH = Path(__file__).with_name("vendor") / "storefront-requests.json"

# Our path parameters as the vendor's document names them.
_VENDOR_PARAMS = {
    "location_id": "locationId",
    "cart_id": "cartId",
    "item_id": "itemId",
    "product_id": "productId",
    "merchant_slug": "merchantSlug",
}
# Scalar limits of a broken rule, passed on so the customer is told the document's numbers.
_LIMITS = ("minLength", "maxLength", "minimum", "maximum", "minItems", "maxItems")


def operation_key(method: str, path_template: str) -> str:
    """'PUT /locations/{locationId}/carts/{cartId}/set-table' for one of our endpoint rows."""
    for ours, theirs in _VENDOR_PARAMS.items():
        path_template = path_template.replace("{" + ours + "}", "{" + theirs + "}")
    return f"{method.upper()} {path_template}"


def _json_schema(node: Any) -> Any:
    """OpenAPI 3.0's `nullable: true` as JSON Schema (a null allowed); everything else as is."""
    if isinstance(node, list):
        return [_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {k: _json_schema(v) for k, v in node.items() if k != "nullable"}
    if node.get("nullable") is True and isinstance(out.get("type"), str):
        out["type"] = [out["type"], "null"]
    return out


def _refs(node: Any) -> Iterable[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            else:
                yield from _refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from _refs(item)


def extract(document: Mapping[str, Any], operations: Iterable[str]) -> dict[str, Any]:
    """The request-body schemas of `operations` ("METHOD /path") in the vendor's `document`, with
    every component they refer to (transitively). Operations without a documented body are left
    out (the kiosk sends none there)."""
    wanted = sorted(set(operations))
    found: dict[str, Any] = {}
    for key in wanted:
        method, path = key.split(" ", 1)
        operation = document.get("paths", {}).get(path, {}).get(method.lower())
        if operation is None:
            raise KeyError(f"the vendor's document has no {key}")
        content = (operation.get("requestBody") or {}).get("content", {})
        schema = content.get("application/json", {}).get("schema")
        if schema is not None:
            found[key] = _json_schema(schema)
    components: dict[str, Any] = {}
    todo = [ref for schema in found.values() for ref in _refs(schema)]
    while todo:
        name = todo.pop().rsplit("/", 1)[-1]
        if name in components:
            continue
        components[name] = _json_schema(document["components"]["schemas"][name])
        todo.extend(_refs(components[name]))
    return {
        "source": "vendor-v2/openapi-facts.json (Crave Storefront API "
        + str(document.get("info", {}).get("version", "?"))
        + "), MIT: see LICENSE beside this file",
        "operations": found,
        "components": {"schemas": dict(sorted(components.items()))},
    }


def kiosk_operations() -> list[str]:
    """Every 2.0 operation the kiosk sends a body to (its endpoint table)."""
    from .endpoints import V2_ENDPOINTS

    return sorted(
        {
            operation_key(e.method, e.path_template)
            for e in V2_ENDPOINTS.values()
            if e.method != "GET" and not e.outside_base
        }
    )


@cache
def _schemas() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(SCHEMAS_PATH.read_text(encoding="utf-8"))
    return data


@cache
def _validator(key: str) -> Any:
    """A Draft 7 validator (what OpenAPI 3.0's schema objects read as) for one operation's body,
    with format checks; None when the document gives the operation no body."""
    from jsonschema import Draft7Validator, FormatChecker

    data = _schemas()
    schema = data["operations"].get(key)
    if schema is None:
        return None
    root = {**schema, "components": data["components"]}
    return Draft7Validator(root, format_checker=FormatChecker())


def required_fields(key: str) -> frozenset[str]:
    """The members the vendor's schema requires in `key`'s body (no jsonschema import)."""
    schema = _schemas()["operations"].get(key) or {}
    return frozenset(schema.get("required", ()))


def field_limit(field: str, keyword: str) -> int | None:
    """A limit (`maxLength`, `maximum`...) the vendor's schema gives the member `field` in any
    body the kiosk sends (the first found); None when none does. No jsonschema import."""
    data = _schemas()
    for schema in [*data["operations"].values(), *data["components"]["schemas"].values()]:
        for branch in [schema, *schema.get("oneOf", [])]:
            own = branch.get("properties", {}).get(field)
            value = own.get(keyword) if isinstance(own, dict) else None
            if isinstance(value, int) and not isinstance(value, bool):
                return value
    return None


def _field_of(error: Any, body: Any) -> str | None:
    path = list(error.absolute_path)
    if path and isinstance(path[0], str):
        return path[0]
    if error.validator == "required" and isinstance(body, dict):
        missing = [name for name in error.validator_value if name not in body]
        return missing[0] if missing else None
    if error.validator == "additionalProperties" and isinstance(body, dict):
        allowed = set((error.schema or {}).get("properties", {}))
        extra = [name for name in body if name not in allowed]
        return extra[0] if extra else None
    return None


def check_body(key: str, body: Any, *, endpoint: str | None = None) -> None:
    """Raise InvalidRequestError naming the field (the body's top-level member) when `body`
    breaks the vendor's schema for the operation `key`; nothing is sent then. `details` carry
    the broken keyword (`rule`) and the limits of that rule, for the customer's words."""
    validator = _validator(key)
    if validator is None:
        return
    from jsonschema.exceptions import best_match

    error = best_match(validator.iter_errors(body))
    if error is None:
        return
    field = _field_of(error, body)
    schema = error.schema if isinstance(error.schema, dict) else {}
    details: dict[str, Any] = {"rule": str(error.validator), "origin": "kiosk"}
    if field is not None and isinstance(body, dict):
        # The limits of the field itself (a pattern failure still says how long a code may be).
        properties = validator.schema.get("properties", {})
        own = properties.get(field, {}) if isinstance(properties, dict) else {}
        if isinstance(own, dict):
            details.update({k: own[k] for k in _LIMITS if k in own})
    details.update({k: schema[k] for k in _LIMITS if k in schema})
    raise InvalidRequestError(
        f"{field or 'the request'} breaks the rule {error.validator!s}",
        code="VALIDATION_ERROR",
        field=field,
        details=details,
        endpoint=endpoint,
    )


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m kiosk.api.request_schema VENDOR_OPENAPI_JSON", file=sys.stderr)
        return 2
    document = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    print(json.dumps(extract(document, kiosk_operations()), indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main(sys.argv[1:]))
