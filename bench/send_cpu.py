"""CPU and statements per mail of the write path, in process, for paired before/after runs.

    PYTHONPATH=$PWD .venv/bin/python bench/send_cpu.py [--path rest|http|smtp] [--mails 300]
        [--database-url postgresql://postgres@127.0.0.1:5432/postgres]

No sockets and no HTTP: the REST path is `core.mail.send.send_mail` (a human
mails one of 10 agents, as `rest_loop.py` does); the SMTP path is the real
`smtp_in.handler.SubmissionHandler` driven hook by hook (`MAIL`, `RCPT`,
`DATA` with a 4 KB message to one agent workspace, as `smtp_ingest.py` sends).
The HTTP path is the REST one through the whole FastAPI app (`api.app.create_app`,
its middlewares, routing, dependencies, the response), called as ASGI with a
bearer key: no server and no socket, so `http` minus `rest` is what the API
layer costs a send.
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
import json
import os
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from email.utils import formatdate
from pathlib import Path

from _db import engines, fresh_store
from aiosmtpd.smtp import Envelope
from aiosmtpd.smtp import Session as SmtpSession
from sqlalchemy import event
from sqlalchemy.orm import Session
from starlette.types import Message, Scope

from api.app import create_app
from core.identity.accounts import create_user
from core.identity.keys import issue_key
from core.identity.security import set_bcrypt_rounds
from core.mail.send import SendRequest, send_mail
from core.principal import Principal
from core.settings import Limits, Settings
from core.store.blobs import BlobStore
from core.store.credentials import CredentialCache
from core.store.engine import Store
from core.store.file_blobs import FileBlobs
from core.store.models import Agent
from smtp_in.handler import SubmissionHandler

D = "agentmail.localhost"
HUMAN = Principal(kind="human", name="bench")
AGENTS = 10
BODY = "please look at the retries in the router and report back. " * 8


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


async def http_sender(store: Store) -> Callable[[int], Awaitable[None]]:
    data_dir = Path(tempfile.mkdtemp(prefix="agentmail-http-"))
    settings = Settings(data_dir=data_dir, domain=D)
    app = create_app(settings, store)
    # The gateway's store remembers a verified key for a few seconds (gateway/server.py).
    store.credentials = CredentialCache(settings.credential_cache_seconds)
    key = (await issue_key(store, kind="user", lifecycle="permanent", owner="bench")).key
    assert key is not None
    headers = [
        (b"host", b"127.0.0.1:8025"),
        (b"authorization", f"Bearer {key}".encode()),
        (b"content-type", b"application/json"),
    ]

    async def send(index: int) -> None:
        mail = {"to": f"agent{index % AGENTS}@ws", "subject": f"m {index}", "body": BODY}
        encoded = json.dumps(mail).encode()
        scope: Scope = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": "http",
            "path": "/api/v1/me/mail/send",
            "raw_path": b"/api/v1/me/mail/send",
            "root_path": "",
            "query_string": b"",
            "headers": [*headers, (b"content-length", str(len(encoded)).encode())],
            "client": ("127.0.0.1", 40000),
            "server": ("127.0.0.1", 8025),
            "state": {},
        }
        messages: list[Message] = [{"type": "http.request", "body": encoded, "more_body": False}]
        status: list[int] = []

        async def receive() -> Message:
            return messages.pop() if messages else {"type": "http.disconnect"}

        async def reply(message: Message) -> None:
            if message["type"] == "http.response.start":
                status.append(message["status"])

        await app(scope, receive, reply)
        assert status == [200], status

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
) -> tuple[float, float, float]:
    """The loop callgrind toggles on (its name has `measured` in it): CPU seconds of the
    process in user and in system mode (the kernel's share: the WAL's writes and fsyncs),
    and of the event loop's thread alone (HTTP, routing, dependencies and the response
    run there; the SQLite writer's thread does not), which varies less."""
    before, loop = os.times(), time.thread_time()
    for index in range(first, first + count):
        await send(index)
    after = os.times()
    return after.user - before.user, after.system - before.system, time.thread_time() - loop


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
        blobs = FileBlobs(Path(tempfile.mkdtemp(prefix="agentmail-blobs-")))
        if args.path == "rest":
            send = rest_sender(store)
        elif args.path == "http":
            send = await http_sender(store)
        else:
            send = smtp_sender(store, blobs)
        for index in range(args.warmup):
            await send(-1 - index)
        before = statements[0]
        user, system, loop = await measured(send, 0, args.mails)
        cpu = user + system
        per_mail = (statements[0] - before) / args.mails
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
        ms = 1000 / args.mails
        print(
            f"{args.path:<4} {described.split(' (')[0]:<16} {cpu * ms:6.2f} ms CPU"
            f" per mail (user {user * ms:.2f}, system {system * ms:.2f};"
            f" {loop * ms:.2f} on the loop's thread)"
            f"   {per_mail:5.1f} statements per mail   ({args.mails} mails, load {load})"
        )
    return 0


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--path", choices=("rest", "http", "smtp"), default="rest")
    parser.add_argument("--mails", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--database-url", default="", help="default: a temp SQLite file")
    return parser.parse_args()


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_args())))
