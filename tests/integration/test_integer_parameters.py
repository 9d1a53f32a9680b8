"""Every integer query parameter of every route, walked with extreme values: a clear
`422`, never a 500 or a reset connection (`offset` ≥ 2^63 included, on SQLite and
PostgreSQL). The table is the OpenAPI document itself, so a new
route's parameters are walked as soon as it exists."""

from __future__ import annotations

import re
from typing import Any

import httpx

from tests.support.gateway import Api

EXTREMES = (2**63, 2**64, 10**30, -1, -(2**63) - 1)
_PATH_PARAM = re.compile(r"\{(\w+)\}")


def _integer_queries(document: dict[str, Any]) -> list[tuple[str, str, str, int | None]]:
    """(method, path, parameter, its maximum) for every integer query parameter."""
    found = []
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method not in ("get", "delete"):
                continue  # the writes take their numbers in bodies (test_bad_input.py)
            for parameter in operation.get("parameters", []):
                schema = parameter.get("schema", {})
                kinds = [schema, *schema.get("anyOf", [])]
                integer = next((k for k in kinds if k.get("type") == "integer"), None)
                if parameter["in"] == "query" and integer is not None:
                    found.append((method.upper(), path, parameter["name"], integer.get("maximum")))
    return found


async def test_every_integer_query_parameter_refuses_extremes_clearly(api: Api) -> None:
    human = await api.human("jianf")
    agent = await api.agent("builder")
    document = (await api.client().get("/api/v1/openapi.json")).json()
    table = _integer_queries(document)
    assert len(table) >= 8, table  # limit, offset, after … on the list endpoints
    for method, path, name, maximum in table:
        client: httpx.AsyncClient = human if path.startswith("/api/v1/me/") else agent
        url = _PATH_PARAM.sub("x", path)
        for value in EXTREMES:
            response = await client.request(method, url, params={name: str(value)})
            where = f"{method} {path}?{name}={value}"
            assert response.status_code < 500, (where, response.text)
            if path == url:  # a path parameter "x" may be a 404 first
                assert response.status_code == 422, (where, response.status_code, response.text)
                assert response.json()["error"]["code"] == "invalid_request", where
        assert maximum is not None and maximum < 2**63, f"{method} {path}: {name} is unbounded"
