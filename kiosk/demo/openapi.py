"""OpenAPI 3.1 documents generated from the app's own route table (issue 11).

Every route is a `DocRoute`: a Starlette `Route` carrying a `Doc`, the declarative facts of its
operation (success status and media types, the statuses it may answer, headers, the pydantic types
of its body and answer). `build` walks the routes an `Api` owns and turns them into a document;
schemas come from pydantic (`TypeAdapter.json_schemas`), and the request-body models are the ones
the handlers parse with, so the document cannot drift from the code. Starlette, not FastAPI: the
demo starts in-process with every `kiosk demo`.

Built on the first request for it and kept (`serve`): the app's start pays nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

__all__ = ["Api", "Doc", "DocRoute", "Param", "build", "serve"]

OPENAPI = "3.1.0"
JSON = "application/json"
HTML = "text/html"
FORM = "application/x-www-form-urlencoded"
PNG = "image/png"


@dataclass(frozen=True)
class Param:
    """A header or query parameter; `schema` is JSON Schema."""

    name: str
    where: str  # "header" | "query"
    required: bool = False
    schema: dict[str, Any] = field(default_factory=lambda: {"type": "string"})
    description: str = ""


@dataclass(frozen=True)
class Doc:
    """What one route answers and takes. Types are pydantic-readable (a model, `dict[str, Any]`,
    an annotated union); `None` for `body` means no body, for `response` any JSON value."""

    status: int = 200
    errors: tuple[int, ...] = ()
    body: Any = None
    body_required: bool = True
    body_media: tuple[str, ...] = (JSON,)
    response: Any = None
    media: tuple[str, ...] = (JSON,)
    error_media: tuple[str, ...] = (JSON,)
    params: tuple[Param, ...] = ()
    security: tuple[str, ...] = ()  # scheme names, any one of them
    security_optional: bool = False
    headers: tuple[str, ...] = ()  # response headers always sent on success
    summary: str = ""


class DocRoute(Route):
    """A Route with its `Doc`; `build` documents only these: a plain Route shows up as missing."""

    def __init__(self, path: str, endpoint: Callable[..., Any], *, methods: list[str], doc: Doc):
        super().__init__(path, endpoint, methods=methods)
        self.doc = doc


@dataclass(frozen=True)
class Api:
    """One document: which routes it owns and what every one of its operations shares."""

    title: str
    version: str
    description: str
    base: str  # the server's path; the document's paths are relative to it
    owns: Callable[[str], bool]
    error_body: Callable[[int], Any]  # status -> pydantic type of the error body
    common_errors: tuple[int, ...] = ()
    error_headers: tuple[str, ...] = ()  # sent with every error
    security_schemes: dict[str, dict[str, Any]] = field(default_factory=dict)
    header_schemas: dict[str, dict[str, Any]] = field(default_factory=dict)


def _operation_id(method: str, path: str) -> str:
    words = [w for w in re.split(r"[^A-Za-z0-9]+", path) if w]
    return method.lower() + "".join(w[:1].upper() + w[1:] for w in words)


def _template(path: str) -> str:
    # Starlette's "{id:path}" is OpenAPI's "{id}".
    return re.sub(r"{([^}:]+)(:[^}]*)?}", r"{\1}", path)


def build(api: Api, routes: Iterable[BaseRoute]) -> dict[str, Any]:
    """The OpenAPI 3.1 document of the DocRoutes among `routes` that `api` owns."""
    from pydantic import TypeAdapter

    owned = [r for r in routes if isinstance(r, DocRoute) and api.owns(r.path)]
    # Every pydantic type once; json_schemas puts the models in one set of definitions.
    wanted: list[tuple[Any, str]] = []

    def want(tp: Any, mode: str) -> int:
        for i, (seen, seen_mode) in enumerate(wanted):
            if seen is tp and seen_mode == mode:
                return i
        wanted.append((tp, mode))
        return len(wanted) - 1

    plans = []
    for route in owned:
        doc = route.doc
        errors = sorted(set(api.common_errors) | set(doc.errors))
        body = want(doc.body, "validation") if doc.body is not None else None
        answer = want(doc.response, "serialization") if doc.response is not None else None
        failures = {status: want(api.error_body(status), "serialization") for status in errors}
        plans.append((route, body, answer, failures))

    schemas: dict[Any, Any] = {}
    definitions: dict[str, Any] = {}
    if wanted:
        inputs = [(i, mode, TypeAdapter(tp)) for i, (tp, mode) in enumerate(wanted)]
        by_key, defs = TypeAdapter.json_schemas(
            inputs,  # type: ignore[arg-type]
            ref_template="#/components/schemas/{model}",
        )
        schemas = {key[0]: value for key, value in by_key.items()}
        definitions = defs.get("$defs", {})

    paths: dict[str, dict[str, Any]] = {}
    for route, body, answer, failures in plans:
        doc = route.doc
        template = _template(route.path)
        relative = template.removeprefix(api.base) or "/"
        for method in sorted(route.methods or ()):
            if method == "HEAD":
                continue  # Starlette answers HEAD wherever GET is; not an operation of its own
            op: dict[str, Any] = {"operationId": _operation_id(method, relative)}
            if doc.summary:
                op["summary"] = doc.summary
            params = [
                {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
                for name in route.param_convertors
            ]
            params += [_param(p) for p in doc.params]
            if params:
                op["parameters"] = params
            if body is not None and method != "GET":
                op["requestBody"] = {
                    "required": doc.body_required,
                    "content": {media: {"schema": schemas[body]} for media in doc.body_media},
                }
            if doc.security:
                alternatives: list[dict[str, list[str]]] = [{name: []} for name in doc.security]
                op["security"] = ([{}] if doc.security_optional else []) + alternatives
            op["responses"] = _responses(api, doc, schemas, answer, failures)
            paths.setdefault(relative, {})[method.lower()] = op

    document: dict[str, Any] = {
        "openapi": OPENAPI,
        "info": {"title": api.title, "version": api.version, "description": api.description},
        "servers": [{"url": api.base or "/"}],
        "paths": dict(sorted(paths.items())),
        "components": {"schemas": dict(sorted(definitions.items()))},
    }
    if api.security_schemes:
        document["components"]["securitySchemes"] = api.security_schemes
    return document


def _param(param: Param) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": param.name,
        "in": param.where,
        "required": param.required,
        "schema": param.schema,
    }
    if param.description:
        out["description"] = param.description
    return out


def _header(name: str, api: Api, *, required: bool) -> dict[str, Any]:
    return {"required": required, "schema": api.header_schemas.get(name, {"type": "string"})}


def _responses(
    api: Api, doc: Doc, schemas: dict[Any, Any], answer: int | None, failures: dict[int, int]
) -> dict[str, Any]:
    responses: dict[str, Any] = {}
    content: dict[str, Any] = {}
    for media in doc.media:
        if media == JSON:
            content[media] = {"schema": schemas[answer] if answer is not None else {}}
        else:
            content[media] = {"schema": {"type": "string"}}
    ok: dict[str, Any] = {"description": HTTPStatus(doc.status).phrase, "content": content}
    if doc.headers:
        ok["headers"] = {h: _header(h, api, required=True) for h in doc.headers}
    responses[str(doc.status)] = ok
    for status, index in failures.items():
        error_content: dict[str, Any] = {}
        for media in doc.error_media:
            schema = schemas[index] if media == JSON else {"type": "string"}
            error_content[media] = {"schema": schema}
        failure: dict[str, Any] = {
            "description": HTTPStatus(status).phrase,
            "content": error_content,
        }
        if api.error_headers:
            failure["headers"] = {h: _header(h, api, required=True) for h in api.error_headers}
        responses[str(status)] = failure
    return responses


def serve(api: Api) -> Callable[[Request], Any]:
    """The endpoint that answers `api`'s document: built on its first request, then kept."""

    async def endpoint(request: Request) -> Response:
        state = request.app.state
        built: dict[str, bytes] | None = getattr(state, "openapi_documents", None)
        if built is None:
            built = state.openapi_documents = {}
        if api.title not in built:
            document = build(api, request.app.routes)
            built[api.title] = json.dumps(document, separators=(",", ":")).encode()
        return Response(built[api.title], media_type=JSON)

    return endpoint
