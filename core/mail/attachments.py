"""Attachments: metadata rows for uploads, carried by mails, downloadable by participants.

Two steps, as in the reference: an upload makes an unsent attachment owned by
its uploader; a send names it in `attachment_ids` and it becomes that mail's
(one mail each; a forward gets new rows pointing at the same content). Content
lives once per sha256 in `core.store.blobs`; uploads never sent are collected after a
while (`collect_unsent`), their content only when no other row shares it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from pathlib import PurePath

from sqlalchemy import delete, exists, insert, select, update
from sqlalchemy.orm import Session

from core.errors import InvalidRequest, NotFound
from core.principal import Principal
from core.store.blobs import BlobStore, BlobWriter
from core.store.engine import Store
from core.store.models import Attachment, Delivery, Mail, new_id, table_of, utcnow
from core.views import AttachmentRef, AttachmentView

MAX_PER_MAIL = 50
MAX_NAME_CHARS = 255
DEFAULT_NAME = "attachment"
DEFAULT_TYPE = "application/octet-stream"
_TOKEN = r"[a-z0-9!#$&^_.+-]+"
_CONTENT_TYPE = re.compile(rf"{_TOKEN}/{_TOKEN}")
_IN_CHUNK = 1000


def clean_filename(name: str) -> str:
    """The last path component, without NULs, at most 255 characters (keeping the extension)."""
    name = name.replace("\x00", "").replace("\\", "/").rsplit("/", 1)[-1].strip()
    if name in ("", ".", ".."):
        return DEFAULT_NAME
    if len(name) > MAX_NAME_CHARS:
        suffix = PurePath(name).suffix[:32]
        name = name[: MAX_NAME_CHARS - len(suffix)] + suffix
    return name


def clean_content_type(value: str) -> str:
    """`type/subtype` as declared (parameters dropped); anything else is octet-stream."""
    value = value.split(";", 1)[0].strip().lower()
    return value if len(value) <= 255 and _CONTENT_TYPE.fullmatch(value) else DEFAULT_TYPE


async def register_upload(
    store: Store, writer: BlobWriter, principal: Principal, filename: str, content_type: str
) -> AttachmentView:
    """Record a finished upload, then move its content into place (see core.store.blobs for why)."""
    blob = await writer.finish()
    row = {
        "id": new_id(),
        "owner": principal.name,
        "filename": clean_filename(filename),
        "content_type": clean_content_type(content_type),
        "size": blob.size,
        "sha256": blob.sha256,
        "mail_seq": None,
        "created_at": utcnow(),
    }
    await store.write(lambda session: session.execute(insert(table_of(Attachment)), [row]))
    await writer.place()
    return AttachmentView(
        attachment_id=row["id"],
        filename=row["filename"],
        content_type=row["content_type"],
        size=blob.size,
        sha256=blob.sha256,
    )


def check_claimable(session: Session, owner: str, attachment_ids: Sequence[str]) -> list[str]:
    """The ids (unique, in order) if each is `owner`'s own unsent upload; locks them."""
    wanted = list(dict.fromkeys(attachment_ids))
    if len(wanted) > MAX_PER_MAIL:
        raise InvalidRequest(f"attachment_ids: at most {MAX_PER_MAIL} attachments per mail")
    if not wanted:
        return wanted
    rows = session.execute(
        select(Attachment.id, Attachment.owner, Attachment.mail_seq)
        .where(Attachment.id.in_(wanted))
        .with_for_update()
    ).all()
    found = {row.id: row for row in rows}
    for attachment_id in wanted:
        row = found.get(attachment_id)
        if row is None or row.owner != owner:
            raise InvalidRequest(f"attachment_ids: no upload {attachment_id} of yours")
        if row.mail_seq is not None:
            raise InvalidRequest(
                f"attachment_ids: {attachment_id} was sent with another mail; upload it again"
            )
    return wanted


def attach(session: Session, attachment_ids: Sequence[str], mail_seq: int) -> None:
    if attachment_ids:
        session.execute(
            update(Attachment).where(Attachment.id.in_(attachment_ids)).values(mail_seq=mail_seq)
        )


def carry(session: Session, from_seq: int, to_seq: int, owner: str) -> None:
    """Give a forward its own rows for the original's attachments (the same content)."""
    rows = session.execute(select(Attachment).where(Attachment.mail_seq == from_seq)).scalars()
    copies = [
        {
            "id": new_id(),
            "owner": owner,
            "filename": row.filename,
            "content_type": row.content_type,
            "size": row.size,
            "sha256": row.sha256,
            "mail_seq": to_seq,
            "created_at": row.created_at,  # keeps the original's order
        }
        for row in rows
    ]
    if copies:
        session.execute(insert(table_of(Attachment)), copies)


def attachments_of(session: Session, mail_seqs: Sequence[int]) -> dict[int, list[AttachmentRef]]:
    """The attachments of many mails: one query per page of a listing (a whole
    conversation takes one per `_IN_CHUNK` mails, under the drivers' parameter limits)."""
    found: dict[int, list[AttachmentRef]] = {}
    unique = sorted(set(mail_seqs))
    for start in range(0, len(unique), _IN_CHUNK):
        rows = session.execute(
            select(
                Attachment.id,
                Attachment.filename,
                Attachment.size,
                Attachment.sha256,
                Attachment.mail_seq,
            )
            .where(Attachment.mail_seq.in_(unique[start : start + _IN_CHUNK]))
            .order_by(Attachment.created_at, Attachment.id)
        ).all()
        for row in rows:
            assert row.mail_seq is not None
            found.setdefault(row.mail_seq, []).append(
                AttachmentRef(
                    attachment_id=row.id, filename=row.filename, size=row.size, sha256=row.sha256
                )
            )
    return found


async def downloadable(store: Store, principal: Principal, attachment_id: str) -> AttachmentView:
    """An attachment the caller may download: its mail's sender or a recipient, or the
    uploader before it is sent. 404 for anyone else (no existence leak)."""

    def run(session: Session) -> AttachmentView:
        row = session.get(Attachment, attachment_id)
        if row is None or not _may_download(session, principal, row):
            raise NotFound(f"no attachment {attachment_id}")
        return AttachmentView(
            attachment_id=row.id,
            filename=row.filename,
            content_type=row.content_type,
            size=row.size,
            sha256=row.sha256,
        )

    return await store.read(run)


def _may_download(session: Session, principal: Principal, row: Attachment) -> bool:
    if row.mail_seq is None:
        return row.owner == principal.name
    sender = session.scalar(select(Mail.from_name).where(Mail.seq == row.mail_seq))
    if sender == principal.name:
        return True
    received = exists().where(
        Delivery.mail_seq == row.mail_seq, Delivery.recipient == principal.name
    )
    return bool(session.scalar(select(received)))


async def collect_unsent(
    store: Store, blobs: BlobStore, cutoff: datetime, *, leftovers_after: float = 3600.0
) -> int:
    """Delete attachments never sent and created before `cutoff`, and content no row names.

    Also settles what a crashed upload or collection left behind for over
    `leftovers_after` seconds (core/store/blobs.py: set aside, checked, dropped).
    Returns how many attachment rows were deleted.
    """
    # `mail_seq IS NULL` is evaluated again on each row it deletes: on PostgreSQL a
    # send that claimed the row meanwhile makes it skip the row.
    doomed = (
        delete(Attachment)
        .where(Attachment.mail_seq.is_(None), Attachment.created_at < cutoff)
        .returning(Attachment.sha256)
    )

    def run(session: Session) -> tuple[int, set[str]]:
        deleted = list(session.connection().execute(doomed).scalars())
        shared = session.scalars(
            select(Attachment.sha256).where(Attachment.sha256.in_(set(deleted))).distinct()
        )
        return len(deleted), set(deleted) - set(shared)

    count, orphans = await store.write(run)
    found = await blobs.leftovers(leftovers_after)
    asides = found.asides
    # Content a crash left with no row (the object store's): taken as orphans too.
    orphans |= set(found.candidates) - await _named(store, found.candidates)
    for sha256 in orphans:
        aside = await blobs.set_aside(sha256)
        if aside is not None:
            asides.append(aside)
    for aside in asides:
        if await _referenced(store, aside.sha256):
            await blobs.put_back(aside)
        else:
            await blobs.drop(aside)
    return count


async def _named(store: Store, shas: Sequence[str]) -> set[str]:
    """Those of `shas` some attachment row names."""

    def run(session: Session) -> set[str]:
        named: set[str] = set()
        for start in range(0, len(shas), _IN_CHUNK):
            chunk = shas[start : start + _IN_CHUNK]
            named.update(
                session.scalars(select(Attachment.sha256).where(Attachment.sha256.in_(chunk)))
            )
        return named

    return await store.read(run) if shas else set()


async def _referenced(store: Store, sha256: str) -> bool:
    query = select(exists().where(Attachment.sha256 == sha256))
    return await store.read(lambda session: bool(session.scalar(query)))
