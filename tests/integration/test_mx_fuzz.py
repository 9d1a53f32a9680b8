"""The MX listener fuzzed: `RCPT TO` with any path, and hostile headers and MIME
delivered to a real reply address. Every command gets one clear reply (none an
exception of our handler); only the reply address is ever accepted; every message is
stored (250) or refused for good; after each the gateway still answers HTTP, SMTP,
IMAP and MX. DNS is a local server that knows no sender's records: no pass, no
decision."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from hypothesis import strategies as st

from core.store.models import ExternalAddress, utcnow
from gateway.server import Gateway
from tests.support import liveness
from tests.support.fuzzing import drawn, examples
from tests.support.gateway import Api
from tests.support.mime_fuzz import messages, pathological
from tests.support.mx_gateway import DOMAIN as D
from tests.support.mx_gateway import mx_gateway, reply_address
from tests.support.raw_lines import raw_connection

pytestmark = pytest.mark.fuzz


@pytest.fixture
async def gateway(database_url: str, tmp_path: Path) -> AsyncIterator[Gateway]:
    async with mx_gateway(database_url, tmp_path / "data") as running:
        yield running


async def _reply_address(gateway: Gateway) -> str:
    """alice's verified address outside, a request to her, and its reply address."""
    store = gateway.store
    assert store is not None
    api = Api(gateway)
    try:
        await api.human("alice")
        builder = await api.agent("builder")
        now = utcnow()
        await store.write(
            lambda s: s.add(ExternalAddress(owner="alice", address="a@out.test", verified_at=now))
        )
        asked = await builder.post(
            "/api/v1/permission/request", json={"to": "alice@", "question": "May I?"}
        )
        assert asked.status_code == 200, asked.text
    finally:
        await api.close()
    return await reply_address(gateway)


_path = st.one_of(
    st.binary(max_size=80).map(lambda b: b.replace(b"\r", b"").replace(b"\n", b"")),
    st.sampled_from([b"<alice@" + D.encode() + b">", b"<builder@" + D.encode() + b">",
                     b"<postmaster>", b"<>", b"<reply+@" + D.encode() + b">",
                     b"<reply+" + b"a" * 42 + b"@" + D.encode() + b">",
                     b"<reply+" + b"a" * 4000 + b"@" + D.encode() + b">"]),
)  # fmt: skip


@functools.cache
def _drawn(kind: str, count: int) -> list[bytes]:
    strategy = {"rcpt": _path, "mime": messages, "hostile": pathological}[kind]
    return drawn(strategy, count)


def _code(lines: list[bytes]) -> int:
    last = lines[-1] if lines else b""
    return int(last[:3]) if last[:3].isdigit() else 0


async def test_rcpt_paths_are_refused_but_the_reply_address(gateway: Gateway) -> None:
    assert gateway.mx_port is not None
    paths = _drawn("rcpt", examples(60))  # drawn before the baseline: drawing blocks the loop
    baseline = await liveness.baseline(gateway)
    good = await _reply_address(gateway)
    async with raw_connection(gateway.mx_port) as mx:
        assert (await mx.smtp_reply())[-1].startswith(b"220")
        ehlo = await mx.smtp(b"EHLO fuzz.example\r\n")
        assert not any(b"AUTH" in line for line in ehlo)
        assert _code(await mx.smtp(b"AUTH PLAIN AGFsaWNlAHg=\r\n")) == 502
        assert _code(await mx.smtp(b"MAIL FROM:<x@stranger.test>\r\n")) == 250
        for path in paths:
            lines = await mx.smtp(b"RCPT TO:" + path + b"\r\n")
            assert 500 <= _code(lines) < 600, (path, lines)
            assert not any(b"500 Error: (" in line for line in lines), (path, lines)
        accepted = await mx.smtp(b"RCPT TO:<" + good.encode() + b">\r\n")
        assert _code(accepted) == 250, accepted
    await liveness.assert_alive(gateway, baseline)


@pytest.mark.parametrize("kind", ["mime", "hostile"])
async def test_messages_to_a_reply_address_are_stored_or_refused(
    gateway: Gateway, kind: str
) -> None:
    assert gateway.mx_port is not None
    cases = _drawn(kind, examples(8 if kind == "mime" else 4))  # before the baseline, as above
    baseline = await liveness.baseline(gateway)
    good = await _reply_address(gateway)
    for raw in cases:
        async with raw_connection(gateway.mx_port) as mx:
            await mx.smtp_reply()
            await mx.smtp(b"EHLO fuzz.example\r\n")
            await mx.smtp(b"MAIL FROM:<a@out.test>\r\n")
            assert _code(await mx.smtp(b"RCPT TO:<" + good.encode() + b">\r\n")) == 250
            assert _code(await mx.smtp(b"DATA\r\n")) == 354
            body = raw.replace(b"\r\n.", b"\r\n..")
            if not body.endswith(b"\r\n"):
                body += b"\r\n"
            lines = await mx.smtp(body + b".\r\n")
            assert _code(lines) == 250 or 500 <= _code(lines) < 600, lines
        await liveness.assert_alive(gateway, baseline)
