"""Kept structures (core/mime/kept.py): stored with the bytes by the write path, equal to
what IMAP computes from them; the background backfill (core/rendering/backfill.py) fills
the mail stored before them, resumes after a stop midway, and changes nothing when run
again. On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from pathlib import Path

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from core.archive.importing import import_messages
from core.archive.sources import EmlFiles
from core.mime.kept import KEPT_VERSION, kept_structure
from core.rendering.backfill import Filler
from core.rendering.batch import content_keys
from core.rendering.kept import kept_summaries, made_structures
from core.store.blobs import BlobStore
from core.store.engine import Store
from core.store.file_blobs import FileBlobs
from core.store.models import Mail, MessageStructure, RawMessage, RenderedStructure
from tests.domain.world import World
from tests.support.real_world_corpus import real_world_corpus

D = "agentmail.localhost"
Rows = dict[str, tuple[int, str, str | None]]


async def _imported(store: Store, tmp_path: Path, count: int) -> BlobStore:
    """`count` real-world messages to alice, by the import path."""
    folder = tmp_path / "corpus"
    folder.mkdir()
    for n, item in enumerate(real_world_corpus(f"alice@{D}", count, max_attachment=30_000)):
        (folder / f"{n:03d}.eml").write_bytes(item.raw)
    blobs = FileBlobs(tmp_path / "blobs")
    report = await import_messages(
        store, blobs, D, EmlFiles([folder]), max_attachment_bytes=10_000_000
    )
    assert report.imported == count, report
    return blobs


def _kept_rows(session: Session) -> Rows:
    rows = session.execute(
        select(
            MessageStructure.sha256,
            MessageStructure.version,
            MessageStructure.structure,
            MessageStructure.summary,
        )
    )
    return {str(sha): (int(v), str(structure), summary) for sha, v, structure, summary in rows}


def _originals(session: Session) -> dict[str, bytes]:
    rows = session.execute(select(RawMessage.sha256, RawMessage.data))
    return {str(sha): bytes(data) for sha, data in rows}


async def test_the_write_path_keeps_what_imap_would_compute(
    world: World, store: Store, tmp_path: Path
) -> None:
    await world.human("alice")
    await _imported(store, tmp_path, 12)
    kept, originals = await store.read(_kept_rows), await store.read(_originals)
    assert set(kept) == set(originals) and len(kept) == 12
    for sha256, data in originals.items():
        made = kept_structure(data)  # what a read computes for a mail with nothing kept
        assert kept[sha256] == (KEPT_VERSION, made.structure, made.summary)
        assert made.summary is not None


async def test_the_backfill_fills_resumes_and_is_idempotent(
    world: World, store: Store, tmp_path: Path
) -> None:
    await world.human("alice")
    blobs = await _imported(store, tmp_path, 10)
    expected = await store.read(_kept_rows)
    await store.write(lambda session: session.execute(delete(MessageStructure)))

    # Stopped midway: the first batch of three written, then the task cancelled.
    first = Filler(store, blobs, D, pause=3600.0, batch_rows=3)
    running = asyncio.create_task(first.backfill())
    while (await store.read(lambda s: s.scalar(select(func.count(MessageStructure.sha256))))) < 3:
        assert not running.done()
        await asyncio.sleep(0.01)
    running.cancel()
    await asyncio.gather(running, return_exceptions=True)
    partial = await store.read(_kept_rows)
    assert len(partial) == 3 and all(expected[sha] == row for sha, row in partial.items())

    resumed = await Filler(store, blobs, D, pause=0.0, batch_rows=3).backfill()
    assert resumed.originals == 7  # only what the first left
    assert await store.read(_kept_rows) == expected

    again = await Filler(store, blobs, D, pause=0.0).backfill()
    assert (again.originals, again.rendered) == (0, 0)
    assert await store.read(_kept_rows) == expected


async def test_renderings_are_kept_by_content_and_a_rename_retires_theirs(
    world: World, store: Store, tmp_path: Path
) -> None:
    """A mail served as its rendering is kept for the alias it was rendered with; once
    the conversation is renamed no reader gets that row, and the backfill (or a read)
    keeps the new rendering's."""
    alice, agent = await world.human("alice"), await world.agent("builder")
    sent = await agent.send(to="alice@", subject="rendered", body="**hello**")
    blobs = FileBlobs(tmp_path / "blobs")
    filled = await Filler(store, blobs, D, pause=0.0).backfill()
    assert filled.rendered == 1

    def summaries(session: Session) -> dict[int, str | None]:
        seqs = list(session.scalars(select(Mail.seq)))
        return kept_summaries(session, content_keys(session, seqs))

    [(seq, before)] = (await store.read(summaries)).items()
    await alice.change_session(sent["session_id"], session_alias="renamed-now")
    assert await store.read(summaries) == {}  # the row is the old rendering's

    def made(session: Session) -> str | None:
        from core.rendering.batch import load_many

        loaded = load_many(session, [seq])
        return made_structures(loaded, {}, blobs, D)[seq][1].kept.summary

    expected = await store.read(made)
    assert expected is not None and expected != before and "renamed-now" in expected
    refilled = await Filler(store, blobs, D, pause=0.0).backfill()
    assert refilled.rendered == 1
    assert await store.read(summaries) == {seq: expected}
    rows = await store.read(lambda s: s.scalar(select(func.count(RenderedStructure.mail_seq))))
    assert rows == 1
