"""CPU and statements per mail of the write path, in process: the paired measure of issue 14.

    PYTHONPATH=$PWD .venv/bin/python bench/send_cpu.py [--path rest|smtp] [--mails 300]
        [--database-url postgresql://postgres@127.0.0.1:5432/test]

No sockets and no HTTP: the REST path is `core.mail.send.send_mail` (a human
mails one of 10 agents, as `rest_loop.py` does); the SMTP path is the real
`smtp_in.handler.SubmissionHandler` driven hook by hook (`MAIL`, `RCPT`,
`DATA` with a 4 KB message to one agent workspace, as `smtp_ingest.py` sends).
Mails go one after another, so the figures are the work of one mail, not of
a queue: CPU ms of this process (every thread) per mail, and the SQL statements
per mail (every engine; BEGIN/COMMIT/SAVEPOINT included on SQLite, where the
driver sends them as statements).

The same script runs against an older tree (`PYTHONPATH=/old/tree`), so a cut is
measured paired: old and new alternately, same command, same machine state. Under
`valgrind --tool=callgrind --collect-atstart=no --toggle-collect=*measured*` the
instruction count of the measured loop is the figure a loaded machine does not move.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from email.utils import formatdate
from pathlib import Path

from _db import fresh_store
from aiosmtpd.smtp import Envelope
from aiosmtpd.smtp import Session as SmtpSession
from sqlalchemy import Engine, event
from sqlalchemy.orm import Session

from core.identity.accounts import create_user
from core.identity.security import set_bcrypt_rounds
from core.mail.send import SendRequest, send_mail
from core.principal import Principal
from core.settings import Limits
from core.store.blobs import BlobStore
from core.store.engine import Store
from core.store.models import Agent
from smtp_in.handler import SubmissionHandler

D = "agentmail.localhost"
HUMAN = Principal(kind="human", name="bench")
AGENTS = 10
BODY = "please look at the retries in the router and report back. " * 8


def engines(store: Store) -> list[Engine]:
    if store.dialect == "sqlite":
        return [store._write_engine, store._read_engine]
    return [store.engine.sync_engine]


async def setup(store: Store) -> None:
    await create_user(store, "bench", "bench-password")

    def agents(session: Session) -> None:
        for n in range(AGENTS):
            session.add(Agent(name=f"agent{n}", workspaces=[{"name": "ws", "path": "/srv/ws"}]))

    await store.write(agents)


def rest_sender(store: Store) -> Callable[[int], Awaitable[None]]:
    async def send(index: int) -> None:
        request = SendRequest(to=f"agent{index % AGENTS}@ws", subject=f"m {index}", body=BODY)
        await send_mail(store, D, HUMAN, request)

    return send


def smtp_sender(store: Store, blobs: BlobStore) -> Callable[[int], Awaitable[None]]:
    handler = SubmissionHandler(store, D, Limits(), blobs, 10 * 2**20)
    sender, to = f"bench@{D}", f"agent0+ws@{D}"
    line = "line of the ingest benchmark, message, padded to size ....\r\n"

    async def send(index: int) -> None:
        head = (
            f"From: {sender}\r\nTo: {to}\r\nSubject: ingest {index:06d}\r\n"
            f"Message-ID: <ingest-{index}-{time.time_ns()}@bench.localhost>\r\n"
            f"Date: {formatdate()}\r\nMIME-Version: 1.0\r\n"
            "Content-Type: text/plain; charset=utf-8\r\n\r\n"
        )
        raw = (head + line * ((4096 - len(head)) // len(line))).encode()
        session = SmtpSession(asyncio.get_running_loop())
        session.auth_data = HUMAN
        envelope = Envelope()
        reply = await handler.handle_MAIL(None, session, envelope, sender, [])  # type: ignore[arg-type]
        assert reply.startswith("250"), reply
        reply = await handler.handle_RCPT(None, session, envelope, to, [])  # type: ignore[arg-type]
        assert reply.startswith("250"), reply
        envelope.original_content = raw
        envelope.content = raw
        reply = await handler.handle_DATA(None, session, envelope)  # type: ignore[arg-type]
        assert reply.startswith("250"), reply

    return send


async def measured(
    send: Callable[[int], Awaitable[None]], first: int, count: int
) -> tuple[float, float]:
    """The loop callgrind toggles on (its name has `measured` in it); CPU seconds in
    user and in system mode (the kernel's share: the WAL's writes and fsyncs)."""
    before = os.times()
    for index in range(first, first + count):
        await send(index)
    after = os.times()
    return after.user - before.user, after.system - before.system


async def main(args: argparse.Namespace) -> int:
    set_bcrypt_rounds(4)
    async with fresh_store(args.database_url) as (store, described):
        await setup(store)
        statements = [0]
        for engine in engines(store):
            event.listen(
                engine,
                "before_cursor_execute",
                lambda *_: statements.__setitem__(0, statements[0] + 1),
            )
        blobs = BlobStore(Path(tempfile.mkdtemp(prefix="agentmail-blobs-")))
        send = rest_sender(store) if args.path == "rest" else smtp_sender(store, blobs)
        for index in range(args.warmup):
            await send(-1 - index)
        before = statements[0]
        user, system = await measured(send, 0, args.mails)
        cpu = user + system
        per_mail = (statements[0] - before) / args.mails
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
        ms = 1000 / args.mails
        print(
            f"{args.path:<4} {described.split(' (')[0]:<16} {cpu * ms:6.2f} ms CPU"
            f" per mail (user {user * ms:.2f}, system {system * ms:.2f})"
            f"   {per_mail:5.1f} statements per mail   ({args.mails} mails, load {load})"
        )
    return 0


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--path", choices=("rest", "smtp"), default="rest")
    parser.add_argument("--mails", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--database-url", default="", help="default: a temp SQLite file")
    return parser.parse_args()


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_args())))
