"""Schemathesis against a running gateway: no 5xx, every response as documented.

The OpenAPI document (`/api/v1/openapi.json`) is the contract. Every operation
gets generated requests, valid and invalid, from three real callers in turn (an
agent key, a user key, an admin's login cookie); schemathesis checks each answer
against the document (status, content type, headers, body schema), that auth is
enforced where it is declared, that invalid input is refused, and that an
undeclared method gets 405 with `Allow`. Half of the valid cases use the ids of
real objects (a mail, a conversation, a draft, an attachment) instead of random
ones, so the routes' real work is exercised, not only their 404s.

Bounded and deterministic in CI (a fixed seed, `examples()` cases an operation
and backend); `make test-long` runs ten times more.
"""

from __future__ import annotations

import itertools
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import requests
import schemathesis
from schemathesis import GenerationMode

from api.app import create_app
from core.settings import Settings
from tests.conftest import BACKENDS
from tests.support.fuzzing import PROFILE, examples
from tests.support.gateway import Api
from tests.support.threaded import gateway_in_thread

pytestmark = pytest.mark.fuzz

SEED = 20261201
EXAMPLES = examples(12)  # per operation and backend: ~75 operations x 2 backends
# Not tested here: the SSE stream never ends (tests/integration/test_sse_fuzz.py).
EXCLUDED = r"/events/stream$"


def _document() -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as data_dir:
        app = create_app(Settings(data_dir=Path(data_dir)), store=None)  # type: ignore[arg-type]
        return app.openapi()


DOCUMENT = _document()
CONFIG = schemathesis.Config.from_dict(
    {
        **({} if PROFILE == "long" else {"seed": SEED}),
        "generation": {
            "max-examples": EXAMPLES,
            "deterministic": PROFILE != "long",
            "database": "none",
            # The request guard refuses NUL in any text (422); schemathesis's
            # positive cases must be valid, so they carry none.
            "allow-x00": False,
            # The callers below bring real credentials; generated ones prove nothing.
            "with-security-parameters": False,
        },
        "checks": {
            # 422 is also the answer to schema-valid input the domain refuses (an
            # address nobody has, a workspace the agent lacks): not a contract breach.
            "positive_data_acceptance": {"enabled": False},
        },
        "phases": {"coverage": {"enabled": PROFILE == "long"}},
    }
)
schema = schemathesis.openapi.from_dict(DOCUMENT, config=CONFIG).exclude(path_regex=EXCLUDED)


@dataclass
class Served:
    """A running gateway, its callers' credentials and the ids of real objects."""

    base_url: str
    callers: dict[str, dict[str, str]]
    ids: dict[str, list[str]]
    sessions: dict[str, requests.Session] = field(default_factory=dict)
    turns: dict[str, Iterator[int]] = field(default_factory=dict)

    def session(self, caller: str) -> requests.Session:
        return self.sessions.setdefault(caller, requests.Session())


async def _prepare(api: Api) -> tuple[dict[str, dict[str, str]], dict[str, list[str]]]:
    admin = await api.admin()
    alice = await api.human("alice")
    user_key = await api.user_key(alice)
    builder = await api.agent("builder")
    task = await alice.post(
        "/api/v1/me/mail/send", json={"to": "builder@ModelRouter", "subject": "task", "body": "b"}
    )
    assert task.status_code == 200, task.text
    session_id = task.json()["session_id"]
    asked = await builder.post(
        "/api/v1/permission/request",
        json={
            "to": "alice@",
            "question": "May I?",
            "options": ["yes", "no"],
            "session_id": session_id,
        },
    )
    assert asked.status_code == 200, asked.text
    draft = await alice.post(
        "/api/v1/me/drafts", json={"to": "builder@ModelRouter", "subject": "d"}
    )
    assert draft.status_code == 201, draft.text
    upload = await builder.post("/api/v1/attachments", files={"file": ("a.txt", b"hello")})
    assert upload.status_code == 200, upload.text
    cookie = admin.cookies["agentmail_session"]
    callers = {
        "agent": {"Authorization": builder.headers["authorization"]},
        "user key": {"Authorization": f"Bearer {user_key}"},
        # The web UI's way: the cookie, and the Origin a browser sends with it.
        "admin cookie": {"Cookie": f"agentmail_session={cookie}", "Origin": api.base_url},
    }
    ids = {
        "mail_id": [task.json()["mail_id"], asked.json()["mail_id"]],
        "session_id": [session_id],
        "draft_id": [draft.json()["draft_id"]],
        "attachment_id": [upload.json()["attachment_id"]],
        "name": ["builder"],
    }
    return callers, ids


@pytest.fixture(scope="module", params=BACKENDS)
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    backend = str(request.param)
    with gateway_in_thread(
        backend, tmp_path_factory.mktemp(backend), _prepare, new_conversations_per_hour=100_000
    ) as (gateway, (callers, ids)):
        served = Served(gateway.http_url, callers, ids)
        yield served
        for session in served.sessions.values():
            session.close()


def _use_real_ids(case: Any, served: Served, turn: int) -> None:
    """Every other valid case addresses real objects instead of random ids."""
    if case.meta is None or case.meta.generation.mode is not GenerationMode.POSITIVE:
        return
    if not case.path_parameters or turn % 2:
        return
    for name in list(case.path_parameters):
        known = served.ids.get(name)
        if known:
            case.path_parameters[name] = known[(turn // 2) % len(known)]


@schema.parametrize()
def test_every_answer_is_documented_and_no_5xx(case: Any, served: Served) -> None:
    label = case.operation.label
    turn = next(served.turns.setdefault(label, itertools.count()))
    callers = list(served.callers)
    if label == "POST /api/v1/auth/logout":
        callers.remove("admin cookie")  # it would end the login the other cases use
    caller = callers[turn % len(callers)]
    _use_real_ids(case, served, turn)
    case.call_and_validate(
        base_url=served.base_url, headers=served.callers[caller], session=served.session(caller)
    )


def test_the_served_document_is_the_tested_one(served: Served) -> None:
    served_document = requests.get(f"{served.base_url}/api/v1/openapi.json", timeout=10).json()
    assert served_document == DOCUMENT
