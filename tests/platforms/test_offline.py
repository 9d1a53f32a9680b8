"""The suite's own ground: only loopback exists, and the fake model answers on it."""

from __future__ import annotations

import socket

import httpx
import pytest

from tests.support.fake_model import FakeModel, say


def test_nothing_beyond_loopback_is_reachable() -> None:
    assert [name for _, name in socket.if_nameindex()] == ["lo"]
    with pytest.raises(OSError):
        socket.create_connection(("192.0.2.1", 443), timeout=1)
    with pytest.raises(OSError):  # no name resolves either (resolv.conf's server is unreachable)
        socket.getaddrinfo("registry.npmjs.org", 443)


async def test_the_fake_model_answers_on_loopback(model: FakeModel) -> None:
    model.script = lambda exchange: say("pong")
    async with httpx.AsyncClient(base_url=model.openai_base) as http:
        body = {"model": "fake-model", "messages": [{"role": "user", "content": "ping"}]}
        answer = (await http.post("/chat/completions", json=body)).json()
    assert answer["choices"][0]["message"]["content"] == "pong"
    assert [exchange.task for exchange in model.log] == ["ping"]
