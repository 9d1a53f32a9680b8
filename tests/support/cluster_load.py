"""A mixed load on the cluster world, and the ledger of what it was told.

REST senders upload a file and send it with an Idempotency-Key, retrying a temporary
answer (502/503/504, a cut connection) with the same key, so each of their mails is
stored once however often it is retried. SMTP senders submit a mail with an
attachment under a subject of its own per attempt: a cut session leaves the mail
unacknowledged (maybe stored, never twice), a `4xx` is temporary and tried again as
a new mail. IMAP readers fetch the INBOX over and over, logging in again when cut.
Anything else (a 500, a 5xx reply, a refusal) is a failure the scenarios assert away.
"""

from __future__ import annotations

import asyncio
import hashlib
import imaplib
import os
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial

import aiosmtplib
import httpx

from tests.support.cluster_clients import (
    end_session,
    fetch_all,
    imap_session,
    mail_with_attachment,
    send_rest,
    smtp_submit,
    upload,
)
from tests.support.cluster_world import ClusterWorld, Entrance, api
from tests.support.gateway import PASSWORD, Api

TEMPORARY = frozenset({502, 503, 504})
PAUSE = 0.2  # between a temporary refusal and the next attempt
GIVE_UP = 300  # attempts at one step before it is a failure: a bound on a hang
SENDER, READER = "writer", "reader"


@dataclass
class Ledger:
    acknowledged: dict[str, str] = field(default_factory=dict)  # subject -> attachment sha256
    attempted: set[str] = field(default_factory=set)
    temporary: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    reads: int = 0
    stop: asyncio.Event = field(default_factory=asyncio.Event)

    async def acknowledged_reach(self, count: int, timeout: float = 120.0) -> None:
        """Wait (bounded) until `count` mails are acknowledged in all."""
        async with asyncio.timeout(timeout):
            while len(self.acknowledged) < count:
                assert not self.failures, self.failures
                await asyncio.sleep(0.05)


def _payload(subject: str) -> tuple[bytes, str]:
    data = subject.encode() + os.urandom(20_000)
    return data, hashlib.sha256(data).hexdigest()


async def _retried(
    ledger: Ledger, what: str, attempt: Callable[[], Awaitable[httpx.Response]]
) -> httpx.Response | None:
    """`attempt()` until its answer is not temporary (None: it stayed temporary)."""
    for _ in range(GIVE_UP):
        try:
            response = await attempt()
        except httpx.TransportError as error:
            ledger.temporary[f"{what} {type(error).__name__}"] += 1
        else:
            if response.status_code not in TEMPORARY:
                return response
            ledger.temporary[f"{what} {response.status_code}"] += 1
        await asyncio.sleep(PAUSE)
    ledger.failures.append(f"{what}: still temporary after {GIVE_UP} attempts")
    return None


async def rest_sender(client: httpx.AsyncClient, ledger: Ledger, name: str) -> None:
    number = 0
    while not ledger.stop.is_set():
        subject = f"{name} {number}"
        number += 1
        data, digest = _payload(subject)
        uploaded = await _retried(ledger, "upload", partial(upload, client, f"{name}.bin", data))
        if uploaded is None or uploaded.status_code != 200:
            ledger.failures.append(f"upload {subject}: {uploaded and uploaded.text}")
            return
        ids = [uploaded.json()["attachment_id"]]
        ledger.attempted.add(subject)
        sent = await _retried(
            ledger, "send", partial(send_rest, client, READER, subject, ids, key=subject)
        )
        if sent is None or sent.status_code != 200:
            ledger.failures.append(f"send {subject}: {sent and sent.text}")
            return
        ledger.acknowledged[subject] = digest


async def smtp_sender(entrance: Entrance, ledger: Ledger, name: str) -> None:
    number = 0
    while not ledger.stop.is_set():
        subject = f"{name} {number}"
        number += 1
        data, digest = _payload(subject)
        mail = mail_with_attachment(SENDER, READER, subject, data, f"{name}.bin")
        ledger.attempted.add(subject)
        try:
            await smtp_submit(entrance, SENDER, mail)
        except aiosmtplib.SMTPResponseException as error:
            if 400 <= error.code < 500:
                ledger.temporary[f"smtp {error.code}"] += 1
                await asyncio.sleep(PAUSE)
                continue
            ledger.failures.append(f"smtp {subject}: {error.code} {error.message}")
            return
        except (aiosmtplib.SMTPException, OSError, TimeoutError) as error:
            ledger.temporary[f"smtp {type(error).__name__}"] += 1
            await asyncio.sleep(PAUSE)
            continue
        ledger.acknowledged[subject] = digest


async def imap_reader(entrance: Entrance, ledger: Ledger) -> None:
    while not ledger.stop.is_set():
        try:
            session = await imap_session(entrance, READER)
            try:
                while not ledger.stop.is_set():
                    await fetch_all(session)
                    ledger.reads += 1
            finally:
                await end_session(session)
        except (OSError, TimeoutError, imaplib.IMAP4.error, AssertionError) as error:
            # A session cut by a replica's end: imaplib's `abort`, a reset, or a NO or
            # BYE where `ok` wanted OK.
            ledger.temporary[f"imap {type(error).__name__}"] += 1
        await asyncio.sleep(PAUSE)


@dataclass
class Load:
    ledger: Ledger
    tasks: list[asyncio.Task[None]]

    async def finish(self) -> Ledger:
        """Stop the load (the mails in flight finish, bounded) and return its ledger."""
        self.ledger.stop.set()
        async with asyncio.timeout(120):
            await asyncio.gather(*self.tasks)
        return self.ledger


async def users(world: ClusterWorld) -> None:
    """The load's writer and reader, made through the first replica."""
    first = api(world.replicas[0])
    try:
        await first.human(SENDER)
        await first.human(READER)
    finally:
        await first.close()


async def start_load(
    world: ClusterWorld, client: httpx.AsyncClient, rest: int = 2, smtp: int = 2, imap: int = 1
) -> Load:
    """The load through nginx; `client` is the writer's REST client there."""
    ledger = Ledger()
    front = world.front
    coroutines = [rest_sender(client, ledger, f"rest-{n}") for n in range(rest)]
    coroutines += [smtp_sender(front, ledger, f"smtp-{n}") for n in range(smtp)]
    coroutines += [imap_reader(front, ledger) for _ in range(imap)]
    return Load(ledger, [asyncio.create_task(c) for c in coroutines])


async def writer_client(front: Api) -> httpx.AsyncClient:
    """The writer's REST client through nginx (`front`), with a key of hers."""
    login = await front.login(SENDER, PASSWORD)
    return front.client(await front.user_key(login))
