"""The PROXY header parser's bounds (core/proxied/header.py) and who counts as the client
(core/proxied/peer.py): whatever octets come, the parser asks for no more than v1's 107 or
v2's 16 + `V2_MAX_BODY` in all, and ends with a result or a refusal; headers the
`proxy-protocol` library builds, v1 and v2, parse whole and read not one octet past
their end (a real socket pair: what follows is left for the protocol or TLS)."""

from __future__ import annotations

import asyncio
import ipaddress
import socket

import pytest
from hypothesis import given
from hypothesis import strategies as st
from proxyprotocol.result import ProxyResult, ProxyResultLocal, is_ipv4, is_ipv6, is_local
from proxyprotocol.v2 import ProxyProtocolV2
from pydantic import ValidationError

from core.proxied.header import (
    V1_MAX,
    V2_FIXED,
    V2_MAX_BODY,
    HeaderParser,
    HeaderRefused,
    read_header,
)
from core.proxied.peer import Peer, is_trusted, proxied_peer, socket_peer
from core.settings import Settings
from tests.support.proxy_headers import header

V2_SIGNATURE = b"\r\n\r\n\x00\r\nQUIT\n"


def _parse(octets: bytes, chunks: list[int]) -> tuple[ProxyResult | None, int]:
    """Feed `octets` as the parser asks (each read cut to the next of `chunks`, as a
    socket may); the result (None: refused or octets ran out) and how many it took."""
    parser, taken, turn = HeaderParser(), 0, 0
    while True:
        try:
            step = parser.step()
        except HeaderRefused:
            return None, taken
        if not isinstance(step, tuple):
            return step, taken
        most, to_line_end = step
        assert most >= 1
        if to_line_end:
            end = octets.find(b"\n", taken, taken + most)
            most = end + 1 - taken if end >= 0 else most
        cut = chunks[turn % len(chunks)] if chunks else most
        turn += 1
        piece = octets[taken : taken + min(most, max(cut, 1))]
        if not piece:
            return None, taken
        parser.feed(piece)
        taken += len(piece)


hostile = st.one_of(
    st.binary(max_size=300),
    st.binary(max_size=200).map(lambda tail: b"PROXY " + tail),
    st.binary(max_size=300).map(lambda tail: V2_SIGNATURE + tail),
    st.tuples(
        st.integers(0, 255), st.integers(0, 255), st.integers(0, 65535), st.binary(max_size=64)
    ).map(lambda t: V2_SIGNATURE + bytes([t[0], t[1]]) + t[2].to_bytes(2, "big") + t[3]),
)


@given(octets=hostile, chunks=st.lists(st.integers(1, 40), max_size=4))
def test_whatever_comes_the_parser_stays_within_its_bounds(
    octets: bytes, chunks: list[int]
) -> None:
    result, taken = _parse(octets, chunks)
    most = V2_FIXED + V2_MAX_BODY if octets.startswith(V2_SIGNATURE) else V1_MAX
    assert taken <= most
    if result is not None and octets.startswith(b"PROXY "):
        assert octets[:taken].endswith(b"\r\n")


@given(
    client=st.ip_addresses(),
    port=st.integers(0, 65535),
    version=st.sampled_from([1, 2]),
    after=st.binary(max_size=50),
    chunks=st.lists(st.integers(1, 40), max_size=4),
)
def test_a_header_parses_whole_and_no_further(
    client: ipaddress.IPv4Address | ipaddress.IPv6Address,
    port: int,
    version: int,
    after: bytes,
    chunks: list[int],
) -> None:
    made = header(str(client), 2525, version, client_port=port)
    result, taken = _parse(made + after, chunks)
    assert result is not None and taken == len(made)
    assert is_ipv4(result) or is_ipv6(result)
    assert result.peername[:2] == (str(client), port)


def test_a_v2_header_longer_than_the_bound_is_refused_before_it_is_read() -> None:
    parser = HeaderParser()
    parser.feed(V2_SIGNATURE + b"\x21\x11" + (V2_MAX_BODY + 1).to_bytes(2, "big"))
    with pytest.raises(HeaderRefused, match="longer than"):
        parser.step()


def test_a_v1_line_stops_at_107_octets() -> None:
    parser = HeaderParser()
    parser.feed(b"PROXY TCP4 " + b"1" * (V1_MAX - 11))
    with pytest.raises(HeaderRefused, match="107"):
        parser.step()


async def test_read_header_leaves_what_follows_in_the_socket() -> None:
    ours, theirs = socket.socketpair()
    with ours, theirs:
        ours.setblocking(False)
        for made in (header("192.0.2.1", 25), header("2001:db8::1", 25, 2)):
            theirs.sendall(made + b"EHLO next\r\n")
            result = await asyncio.wait_for(read_header(ours), 10)
            assert result.peername is not None
            assert ours.recv(100) == b"EHLO next\r\n"
        theirs.sendall(ProxyProtocolV2().pack(ProxyResultLocal()) + b"\x16\x03")
        assert is_local(await asyncio.wait_for(read_header(ours), 10))
        assert ours.recv(100) == b"\x16\x03"  # a TLS ClientHello's start, untouched
        theirs.sendall(b"PROXY TCP4 1.2")
        theirs.shutdown(socket.SHUT_WR)
        with pytest.raises(HeaderRefused, match="closed"):
            await asyncio.wait_for(read_header(ours), 10)


def test_loopback_needs_both_legs() -> None:
    local_proxy, far_proxy = socket_peer(("127.0.0.1", 1)), socket_peer(("192.0.2.5", 1))
    assert local_proxy.loopback and not far_proxy.loopback
    assert proxied_peer(("127.0.0.1", 2), local_proxy).loopback
    assert proxied_peer(("::1", 2), local_proxy).loopback
    assert not proxied_peer(("127.0.0.1", 2), far_proxy).loopback  # the header alone
    assert not proxied_peer(("203.0.113.7", 2), local_proxy).loopback
    assert proxied_peer(("203.0.113.7", 2), far_proxy) == Peer("203.0.113.7", 2, False, "192.0.2.5")


def test_socket_peers_and_trust() -> None:
    assert socket_peer(("::1", 5000, 0, 0)).loopback
    assert socket_peer(("::ffff:127.0.0.1", 5000, 0, 0)).loopback
    assert not socket_peer(("192.0.2.7", 5000)).loopback
    assert socket_peer(None) == Peer("", 0, False)
    networks = [ipaddress.ip_network("10.0.0.0/8")]
    assert is_trusted("10.1.2.3", networks) and is_trusted("::ffff:10.1.2.3", networks)
    assert not is_trusted("11.0.0.1", networks) and not is_trusted("not an ip", networks)


def test_the_setting_names_listeners() -> None:
    assert Settings(proxy_protocol=" SMTP, imaps,").proxy_protocol_listeners == {"smtp", "imaps"}
    assert Settings().proxy_protocol_listeners == frozenset()
    with pytest.raises(ValidationError, match="the listeners are smtp, smtps, imap, imaps, mx"):
        Settings(proxy_protocol="smtp,http")
