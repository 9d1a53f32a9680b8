"""A listener whose connections fail while their protocol is built is seen, and said.

asyncio drops what a server's protocol factory raises (outside debug mode): the
client's connection is closed, nothing is logged. The gateway wraps every SMTP and
IMAP factory (gateway/protocol_errors.py) and probes its listeners for a greeting
(gateway/listener_probe.py). Here a real asyncio server on loopback whose factory
raises, wrapped as the gateway wraps it: the connection is closed at once, the probe
reports no greeting, the log has the error at ERROR with its stack, once per quiet
period with a count of the rest.
"""

from __future__ import annotations

import asyncio
import logging
import socket

import pytest

from core.proxied.listener import listen_directly
from gateway.listener_probe import Listener, probe
from gateway.protocol_errors import LoggedFactories


class _Broken(asyncio.Protocol):
    def __init__(self, peer: object = None) -> None:
        raise TypeError("descriptor '__weakref__' for 'Handler' objects doesn't apply")


def test_a_failing_factory_is_logged_with_its_stack(caplog: pytest.LogCaptureFixture) -> None:
    factory = LoggedFactories("SMTP")(_Broken)
    with caplog.at_level(logging.ERROR, "agentmail.listeners"):
        for _ in range(3):
            assert not isinstance(factory(None), _Broken)  # a protocol that closes at once
    (record,) = caplog.records  # the two after the first are counted, not logged again
    assert record.levelno == logging.ERROR
    assert "SMTP" in record.getMessage() and "before its greeting" in record.getMessage()
    assert record.exc_info is not None and record.exc_info[0] is TypeError
    assert "__weakref__" in caplog.text and "Traceback" in caplog.text


async def test_a_listener_that_cannot_build_its_protocol_fails_the_probe(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with socket.create_server(("127.0.0.1", 0)) as sock:
        server = await listen_directly(LoggedFactories("SMTP")(_Broken), sock, None, 100)
        port = sock.getsockname()[1]
        try:
            with caplog.at_level(logging.ERROR, "agentmail.listeners"):
                smtp = await probe(Listener("SMTP", "127.0.0.1", port), within=30)
                imap = await probe(Listener("IMAP", "127.0.0.1", port), within=30)
        finally:
            server.close()
            await server.wait_closed()
    assert not smtp.ok and smtp.listening, smtp
    assert smtp.text == f"127.0.0.1:{port}: no SMTP greeting: closed the connection"
    assert not imap.ok and "no IMAP greeting" in imap.text, imap
    assert caplog.records and caplog.records[0].exc_info is not None
    assert "TypeError" in caplog.text


async def test_nothing_listening_is_told_apart() -> None:
    with socket.create_server(("127.0.0.1", 0)) as sock:
        port = sock.getsockname()[1]
    answer = await probe(Listener("IMAP", "127.0.0.1", port), within=30)
    assert not answer.ok and not answer.listening and "nothing listens" in answer.text
