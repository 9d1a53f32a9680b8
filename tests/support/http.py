"""Small assertions shared by the HTTP tests: a 200 with its JSON, or a refusal with its code."""

from __future__ import annotations

from typing import Any

import httpx

HUMAN_SEND = "/api/v1/me/mail/send"
AGENT_SEND = "/api/v1/mail/send"
AGENT_MAIL = "/api/v1/mail"
HUMAN_MAIL = "/api/v1/me/mail"


def ok(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def refused(response: httpx.Response, status: int, code: str) -> str:
    """Assert the status and the error code; return the message for further checks."""
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == code, error
    message: str = error["message"]
    return message
