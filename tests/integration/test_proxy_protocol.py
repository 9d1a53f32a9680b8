"""Listeners behind a TCP proxy that sends HAProxy's PROXY header (core/proxied/): the
client the header names is the one every per-address rule counts, and the loopback rule
judges; only a trusted proxy's header is believed; a trusted proxy's connection without
one is closed; the header precedes TLS on the implicit-TLS ports.

The proxy is this test, connecting from 127.0.0.1 (the trusted proxy) or 127.0.0.2 (not
trusted), with headers the `proxy-protocol` library builds (v1 and v2). These are the
protocols' rules, not the store's: SQLite only.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from core.proxied.listener import HEADER_SECONDS
from gateway.server import Gateway
from tests.support.gateway import PASSWORD, Api, running_gateway
from tests.support.proxy_headers import proxied
from tests.support.raw_lines import RawConnection
from tests.support.tls import Certificate

ALL = "smtp,smtps,imap,imaps,mx"
A, B = "203.0.113.7", "2001:db8::9"


@asynccontextmanager
async def _gateway(tmp_path: Path, **settings: Any) -> AsyncIterator[tuple[Gateway, Certificate]]:
    cert = Certificate(tmp_path / "tls", "localhost", "127.0.0.1")
    values: dict[str, Any] = {
        "proxy_protocol": ALL,
        "trusted_proxies": "127.0.0.1/32",
        "tls_cert": cert.cert,
        "tls_key": cert.key,
        "smtps_port": 0,
        "imaps_port": 0,
        "mx_port": 0,
    }
    values.update(settings)
    url = f"sqlite:///{tmp_path / 'agentmail.db'}"
    async with running_gateway(url, tmp_path / "data", **values) as gateway:
        yield gateway, cert


def _auth(password: str) -> bytes:
    return b"AUTH PLAIN " + base64.b64encode(b"\0jianf\0" + password.encode()) + b"\r\n"


async def _smtp_greeted(connection: RawConnection) -> list[bytes]:
    return await connection.smtp_reply()


async def _smtp_ready(connection: RawConnection) -> None:
    assert (await connection.smtp_reply())[0].startswith(b"220")
    assert (await connection.smtp(b"EHLO proxied.example\r\n"))[-1].startswith(b"250")


@pytest.mark.parametrize("version", [1, 2])
async def test_the_smtp_and_mx_limits_count_the_client_the_header_names(
    tmp_path: Path, version: int
) -> None:
    async with _gateway(tmp_path, smtp_max_connections_per_address=2) as (gateway, _):
        for port in (gateway.smtp_port, gateway.mx_port):
            assert port is not None
            async with AsyncExitStack() as held:
                for _ in range(2):
                    first = await held.enter_async_context(proxied(port, A, version=version))
                    assert (await _smtp_greeted(first))[0].startswith(b"220"), port
                third = await held.enter_async_context(proxied(port, A, version=version))
                refused = await _smtp_greeted(third)
                assert refused[0].startswith(b"421 4.7.0 2 connections from your address")
                other = await held.enter_async_context(proxied(port, B, version=version))
                assert (await _smtp_greeted(other))[0].startswith(b"220")


async def test_the_imap_limit_counts_the_client_over_imaps_too(tmp_path: Path) -> None:
    async with _gateway(tmp_path, imap_max_connections_per_address=1) as (gateway, cert):
        tls = cert.client_context()
        async with (
            proxied(gateway.imap_port, A) as first,
            proxied(gateway.imaps_port or 0, A, version=2, tls=tls) as second,
            proxied(gateway.imaps_port or 0, B, tls=tls) as other,
        ):
            assert (await first.line()).startswith(b"* OK")
            assert (await second.line()).startswith(b"* BYE [LIMIT]")
            assert (await other.line()).startswith(b"* OK")


async def test_the_login_throttle_counts_the_client_across_smtps_and_imaps(
    tmp_path: Path,
) -> None:
    settings = {"login_failures_per_address": 2, "login_delay_seconds": 0.01}
    async with _gateway(tmp_path, **settings) as (gateway, cert):
        api = Api(gateway)
        try:
            await api.human("jianf")
        finally:
            await api.close()
        tls = cert.client_context()
        smtps = gateway.smtps_port or 0
        for _ in range(2):
            async with proxied(smtps, A, tls=tls) as smtp:
                await _smtp_ready(smtp)
                assert (await smtp.smtp(_auth("wrong")))[-1].startswith(b"535")
        async with proxied(smtps, A, tls=tls) as smtp:
            await _smtp_ready(smtp)
            assert (await smtp.smtp(_auth(PASSWORD)))[-1].startswith(b"454 4.7.0")
        async with proxied(gateway.imaps_port or 0, A, version=2, tls=tls) as imap:
            await imap.line()
            said = await imap.imap(b"a", b"a LOGIN jianf " + PASSWORD.encode() + b"\r\n")
            assert said[-1].startswith(b"a NO [UNAVAILABLE]"), said
        async with proxied(smtps, B, tls=tls) as smtp:  # another client of the same proxy
            await _smtp_ready(smtp)
            assert (await smtp.smtp(_auth(PASSWORD)))[-1].startswith(b"235")


async def test_a_proxied_client_is_loopback_only_when_both_legs_are(tmp_path: Path) -> None:
    async with _gateway(tmp_path) as (gateway, _):
        for client, local in ((A, False), ("127.0.0.9", True), ("::1", True)):
            async with proxied(gateway.smtp_port, client) as smtp:
                await _smtp_ready(smtp)
                said = (await smtp.smtp(_auth("wrong")))[-1]
                assert said.startswith(b"535" if local else b"538 5.7.11"), (client, said)
            async with proxied(gateway.imap_port, client) as imap:
                assert (b"LOGINDISABLED" in await imap.line()) is not local, client


async def test_an_untrusted_peer_is_served_as_itself_and_its_header_not_believed(
    tmp_path: Path,
) -> None:
    async with _gateway(tmp_path, smtp_max_connections_per_address=1) as (gateway, _):
        async with proxied(gateway.smtp_port, A, source="127.0.0.2") as first:
            # Served at once (the greeting is not held for a header); the header is a line.
            assert (await first.smtp_reply())[0].startswith(b"220")
            assert (await first.smtp_reply())[0][:1] == b"5"
            async with proxied(gateway.smtp_port, B, source="127.0.0.2") as second:
                said = await second.smtp_reply()
                assert said[0].startswith(b"421 4.7.0 1 connections from your address")
        async with proxied(gateway.imap_port, A, version=2, source="127.0.0.2") as imap:
            greeting = await imap.line()  # 127.0.0.2 is loopback: LOGIN is offered
            assert greeting.startswith(b"* OK") and b"LOGINDISABLED" not in greeting


async def test_a_trusted_proxy_that_sends_no_header_is_closed(tmp_path: Path) -> None:
    async with _gateway(tmp_path) as (gateway, _):
        async with proxied(gateway.smtp_port, None) as smtp:
            await smtp.send(b"EHLO no-header.example\r\n")
            assert await smtp.line() == b""
        async with proxied(gateway.imap_port, None) as imap:
            await imap.send(b"PROXY TCP4 " + b"1" * 200 + b"\r\n")  # past v1's 107 octets
            assert await imap.line() == b""
        async with proxied(gateway.smtps_port or 0, None) as silent:
            reader = silent.reader
            assert await asyncio.wait_for(reader.read(), HEADER_SECONDS + 30) == b""


async def test_readiness_probes_proxied_listeners_with_a_local_header(tmp_path: Path) -> None:
    async with _gateway(tmp_path) as (gateway, _):
        async with httpx.AsyncClient(base_url=gateway.http_url) as http:
            response = await http.get("/readyz")
        assert response.status_code == 200, response.text
