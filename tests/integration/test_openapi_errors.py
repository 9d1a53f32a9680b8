"""The OpenAPI document lists every route's errors, and 405s carry a correct `Allow`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from api.app import create_app
from api.openapi_errors import NAMES, SPECIFIC, route_path
from api.route_table import api_routes
from core.settings import Settings
from tests.support.gateway import Api


@pytest.fixture
def document(tmp_path: Path) -> dict[str, Any]:
    doc: dict[str, Any] = create_app(Settings(data_dir=tmp_path), store=None).openapi()  # type: ignore[arg-type]
    return doc


def _operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method.upper(), path, operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
    ]


def _resolved(document: dict[str, Any], response: dict[str, Any]) -> dict[str, Any]:
    """The response itself, or the `components.responses` entry its `$ref` names."""
    if "$ref" not in response:
        return response
    prefix = "#/components/responses/"
    assert response["$ref"].startswith(prefix), response
    found: dict[str, Any] = document["components"]["responses"][response["$ref"][len(prefix) :]]
    return found


def test_every_error_response_is_the_error_schema(document: dict[str, Any]) -> None:
    ref = {"$ref": "#/components/schemas/ErrorResponse"}
    for method, path, operation in _operations(document):
        errors = {s: r for s, r in operation["responses"].items() if s >= "400"}
        assert "400" in errors, (method, path)
        for status, response in errors.items():
            schema = _resolved(document, response)["content"]["application/json"]["schema"]
            assert schema == ref, (method, path, status)
    assert "HTTPValidationError" not in document["components"]["schemas"]


def test_each_error_response_is_declared_once(document: dict[str, Any]) -> None:
    """Operations refer to `components.responses` (so the generated clients hold one
    type a status, not one an operation), each by the name of its status."""
    declared = document["components"]["responses"]
    assert set(declared) == set(NAMES.values())
    for method, path, operation in _operations(document):
        for status, response in operation["responses"].items():
            if status >= "400":
                wanted = {"$ref": f"#/components/responses/{NAMES[int(status)]}"}
                assert response == wanted, (method, path, status)
    assert "WWW-Authenticate" in declared["Unauthorized"]["headers"]


def test_authenticated_routes_declare_401_403_and_their_security(document: dict[str, Any]) -> None:
    public = {
        ("GET", "/api/v1/health"),
        ("GET", "/api/v1/version"),
        ("POST", "/api/v1/auth/login"),
        ("GET", "/api/v1/auth/session"),  # never a 401: who is signed in, or null
    }
    for method, path, operation in _operations(document):
        if (method, path) in public:
            assert "security" not in operation and "403" not in operation["responses"]
            continue
        assert {"401", "403"} <= set(operation["responses"]), (method, path)
        assert operation["security"] == [{"bearer": []}, {"cookie": []}], (method, path)
    schemes = document["components"]["securitySchemes"]
    assert schemes["cookie"]["name"] == "agentmail_session"


def test_derived_statuses(document: dict[str, Any]) -> None:
    responses = document["paths"]["/api/v1/me/drafts/{draft_id}"]
    assert {"404", "422"} <= set(responses["get"]["responses"])
    assert "413" not in responses["get"]["responses"]
    assert {"404", "413", "422"} <= set(responses["put"]["responses"])
    send = document["paths"]["/api/v1/mail/send"]["post"]["responses"]
    assert {"404", "409", "413", "422", "429"} <= set(send)
    assert "Retry-After" in _resolved(document, send["429"])["headers"]


def test_every_specific_entry_names_a_route(tmp_path: Path) -> None:
    app = create_app(Settings(data_dir=tmp_path), store=None)  # type: ignore[arg-type]
    routes = {(m, route_path(r)) for r in api_routes(app) for m in r.methods}
    assert set(SPECIFIC) <= routes, set(SPECIFIC) - routes


ALLOW_CASES = [
    # (method, path, Allow). Starlette alone answered the first with `Allow: GET`.
    ("POST", "/api/v1/me/drafts/x", "DELETE, GET, HEAD, PUT"),
    ("OPTIONS", "/api/v1/mail/send", "POST"),
    ("PUT", "/api/v1/mail/x", "GET, HEAD"),
    ("DELETE", "/api/v1/me/sessions/x", "GET, HEAD, PATCH"),
    ("TRACE", "/api/v1/health", "GET, HEAD"),
]


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_405_lists_every_method_of_the_resource(api: Api) -> None:
    client = api.client()
    for method, path, allow in ALLOW_CASES:
        response = await client.request(method, path)
        assert response.status_code == 405, (method, path, response.text)
        assert response.headers["allow"] == allow, (method, path)
        assert response.json()["error"]["code"] == "method_not_allowed"
