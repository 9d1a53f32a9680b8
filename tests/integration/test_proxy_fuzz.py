"""Fuzzed PROXY headers from a trusted proxy (core/proxied/header.py): mangled v1 lines
and v2 headers, lengths past the bounds, random octets, a valid header with garbage after
it. Each connection either gets its protocol's greeting (the header was whole) or is
closed; none hangs, and after each the whole gateway still serves HTTP, SMTP and IMAP
with no stall of its loop and no growth of its memory (tests/support/liveness.py). The
gateway runs in a thread, so a hung loop fails the check instead of hanging the test.

The proxy is 127.0.0.2 (trusted); the liveness checks connect from 127.0.0.1, which is
not, so they are served as direct clients.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from pathlib import Path

import pytest
from hypothesis import strategies as st

from core.proxied.header import V1_MAX, V2_MAX_BODY
from gateway.server import Gateway
from tests.support import liveness
from tests.support.fuzzing import drawn, examples
from tests.support.gateway import Api
from tests.support.proxy_headers import header
from tests.support.threaded import gateway_in_thread

pytestmark = pytest.mark.fuzz

PROXY = "127.0.0.2"
V2_SIGNATURE = b"\r\n\r\n\x00\r\nQUIT\n"
_V1 = header("203.0.113.7", 2525)
_V2 = header("2001:db8::7", 143, 2)


def _mangled(valid: bytes) -> st.SearchStrategy[bytes]:
    """`valid` with a stretch replaced, cut short, or followed by garbage."""
    return st.one_of(
        st.tuples(st.integers(0, len(valid)), st.integers(0, 8), st.binary(max_size=8)).map(
            lambda t: valid[: t[0]] + t[2] + valid[t[0] + t[1] :]
        ),
        st.integers(0, len(valid)).map(lambda n: valid[:n]),
        st.binary(max_size=200).map(lambda tail: valid + tail),
    )


_inputs = st.one_of(
    _mangled(_V1),
    _mangled(_V2),
    st.binary(max_size=300),
    st.integers(V1_MAX - 20, V1_MAX + 50).map(lambda n: b"PROXY TCP4 " + b"1" * n + b"\r\n"),
    st.tuples(st.integers(0, 65535), st.binary(max_size=64)).map(
        lambda t: V2_SIGNATURE + b"\x21\x11" + t[0].to_bytes(2, "big") + t[1]
    ),
    st.just(V2_SIGNATURE + b"\x21\x11" + (V2_MAX_BODY + 1).to_bytes(2, "big") + b"\0" * 70_000),
)


@functools.cache
def headers(count: int) -> list[bytes]:
    """`count` inputs, the same every CI run."""
    return drawn(_inputs, count)


async def _send(port: int, octets: bytes) -> bytes:
    """Connect from the proxy, send `octets`, end our side; the server's first line, or
    b"" when it closed the connection without one."""
    reader, writer = await asyncio.wait_for(
        asyncio.open_connection("127.0.0.1", port, local_addr=(PROXY, 0)), liveness.MARGIN
    )
    try:
        with contextlib.suppress(OSError):  # the server may have closed already
            writer.write(octets)
            await writer.drain()
            if writer.can_write_eof():
                writer.write_eof()
        try:
            return await asyncio.wait_for(reader.readline(), liveness.MARGIN)
        except OSError:
            return b""
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await writer.wait_closed()


async def _nothing(api: Api) -> None:
    return None


async def _replay(gateway: Gateway, cases: list[bytes]) -> None:
    since = await liveness.baseline(gateway)
    ports = [(gateway.smtp_port, b"220"), (gateway.imap_port, b"* OK")]
    for number, octets in enumerate(cases):
        port, greeting = ports[number % len(ports)]
        first = await _send(port, octets)
        assert first == b"" or first.startswith(greeting), (octets, first)
        await liveness.assert_alive(gateway, since)


async def test_fuzzed_proxy_headers_never_hang_or_grow_the_gateway(tmp_path: Path) -> None:
    cases = [_V1, _V2, *headers(examples(60))]
    settings = {"proxy_protocol": "smtp,imap,mx", "trusted_proxies": f"{PROXY}/32"}
    with gateway_in_thread("sqlite", tmp_path, _nothing, mx_port=0, **settings) as (running, _):
        await _replay(running, cases)
        # A valid header is believed: each connection greets (none was one too many).
        assert (await _send(running.smtp_port, _V1)).startswith(b"220")
