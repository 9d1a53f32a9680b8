"""Folder listings from kept structures (docs/imap.md, "Kept structures"): a mailbox whose
messages are partly kept and partly not (stored before, rendered and not yet filled)
lists alike either way, and alike with the parsing path; a long listing is written in
chunks between which the event loop runs its other tasks."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from prometheus_client import REGISTRY
from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from core.archive.importing import import_messages
from core.archive.sources import EmlFiles
from core.mime.kept import KEPT_VERSION, kept_structure, summary_of
from core.rendering.backfill import Filler
from core.store.engine import Store
from core.store.file_blobs import FileBlobs
from core.store.models import MessageStructure
from gateway.server import Gateway
from tests.support.gateway import Api, running_gateway
from tests.support.http import ok
from tests.support.imap_values import fetch_items, read_response
from tests.support.raw_imap import RawImap
from tests.support.real_world_corpus import real_world_corpus

D = "agentmail.localhost"
LISTING = (
    b"FLAGS ENVELOPE BODYSTRUCTURE BODY RFC822.SIZE"
    b" BODY.PEEK[HEADER.FIELDS (FROM SUBJECT DATE CONTENT-TYPE)]"
)


def _metric(name: str) -> float:
    return REGISTRY.get_sample_value(name) or 0.0


class _Client:
    """alice's connection with INBOX selected; a command's whole response, literals too."""

    def __init__(self, raw: RawImap) -> None:
        self.raw, self.n = raw, 0

    @classmethod
    async def selected(cls, gateway: Gateway) -> _Client:
        raw = await RawImap.open(gateway.imap_port)
        await raw.login("alice")
        client = cls(raw)
        await client.command(b"SELECT INBOX")
        return client

    async def command(self, line: bytes) -> bytes:
        self.n += 1
        tag = b"k%d" % self.n
        await self.raw.send(tag + b" " + line + b"\r\n")
        response = await read_response(self.raw.reader, tag)
        assert response[response.rindex(tag + b" ") :].startswith(tag + b" OK"), response[-300:]
        return response


async def _import(gateway: Gateway, tmp_path: Path, count: int, attachment: int) -> None:
    """`count` real-world messages into alice's INBOX, as `agentmail import` stores them."""
    folder = tmp_path / "corpus"
    folder.mkdir()
    for n, item in enumerate(real_world_corpus(f"alice@{D}", count, max_attachment=attachment)):
        (folder / f"{n:04d}.eml").write_bytes(item.raw)
    store = gateway.store
    assert store is not None
    blobs = FileBlobs(gateway.settings.attachments_dir)
    report = await import_messages(store, blobs, D, EmlFiles([folder]), max_attachment_bytes=10**7)
    assert report.imported == count, report


async def _forget_every_other(store: Store) -> int:
    """The kept structures of every other stored message deleted: as if stored before."""

    def run(session: Session) -> int:
        shas = sorted(session.scalars(select(MessageStructure.sha256)))[::2]
        session.execute(delete(MessageStructure).where(MessageStructure.sha256.in_(shas)))
        return len(shas)

    return await store.write(run)


async def test_kept_made_and_parsed_listings_answer_alike(
    database_url: str, tmp_path: Path
) -> None:
    async with running_gateway(database_url, tmp_path / "data", background_jobs=False) as gateway:
        api = Api(gateway)
        try:
            await api.human("alice")
            builder = await api.agent("builder")
            await _import(gateway, tmp_path, 12, 20_000)
            for n in range(3):  # served as renderings, none kept (no backfill runs here)
                ok(
                    await builder.post(
                        "/api/v1/mail/send", json={"to": "alice@", "subject": f"r{n}"}
                    )
                )
        finally:
            await api.close()
        assert gateway.store is not None
        forgotten = await _forget_every_other(gateway.store)
        client = await _Client.selected(gateway)
        reads, made = (
            _metric("agentmail_imap_kept_reads_total"),
            _metric("agentmail_imap_kept_made_total"),
        )
        listed = fetch_items(await client.command(b"FETCH 1:* (" + LISTING + b")"))
        assert _metric("agentmail_imap_kept_reads_total") - reads == 12 - forgotten
        assert _metric("agentmail_imap_kept_made_total") - made == forgotten + 3
        parsed = fetch_items(await client.command(b"FETCH 1:* (" + LISTING + b" BODY.PEEK[])"))
        again = fetch_items(await client.command(b"FETCH 1:* (" + LISTING + b")"))
        await client.raw.close()
    assert len(listed) == 15 and again == listed
    for number, items in listed.items():
        assert items == {k: v for k, v in parsed[number].items() if k != b"BODY[]"}, number


async def test_a_long_listing_lets_the_loop_run_between_its_chunks(tmp_path: Path) -> None:
    """Another task of the loop runs between every two chunks of the response: it sees
    each count of pauses in turn, never only the first and the last."""
    url = f"sqlite:///{tmp_path / 'agentmail.db'}"
    async with running_gateway(url, tmp_path / "data", background_jobs=False) as gateway:
        api = Api(gateway)
        try:
            await api.human("alice")
        finally:
            await api.close()
        await _import(gateway, tmp_path, 300, 2_000)
        client = await _Client.selected(gateway)
        seen: list[float] = []
        stop = asyncio.Event()

        async def other_task() -> None:
            while not stop.is_set():
                seen.append(_metric("agentmail_imap_response_pauses_total"))
                await asyncio.sleep(0)

        first = _metric("agentmail_imap_response_pauses_total")
        ticking = asyncio.create_task(other_task())
        try:
            response = await client.command(b"FETCH 1:* (FLAGS ENVELOPE BODYSTRUCTURE)")
        finally:
            stop.set()
            await ticking
        last = _metric("agentmail_imap_response_pauses_total")
        await client.raw.close()
    assert len(fetch_items(response)) == 300
    assert last - first >= 300 // 64
    assert {first + n for n in range(1, int(last - first) + 1)} <= set(seen)


OLD_ROW = (
    b"From: user@domain (Real Name)\r\nTo: <@route:x@y>\r\nSubject: kept long ago\r\n"
    b"Date: Thu, 03 Dec 2026 08:00:00 +0000\r\nMessage-ID: <old-row@example.org>\r\n\r\nbody\r\n"
)


async def test_a_structure_kept_by_an_older_version_is_made_anew(
    database_url: str, tmp_path: Path
) -> None:
    """A row kept by an older `KEPT_VERSION` (here ENVELOPE without the name given as a
    comment, nor the route, as version 1 kept them) is never served: IMAP makes the
    structure anew from the bytes, and the backfill replaces the row."""
    async with running_gateway(database_url, tmp_path / "data", background_jobs=False) as gateway:
        api = Api(gateway)
        try:
            await api.human("alice")
        finally:
            await api.close()
        store, blobs = gateway.store, FileBlobs(gateway.settings.attachments_dir)
        assert store is not None
        made = kept_structure(OLD_ROW)
        assert made.summary is not None
        old = summary_of(made.summary)
        old["envelope"]["from"] = [["a", None, None, "user", "domain"]]
        old["envelope"]["to"] = [["a", None, None, "x", "y"]]
        client = await _Client.selected(gateway)
        try:
            await client.command(b"APPEND INBOX {%d+}\r\n%b" % (len(OLD_ROW), OLD_ROW))
            await store.write(
                lambda session: session.execute(
                    update(MessageStructure).values(version=1, summary=json.dumps(old))
                )
            )
            before = _metric("agentmail_imap_kept_made_total")
            first = await client.command(b"FETCH 1 (ENVELOPE)")
            assert b'(("Real Name" NIL "user" "domain"))' in first, first
            assert b'((NIL "@route" "x" "y"))' in first, first
            assert _metric("agentmail_imap_kept_made_total") - before == 1

            filled = await Filler(store, blobs, D, pause=0.0).backfill()
            assert filled.originals == 1
            assert await store.read(_the_row) == (KEPT_VERSION, made.summary)
        finally:
            await client.raw.close()


def _the_row(session: Session) -> tuple[int, str | None]:
    [(version, summary)] = session.execute(
        select(MessageStructure.version, MessageStructure.summary)
    ).all()
    return int(version), summary
