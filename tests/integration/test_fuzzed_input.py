"""Bad input never yields a 500: generated JSON.

A hypothesis pass throws generated JSON at the main write endpoints; every answer
is a success or the JSON error shape (tests/support/refusals.py).
"""

from __future__ import annotations

import asyncio
import functools
import json
from typing import Any

import httpx
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.support.gateway import Api
from tests.support.refusals import assert_no_server_errors, parties, send_raw

# Characters that have broken gateways: NUL, lone surrogates, address punctuation, non-ASCII.
SPECIALS = ["\x00", "\ud800", "\udfff", "@", ".", " ", "\n", "+", "=", "/", "é", "排"]
_TEXT = st.one_of(
    st.text(max_size=12),
    st.lists(st.one_of(st.sampled_from(SPECIALS), st.characters()), max_size=8).map("".join),
)
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([0, -1, 2**31, 2**63, 10**30]),
    st.floats(),
    _TEXT,
)
JSON_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=8,
)


class Endpoint:
    """A write endpoint, who calls it, a valid body, and plausible values for its fields."""

    def __init__(
        self, method: str, path: str, caller: str, valid: dict[str, Any], more: dict[str, list[Any]]
    ) -> None:
        self.method, self.path, self.caller, self.valid = method, path, caller, valid
        self.plausible = {name: [value] for name, value in valid.items()}
        for name, values in more.items():
            self.plausible.setdefault(name, []).extend(values)

    def __repr__(self) -> str:
        return f"{self.method} {self.path}"


_SEND_MORE: dict[str, list[Any]] = {
    "to": ["builder@ModelRouter.new", "builder@infra", "jianf@.new", "builder+infra@agentmail"],
    "cc": [["jianf@"], ["builder@infra"], []],
    "reply_to": ["{mail_id}"],
    "session_alias": ["fuzz", "new", "x" * 64],
    "from_workspace": ["infra", "ModelRouter"],
    "budget": [1, "unlimited", 0],
    "attachment_ids": [[]],
    "auto": [True],
}
ENDPOINTS = [
    Endpoint(
        "POST",
        "/api/v1/me/mail/send",
        "human",
        {"to": "builder@ModelRouter", "subject": "hello", "body": "hi"},
        _SEND_MORE,
    ),
    Endpoint(
        "POST",
        "/api/v1/mail/send",
        "agent",
        {"to": "jianf@", "subject": "hello", "body": "hi"},
        _SEND_MORE,
    ),
    Endpoint(
        "POST",
        "/api/v1/permission/request",
        "agent",
        {"to": "jianf@", "question": "May I?", "options": ["yes", "no"]},
        {
            "options": [["Yes", "yes"], [], ["a\nb"]],
            "context": ["ctx"],
            "session_id": ["{session_id}"],
            "reply_to": ["{mail_id}"],
            "expires_in": [60, "1h", "30m", 0],
            "action": ["rm -rf build/"],
            "from_workspace": ["infra"],
            "auto": [True],
        },
    ),
    Endpoint(
        "POST",
        "/api/v1/me/permission/decide",
        "human",
        {"mail_id": "{mail_id}", "decision": "yes"},
        {"decision": ["no", "1", "YES"], "note": ["fine"]},
    ),
    Endpoint(
        "POST",
        "/api/v1/agent/register",
        "agent",
        {"name": "builder", "workspaces": [{"name": "ModelRouter", "path": "/m"}]},
        {"name": ["other"], "platform": ["test"], "workspaces": [[{"name": "a"}, {"name": "a"}]]},
    ),
    Endpoint(
        "POST",
        "/api/v1/auth/login",
        "anonymous",
        {"username": "jianf", "password": "password123"},
        {"username": ["admin", "JIANF"], "password": ["wrong"]},
    ),
    Endpoint(
        "POST",
        "/api/v1/admin/users",
        "admin",
        {"name": "eve", "password": "password123"},
        {"name": ["builder", "jianf"], "is_admin": [True]},
    ),
    Endpoint(
        "POST",
        "/api/v1/me/keys",
        "human",
        {"lifecycle": "timed", "expires_in": "1h"},
        {"label": ["k"], "lifecycle": ["permanent", "one_time"], "expires_in": [1, 0]},
    ),
    Endpoint(
        "POST",
        "/api/v1/admin/agent-keys",
        "admin",
        {"lifecycle": "permanent", "label": "k"},
        {"lifecycle": ["timed", "one_time"], "expires_in": [1, "1h"], "key": ["k" * 40]},
    ),
    Endpoint(
        "PATCH",
        "/api/v1/me/sessions/{session_id}",
        "human",
        {"subject": "renamed"},
        {
            "session_alias": ["renamed", "new"],
            "clear_alias": [True],
            "status": ["completed", "active", "waiting"],
        },
    ),
]


def _bodies(endpoint: Endpoint) -> st.SearchStrategy[Any]:
    """Mostly the valid body with a few fields changed or dropped; also anything at all."""

    def value(name: str) -> st.SearchStrategy[Any]:
        plausible = endpoint.plausible[name]
        texts = [v for v in plausible if isinstance(v, str)] or ["x"]
        spiced = st.tuples(st.sampled_from(texts), st.integers(0, 64), st.sampled_from(SPECIALS))
        return st.one_of(
            st.sampled_from(plausible),
            spiced.map(lambda t: t[0][: t[1]] + t[2] + t[0][t[1] :]),
            _TEXT,
            JSON_VALUES,
        )

    names = sorted(endpoint.plausible)
    changes = st.fixed_dictionaries({}, optional={name: value(name) for name in names})
    mutated = st.tuples(
        changes,
        st.sets(st.sampled_from(names), max_size=1),
        st.dictionaries(_TEXT, JSON_VALUES, max_size=2),
    ).map(
        lambda t: {
            **t[2],
            **{k: v for k, v in {**endpoint.valid, **t[0]}.items() if k not in t[1]},
        }
    )
    return st.one_of(mutated, mutated, mutated, changes, JSON_VALUES)


REQUESTS = st.sampled_from(ENDPOINTS).flatmap(
    lambda endpoint: st.tuples(st.just(endpoint), _bodies(endpoint))
)


@functools.cache
def generate_requests(count: int) -> list[tuple[Endpoint, Any]]:
    """`count` (endpoint, body) pairs drawn by hypothesis; the same ones every run (and backend)."""
    drawn: list[tuple[Endpoint, Any]] = []

    @settings(
        max_examples=count,
        database=None,
        derandomize=True,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(REQUESTS)
    def collect(request: tuple[Endpoint, Any]) -> None:
        drawn.append(request)

    collect()
    return drawn


def _fill(value: Any, real: dict[str, str]) -> Any:
    """Put the real ids in place of the `{mail_id}` / `{session_id}` placeholders."""
    if isinstance(value, str) and value in ("{mail_id}", "{session_id}"):
        return real[value.strip("{}")]
    if isinstance(value, dict):
        return {k: _fill(v, real) for k, v in value.items()}
    return value


FUZZ_REQUESTS = 150


async def test_fuzzed_bodies_never_give_a_500(api: Api) -> None:
    human, builder = await parties(api)
    admin = api.client(await api.user_key(await api.admin()))
    task = await human.post(
        "/api/v1/me/mail/send", json={"to": "builder@ModelRouter", "subject": "task"}
    )
    assert task.status_code == 200, task.text
    asked = await builder.post(
        "/api/v1/permission/request",
        json={
            "to": "jianf@",
            "question": "May I?",
            "options": ["yes", "no"],
            "session_id": task.json()["session_id"],
        },
    )
    assert asked.status_code == 200, asked.text
    real = {"mail_id": asked.json()["mail_id"], "session_id": task.json()["session_id"]}
    callers = {"human": human, "agent": builder, "admin": admin, "anonymous": api.client()}

    by_endpoint: dict[str, list[str]] = {}
    for endpoint, body in generate_requests(FUZZ_REQUESTS):
        # NaN and Infinity on purpose: Python's JSON reader takes them.
        by_endpoint.setdefault(repr(endpoint), []).append(json.dumps(_fill(body, real)))
    assert len(by_endpoint) == len(ENDPOINTS)

    responses: list[httpx.Response] = []

    async def replay(endpoint: Endpoint, bodies: list[str]) -> None:
        # One endpoint's requests go one after another, the endpoints side by side.
        client = callers[endpoint.caller]
        for raw in bodies:
            path = endpoint.path.format(**real)
            responses.append(await send_raw(client, endpoint.method, path, raw))

    await asyncio.gather(*(replay(e, by_endpoint[repr(e)]) for e in ENDPOINTS))
    assert len(responses) == FUZZ_REQUESTS
    assert_no_server_errors(responses)
    # The generated bodies reach past validation too.
    assert sum(r.status_code < 300 for r in responses) > FUZZ_REQUESTS // 10
