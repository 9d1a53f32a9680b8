"""A gateway that takes mail from outside on its MX listener (a free port), with a local
smarthost and a local DNS server that knows no sender's records: nothing proves a
sender's domain, so no mail from outside decides. And the reply address of the reply
token it issued, as a request's copy outside names it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from sqlalchemy import select

from core.secrets.reply_token import ensure_reply_key, token_for
from core.store.models import ReplyToken
from gateway.server import Gateway
from tests.support.gateway import running_gateway
from tests.support.outside.dns import running_dns
from tests.support.smarthost import smarthost

DOMAIN = "agentmail.localhost"


@asynccontextmanager
async def mx_gateway(
    database_url: str, data_dir: Path, outside: str = "out.test"
) -> AsyncIterator[Gateway]:
    async with (
        smarthost() as host,
        running_dns(None, "127.0.0.1", [outside], port=0) as dns,
        running_gateway(
            database_url,
            data_dir,
            mx_port=0,
            smarthost=host.address,
            smarthost_tls="none",
            dns_servers=f"127.0.0.1:{dns.port}",
        ) as running,
    ):
        yield running


async def reply_address(gateway: Gateway) -> str:
    """`reply+<token>@` the gateway's domain, for the one reply token issued so far."""
    store = gateway.store
    assert store is not None
    row = await store.read(lambda s: s.scalar(select(ReplyToken)))
    assert row is not None
    key = await ensure_reply_key(store, gateway.secrets)
    token = token_for(key, row.id, row.mail_id, row.owner, row.address)
    return f"reply+{token}@{DOMAIN}"
