"""A real nginx (`stream {}` with `proxy_protocol on;`) in front of the SMTP and IMAP
listeners, as docs/deploy.md configures it: the gateway counts each client of nginx by
its own address (the per-address connection limit applies per client, not to nginx),
and an nginx that connects from an address not in AGENTMAIL_TRUSTED_PROXIES is not
believed (all its clients are then one address: the proxy's).

The clients connect to nginx from 127.0.0.2 and 127.0.0.3 (addresses of loopback); nginx
connects to the gateway from 127.0.0.1 (trusted), or from 127.0.0.4 (`proxy_bind`, not
trusted). SQLite only: the listeners are under test, not the store.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.gateway import running_gateway
from tests.support.nginx import NGINX, STREAM_MODULE
from tests.support.nginx_proxy import Upstream, nginx_stream
from tests.support.raw_lines import RawConnection, raw_connection

pytestmark = pytest.mark.skipif(
    not (NGINX.exists() and STREAM_MODULE.exists()) and os.environ.get("CI") != "true",
    reason="Debian's nginx and libnginx-mod-stream (make services installs them; CI fails)",
)


async def _smtp_greeting(connection: RawConnection) -> bytes:
    return (await connection.smtp_reply())[0]


async def test_nginx_proxy_protocol_gives_the_gateway_each_clients_address(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'agentmail.db'}"
    settings = {
        "proxy_protocol": "smtp,imap",
        "trusted_proxies": "127.0.0.1/32",
        "smtp_max_connections_per_address": 1,
        "imap_max_connections_per_address": 1,
    }
    async with running_gateway(url, tmp_path / "data", **settings) as gateway:
        upstreams = [
            Upstream(gateway.smtp_port),
            Upstream(gateway.imap_port),
            Upstream(gateway.smtp_port, bind="127.0.0.4"),
        ]
        async with nginx_stream(tmp_path / "nginx", upstreams) as (smtp, imap, untrusted):
            async with (
                raw_connection(smtp, "127.0.0.2") as first,
                raw_connection(smtp, "127.0.0.2") as again,
                raw_connection(smtp, "127.0.0.3") as other,
            ):
                assert (await _smtp_greeting(first)).startswith(b"220")
                assert (await _smtp_greeting(again)).startswith(b"421 4.7.0 1 connections")
                assert (await _smtp_greeting(other)).startswith(b"220")
                assert (await first.smtp(b"EHLO client.example\r\n"))[-1].startswith(b"250")
            async with (
                raw_connection(imap, "127.0.0.2") as first,
                raw_connection(imap, "127.0.0.2") as again,
                raw_connection(imap, "127.0.0.3") as other,
            ):
                assert (await first.line()).startswith(b"* OK")
                assert (await again.line()).startswith(b"* BYE [LIMIT]")
                assert (await other.line()).startswith(b"* OK")
            # From 127.0.0.4 nginx is not trusted: its header is a command, its clients
            # one address.
            async with raw_connection(untrusted, "127.0.0.2") as first:
                assert (await _smtp_greeting(first)).startswith(b"220")
                assert (await first.smtp_reply())[0][:1] == b"5"  # "PROXY TCP4 …" refused
                async with raw_connection(untrusted, "127.0.0.3") as other:
                    assert (await _smtp_greeting(other)).startswith(b"421 4.7.0 1 connections")
