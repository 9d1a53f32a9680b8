"""What the IMAP benchmarks (`imap_fetch.py`, `imap_qresync.py`, `imap_load.py`) share:
a fresh gateway for the run, accounts over HTTP, mail over REST, the same bytes into
Dovecot's Maildir, and a big INBOX written in bulk.
"""

from __future__ import annotations

import argparse
import asyncio
import imaplib
import os
import re
import shutil
import tempfile
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
from _children import (
    ROOT,
    VENV_BIN,
    Child,
    drop_pg_database,
    free_port,
    fresh_database,
    gateway_env,
    spawn,
)
from _db import console
from sqlalchemy import func, select, text, update
from sqlalchemy.orm import Session

from core.mailboxes.uids import INBOX, create_folders
from core.store.engine import Store, database_url
from core.store.models import Conversation, Delivery, ImapFolder, ImapUid, Mail, table_of, utcnow
from tests.support.dovecot import Dovecot

ADMIN_PASSWORD = "bench-admin-password"
PASSWORD = "bench-password"
READER = "alice"
HEAVY = "heavy"
AGENT = "builder"
DOMAIN = "agentmail.localhost"


@dataclass(frozen=True, slots=True)
class GatewayRun:
    """The gateway of one benchmark run (its own process) and where it keeps its data."""

    child: Child
    imap_port: int
    base_url: str
    workdir: Path
    database_url: str  # the fresh database ("" for SQLite in the data dir)

    def store(self) -> Store:
        """The gateway's store, opened beside it (bulk fills)."""
        return Store(database_url(self.database_url, self.workdir / "data" / "agentmail.db"))


async def start_gateway(
    workdir: Path, fresh_database_url: str, root: Path = ROOT
) -> tuple[Child, int, str]:
    """A gateway running `root`'s code (bench/imap_pair.py starts two trees)."""
    env = gateway_env(ADMIN_PASSWORD, fresh_database_url)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))
    http_port, imap_port = free_port(), free_port()
    argv = [str(VENV_BIN / "agentmail"), "serve", "--http-port", str(http_port)]
    argv += ["--data-dir", str(workdir / "data"), "--imap-port", str(imap_port)]
    argv += ["--smtp-port", str(free_port())]
    gateway = spawn("gateway", argv, env, workdir / "gateway.log", http_port)
    await gateway.wait_healthy("/api/v1/health")
    return gateway, imap_port, gateway.base_url


@asynccontextmanager
async def gateway_run(
    args: argparse.Namespace, title: str, machine: str, *, keep: bool = False
) -> AsyncIterator[GatewayRun]:
    """A fresh data dir or PostgreSQL database (`args.database_url`), the header lines,
    the gateway started; at the end it is stopped, its database dropped and the temp dir
    removed (unless `keep`). A failure prints the tail of the gateway's log."""
    workdir = Path(tempfile.mkdtemp(prefix="agentmail-bench-imap-"))
    fresh_url, backend = await fresh_database(args.database_url, "WAL, fresh file")
    console.print(title)
    console.print(f"database     {backend}")
    console.print(f"machine      {os.cpu_count()} CPUs; {machine}")
    gateway: Child | None = None
    try:
        gateway, imap_port, base_url = await start_gateway(workdir, fresh_url)
        yield GatewayRun(gateway, imap_port, base_url, workdir, fresh_url)
    except Exception:
        if gateway is not None:
            console.print(gateway.tail())
        raise
    finally:
        if gateway is not None:
            await gateway.stop()
        if fresh_url:
            await drop_pg_database(args.database_url, fresh_url)
        if keep:
            console.print(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


async def fill_heavy(run: GatewayRun, count: int) -> float:
    """`fill_heavy_inbox` through a store opened beside the gateway; returns the seconds."""
    store = run.store()
    try:
        started = asyncio.get_running_loop().time()
        await fill_heavy_inbox(store, count)
        return asyncio.get_running_loop().time() - started
    finally:
        await store.close()


async def setup_accounts(base_url: str) -> str:
    """The humans `alice` and `heavy`, and the agent `builder`; returns the agent's key."""
    async with httpx.AsyncClient(
        base_url=base_url, headers={"Origin": base_url}, timeout=30.0
    ) as http:
        login = {"username": "admin", "password": ADMIN_PASSWORD}
        (await http.post("/api/v1/auth/login", json=login)).raise_for_status()
        for name in (READER, HEAVY):
            user = {"name": name, "password": PASSWORD, "is_admin": False}
            (await http.post("/api/v1/admin/users", json=user)).raise_for_status()
        issued = await http.post("/api/v1/admin/agent-keys", json={"lifecycle": "permanent"})
        issued.raise_for_status()
        key = str(issued.json()["key"])
        agent = {"name": AGENT, "workspaces": [{"name": "ws", "path": "/srv/ws"}], "platform": "b"}
        registered = await http.post(
            "/api/v1/agent/register", json=agent, headers={"Authorization": f"Bearer {key}"}
        )
        registered.raise_for_status()
        return str(registered.json().get("key") or key)


BODY = (
    "Here is what I found while working on the task.\n\n"
    "- the build passes on **main**\n- two tests are flaky, see `tests/test_io.py`\n\n"
    "I will go on with the next step unless you say otherwise. " * 3
)


def agent_client(base_url: str, key: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        base_url=base_url, timeout=30.0, headers={"Authorization": f"Bearer {key}"}
    )


async def send_one(agent: httpx.AsyncClient, subject: str) -> None:
    payload = {"to": f"{READER}@", "subject": subject, "body": BODY, "budget": "unlimited"}
    response = await agent.post("/api/v1/mail/send", json=payload)
    if response.status_code != 200:
        raise RuntimeError(f"send failed: {response.status_code} {response.text}")


async def fill_over_rest(base_url: str, key: str, count: int, concurrency: int = 8) -> None:
    """`count` mails from the agent to alice's INBOX over REST (rendered when read)."""
    async with agent_client(base_url, key) as agent:
        await send_one(agent, "Status report 0000")  # opens the conversation, unlimited
        numbers = iter(range(1, count))

        async def sender() -> None:
            for n in numbers:
                await send_one(agent, f"Status report {n:04d}: step {n % 17} done")

        await asyncio.gather(*(sender() for _ in range(concurrency)))


def _copy(gateway_port: int, server: Dovecot) -> int:
    """Every INBOX message of alice's, as the gateway serves it, into Dovecot's Maildir."""
    client = imaplib.IMAP4("127.0.0.1", gateway_port, timeout=120)
    try:
        client.login(READER, PASSWORD)
        client.select("INBOX", readonly=True)
        typ, data = client.fetch("1:*", "(BODY.PEEK[])")
        assert typ == "OK", data
    finally:
        client.logout()
    copied = 0
    for item in data:
        if isinstance(item, tuple):
            number = re.match(rb"(\d+) ", item[0])
            assert number is not None
            server.place(f"{int(number.group(1)):06d}.bench:2,", item[1])
            copied += 1
    return copied


async def copy_to_dovecot(gateway_port: int, server: Dovecot) -> int:
    return await asyncio.to_thread(_copy, gateway_port, server)


def _inserts(rows: dict[Any, list[dict[str, Any]]]) -> Callable[[Session], None]:
    def run(session: Session) -> None:
        for model, values in rows.items():
            session.connection().execute(table_of(model).insert(), values)

    return run


async def fill_heavy_inbox(store: Store, count: int, batch: int = 20_000) -> None:
    """`count` mails into heavy's INBOX by bulk inserts (rows as the write path makes
    them: a mail, a delivery, an INBOX UID), not `count` REST calls. 10% unread."""
    conversation = str(uuid.uuid4())
    now = utcnow()

    def prepare(session: Session) -> int:
        session.connection().execute(
            table_of(Conversation).insert(),
            [
                {
                    "id": conversation,
                    "alias": "heavy-load",
                    "subject": "heavy load",
                    "status": "active",
                    "budget_used": 0,
                    "created_by": AGENT,
                    "created_at": now,
                    "updated_at": now,
                }
            ],
        )
        create_folders(session, HEAVY, [INBOX])
        return int(session.scalar(select(func.coalesce(func.max(Mail.seq), 0))) or 0)

    first_seq = await store.write(prepare)
    folder_id = await store.read(
        lambda s: s.scalar(
            select(ImapFolder.id).where(ImapFolder.owner == HEAVY, ImapFolder.key == INBOX)
        )
    )
    for start in range(0, count, batch):
        numbers = range(start, min(count, start + batch))
        mails, deliveries, uids = [], [], []
        for n in numbers:
            seq, mail_id = first_seq + 1 + n, str(uuid.uuid4())
            mails.append(
                {
                    "seq": seq,
                    "id": mail_id,
                    "session_id": conversation,
                    "from_name": AGENT,
                    "from_path": "ws",
                    "to_name": HEAVY,
                    "cc": [],
                    "subject": f"bulk mail {n}",
                    "body": BODY,
                    "message_id": f"<{mail_id}@{DOMAIN}>",
                    "created_at": now - timedelta(seconds=count - n),
                }
            )
            deliveries.append(
                {
                    "mail_seq": seq,
                    "recipient": HEAVY,
                    "is_read": n % 10 != 0,
                    "archived": False,
                    "created_at": now,
                }
            )
            uids.append({"folder_id": folder_id, "uid": n + 1, "mail_seq": seq, "modseq": 1})
        await store.write(_inserts({Mail: mails, Delivery: deliveries, ImapUid: uids}))

    def finish(session: Session) -> None:
        session.execute(
            update(ImapFolder)
            .where(ImapFolder.id == folder_id)
            .values(next_uid=count + 1, highest_modseq=1)
        )
        if store.dialect == "postgresql":  # the gateway's later mails continue after these
            session.execute(
                text("SELECT setval(pg_get_serial_sequence('mails', 'seq'), :n)"),
                {"n": first_seq + count},
            )

    await store.write(finish)
