"""kiosk doctor's probe: which API versions a server answers, and whether the setting matches."""

from __future__ import annotations

import io

import httpx
import pytest

from kiosk.api import StorefrontClient
from kiosk.api.probe import dialect_base, probe_dialects
from kiosk.api.v2 import StorefrontClientV2
from kiosk.doctor import _check_dialect, _Report

ORIGIN = "https://api.example.com"
LOCATION = {"id": "loc_1", "restaurantDisplayName": "Harbour", "timezone": "UTC"}


def _server(
    *, v1: bool, v2: bool, asked: list[str] | None = None, enveloped_404: bool = False
) -> httpx.MockTransport:
    """A server answering only the versions asked for; anything else is a plain 404 page (or,
    `enveloped_404`, a strict 2.0 server's JSON 404 with a requestId). `asked` records paths."""

    def handle(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if asked is not None:
            asked.append(path)
        if v2 and path == "/api/v1/storefront/locations/loc_1":
            assert "X-API-Key" not in request.headers  # 2.0 reads are anonymous
            return httpx.Response(200, json=LOCATION)
        if v1 and path == "/api/v1/locations/loc_1":
            if request.headers.get("X-API-Key") != "sk_live_good_key_1234":
                return httpx.Response(
                    401, json={"error": {"code": "UNAUTHORIZED", "message": "bad key"}}
                )
            return httpx.Response(200, json=LOCATION)
        if enveloped_404:
            body = {"code": "NOT_FOUND", "message": "Not found.", "requestId": "req_1"}
            return httpx.Response(404, json=body, headers={"X-Request-Id": "req_1"})
        return httpx.Response(404, text="<html>Not Found</html>")

    return httpx.MockTransport(handle)


async def _answers(client: StorefrontClient) -> dict[str, tuple[bool, str]]:
    try:
        return {a.dialect: (a.speaks, a.detail) for a in await probe_dialects(client, "loc_1")}
    finally:
        await client.aclose()


async def test_a_2_0_only_server_is_told_apart_from_a_legacy_one() -> None:
    only_v2 = _server(v1=False, v2=True)
    answers = await _answers(StorefrontClientV2(ORIGIN + "/api/v1/storefront", transport=only_v2))
    assert answers["v2"][0] is True
    assert answers["v1"] == (False, "HTTP 404 (no such API here, or no location loc_1)")

    only_v1 = _server(v1=True, v2=False)
    keyed = StorefrontClient(ORIGIN + "/api/v1", "sk_live_good_key_1234", transport=only_v1)
    answers = await _answers(keyed)
    assert answers["v1"] == (True, "answers (location loc_1 read)")
    assert answers["v2"][0] is False
    # Without the right key the legacy API still shows itself by its refusal.
    wrong = StorefrontClient(ORIGIN + "/api/v1", "sk_live_wrong_key_99", transport=only_v1)
    assert (await _answers(wrong))["v1"] == (
        True,
        "answers (HTTP 401: the location key was refused)",
    )


@pytest.mark.parametrize(
    ("setting", "v1", "v2", "verdict"),
    [
        ("v2", False, True, "OK   this kiosk speaks 2.0"),
        ("v1", False, True, "FAIL this kiosk is set to speak v1, but the server answers 2.0"),
        ("v2", True, False, "FAIL this kiosk is set to speak 2.0, but the server answers v1"),
        # Neither answers: not a verdict of its own (the location check explains, once).
        ("v1", False, False, "     which API version this server speaks could not be told"),
    ],
)
async def test_doctor_says_whether_the_setting_matches_the_server(
    setting: str, v1: bool, v2: bool, verdict: str
) -> None:
    transport = _server(v1=v1, v2=v2)
    client: StorefrontClient = (
        StorefrontClientV2(ORIGIN + "/api/v1/storefront", transport=transport)
        if setting == "v2"
        else StorefrontClient(ORIGIN + "/api/v1", "sk_live_good_key_1234", transport=transport)
    )
    out = io.StringIO()
    report = _Report(out)
    try:
        await _check_dialect(report, client, "loc_1", probe_all=True)
    finally:
        await client.aclose()
    lines = out.getvalue().splitlines()
    assert any(line.startswith(verdict) for line in lines), lines
    assert report.failed == verdict.startswith("FAIL")
    if "but the server answers" in verdict:  # the way out is named
        other = "v2" if setting == "v1" else "v1"
        assert f"--api {other}" in out.getvalue()
    assert "sk_live_good_key_1234" not in out.getvalue()


def test_each_version_lives_at_its_own_root() -> None:
    assert dialect_base(ORIGIN + "/api/v1", "v2") == ORIGIN + "/api/v1/storefront"
    assert dialect_base(ORIGIN + "/api/v1/storefront/", "v1") == ORIGIN + "/api/v1"
    assert dialect_base(ORIGIN + "/api/v1/storefront", "v2") == ORIGIN + "/api/v1/storefront"


@pytest.mark.parametrize("probe_all", [False, True])
async def test_on_a_2_0_setting_the_legacy_path_is_asked_only_with_probe_all(
    probe_all: bool,
) -> None:
    asked: list[str] = []
    transport = _server(v1=False, v2=True, asked=asked, enveloped_404=True)
    client = StorefrontClientV2(ORIGIN + "/api/v1/storefront", transport=transport)
    out = io.StringIO()
    report = _Report(out)
    try:
        await _check_dialect(report, client, "loc_1", probe_all=probe_all)
    finally:
        await client.aclose()
    legacy = [p for p in asked if not p.startswith("/api/v1/storefront/")]
    assert legacy == (["/api/v1/locations/loc_1"] if probe_all else [])
    text = out.getvalue()
    assert "OK   this kiosk speaks 2.0 (its setting), which the server answers" in text
    assert not report.failed
    # The strict server's 404 (JSON, with a requestId) is never read as "v1 answers".
    v1_lines = [line for line in text.splitlines() if line.strip().startswith("API v1")]
    assert len(v1_lines) == (1 if probe_all else 0)
    assert all("HTTP 404" in line and "answers" not in line for line in v1_lines), text


async def test_a_404_is_never_called_answering() -> None:
    # A 2.0 server that does not know the location: 404 with its envelope and a requestId.
    transport = _server(v1=False, v2=False, enveloped_404=True)
    client = StorefrontClientV2(ORIGIN + "/api/v1/storefront", transport=transport)
    out = io.StringIO()
    report = _Report(out)
    try:
        answers = await probe_dialects(client, "loc_1", ("v2",))
        await _check_dialect(report, client, "loc_1")
    finally:
        await client.aclose()
    assert [(a.speaks, a.detail) for a in answers] == [
        (False, "HTTP 404 (no such API here, or no location loc_1)")
    ]
    assert "answers" not in out.getvalue().replace("no such API", "")
    assert "did not answer 2.0 here" in out.getvalue()
