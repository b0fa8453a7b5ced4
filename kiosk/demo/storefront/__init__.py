"""Storefront API 2.0 under /api/v1/storefront: the same domain (kiosk.demo.backend) as the legacy
API, spoken the 2.0 way (../shared/storefront-v2-contract.md): anonymous catalog reads, cart tokens,
revisions with ETag/If-Match, Idempotency-Key on every write, checkout hand-offs and order results,
the `{code, message, requestId, details}` error envelope.

- `errors.py`: the envelope, and how the domain's errors read in 2.0;
- `shapes.py`: 2.0's JSON from the domain's (amounts in major units, `fulfilmentMethod` names);
- `bodies.py`: the request bodies as pydantic models, which the handlers parse with;
- `answers.py`: the answers' types, for the OpenAPI document (kiosk.demo.openapi);
- `routes.py`: one short handler per operation, grouped by resource, and the route table the
  document is generated from (`GET /api/v1/storefront/openapi.json`).
"""
