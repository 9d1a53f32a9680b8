"""Attachments from bytes a message carried (SMTP submission; import can use it too).

Each file is written once to the sha256 store and gets one unsent upload row per
mail that will carry it (a message stored for several conversations), owned by
the sender. The rows are committed before the mails' transaction, which claims
them with `check_claimable`/`attach` like uploads named in `attachment_ids`;
when that transaction fails they stay unsent, and `collect_unsent` removes them
with every other abandoned upload.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import insert

from core.errors import PayloadTooLarge
from core.mail.attachments import MAX_PER_MAIL, clean_content_type, clean_filename
from core.store.blobs import BlobStore, BlobWriter
from core.store.engine import Store
from core.store.models import Attachment, new_id, table_of, utcnow


@dataclass(frozen=True, slots=True)
class FileContent:
    filename: str
    content_type: str
    data: bytes


async def store_files(
    store: Store,
    blobs: BlobStore,
    owner: str,
    files: Sequence[FileContent],
    *,
    copies: int,
    limit: int,
) -> list[list[str]]:
    """Store `files` for `copies` mails; returns each mail's attachment ids, in order.

    Refused with `PayloadTooLarge` beyond `MAX_PER_MAIL` files or a file over `limit`.
    """
    if len(files) > MAX_PER_MAIL:
        raise PayloadTooLarge(
            f"a mail carries at most {MAX_PER_MAIL} attachments; this one has {len(files)}"
        )
    if not files or copies < 1:
        return [[] for _ in range(max(copies, 0))]
    async with AsyncExitStack() as stack:
        writers: list[BlobWriter] = []
        for file in files:
            writer = await stack.enter_async_context(blobs.writer(limit))
            await writer.write(file.data)
            writers.append(writer)
        stored = [await writer.finish() for writer in writers]
        now = utcnow()
        ids = [[new_id() for _ in files] for _ in range(copies)]
        rows: list[dict[str, Any]] = [
            {
                "id": copy[index],
                "owner": owner,
                "filename": clean_filename(file.filename),
                "content_type": clean_content_type(file.content_type),
                "size": blob.size,
                "sha256": blob.sha256,
                "mail_seq": None,
                # Listings order a mail's attachments by creation time: keep the message's.
                "created_at": now + timedelta(microseconds=index),
            }
            for copy in ids
            for index, (file, blob) in enumerate(zip(files, stored, strict=True))
        ]
        await store.write(lambda session: session.execute(insert(table_of(Attachment)), rows))
        for writer in writers:
            await writer.place()  # after the rows: see core.store.blobs for the order
    return ids
