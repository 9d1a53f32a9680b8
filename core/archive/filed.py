"""A message a human files by IMAP APPEND (RFC 3501 §6.3.11): theirs alone, kept as given.

A mail client APPENDs to keep a copy (Sent, a folder of the person's own), to upload
a local folder (mbsync, offlineimap), or to move mail between accounts. None of that
is sending: whatever its headers say, the message is delivered to nobody, decides
no permission request, counts as no reply or round, and joins no conversation the
person is not alone in. So it is stored as a mail of type `filed`:

- from the person when its `From:` is their own address, else from an external
  party (core/identity/external.py: that address, never a name of the gateway);
- to the person, with one delivery, theirs, that holds the flags the APPEND gave
  and the folder it was filed in (core/mailboxes/placement.py);
- in the person's own conversation of filed mail, which has them as its only
  participant (its `default_key` is `filed:<name>`);
- with its bytes as given (served back byte for byte) and its Message-ID as
  written: other principals' mail is never looked up by it, and lookups by
  Message-ID (a reply's parent, an import's duplicates) pass filed mail by.

No event is published: nobody but the person has anything new to see, and their
IMAP sessions are woken by the filing itself.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from core.archive.parse import Parsed, read_filed, synthetic_message_id
from core.errors import NotFound
from core.identity.external import EXTERNAL_NAME
from core.mail.conversation_rows import insert_conversation
from core.mail.conversations import add_participants, lock_creation
from core.mail.excerpt import excerpt_values
from core.mail.imported import FILED
from core.mailboxes.keywords import KeywordLimits, change_keywords
from core.mailboxes.placement import FILED_IN_SENT, Placement, placement_in
from core.mailboxes.uids import SENT, file_mail
from core.store.blobs import BlobStore
from core.store.blobs import Staged as StagedBlob
from core.store.engine import Store
from core.store.models import (
    Attachment,
    Conversation,
    Delivery,
    ImapFolder,
    ImapUid,
    Mail,
    new_id,
    table_of,
    utcnow,
)
from core.store.raw_messages import Original, keep_original

__all__ = ["FiledFlags", "Filing", "file_messages", "filed_conversation_key"]


@dataclass(frozen=True, slots=True)
class FiledFlags:
    """The flags an APPEND gave (RFC 3501 §6.3.11), as the delivery keeps them."""

    seen: bool = False
    flagged: bool = False
    answered: bool = False
    deleted: bool = False
    draft: bool = False
    keywords: tuple[str, ...] = field(default_factory=tuple)


def _placement(folder_key: str) -> Placement:
    placement = FILED_IN_SENT if folder_key == SENT else placement_in(folder_key)
    if placement is None:
        raise NotFound(f"mail is not filed in {folder_key}")
    return placement


def filed_conversation_key(owner: str) -> str:
    return f"filed:{owner}"


@dataclass(frozen=True, slots=True)
class Filing:
    """One message of an APPEND: its bytes, flags and internal date."""

    raw: bytes
    flags: FiledFlags = FiledFlags()
    when: datetime | None = None


async def file_messages(
    store: Store,
    blobs: BlobStore,
    owner: str,
    domain: str,
    folder_key: str,
    filings: Sequence[Filing],
    *,
    max_attachment_bytes: int,
    keyword_limits: KeywordLimits,
) -> list[int]:
    """Store the messages in `owner`'s folder `folder_key`, all or none (RFC 3502:
    MULTIAPPEND); their UIDs there, in order."""
    read = await asyncio.to_thread(_read_all, blobs, filings, max_attachment_bytes)
    try:

        def write(session: Session) -> list[int]:
            return [
                _write(session, owner, domain, folder_key, original, parsed, files,
                       filing, keyword_limits)
                for filing, (original, parsed, files) in zip(filings, read, strict=True)
            ]  # fmt: skip

        uids = await store.write(write)
    except BaseException:
        await asyncio.to_thread(_settle, blobs, read, keep=False)
        raise
    await asyncio.to_thread(_settle, blobs, read, keep=True)
    return uids


Staged = list[tuple[str, str, int, str, StagedBlob]]  # filename, type, size, sha256, content
Read = tuple[Original, Parsed, Staged]


def _read_all(blobs: BlobStore, filings: Sequence[Filing], limit: int) -> list[Read]:
    """Hashed, read and their attachments staged (core/store/blobs.py), in a worker
    thread: CPU and disk work on up to the APPEND limit's bytes each."""
    read: list[Read] = []
    for filing in filings:
        original = Original.of(filing.raw)
        parsed = read_filed(filing.raw, limit, opaque=bool(original.opaque))
        read.append((original, parsed, _stage(blobs, parsed)))
    return read


def _stage(blobs: BlobStore, parsed: Parsed) -> Staged:
    staged: Staged = []
    for filename, content_type, content in parsed.attachments:
        held = blobs.stage(content)
        staged.append((filename, content_type, held.blob.size, held.blob.sha256, held))
    return staged


def _settle(blobs: BlobStore, read: list[Read], *, keep: bool) -> None:
    for _, _, staged in read:
        for *_, held in staged:
            if keep:
                blobs.place(held)
            else:
                blobs.discard(held)


def _write(
    session: Session,
    owner: str,
    domain: str,
    folder_key: str,
    original: Original,
    parsed: Parsed,
    staged: Staged,
    filing: Filing,
    keyword_limits: KeywordLimits,
) -> int:
    when = filing.when or utcnow()
    folder_id = session.scalar(
        select(ImapFolder.id).where(ImapFolder.owner == owner, ImapFolder.key == folder_key)
    )
    if folder_id is None:  # a folder deleted meanwhile
        raise NotFound("the folder is gone")
    keep_original(session, original)
    row = _mail_row(owner, domain, original, parsed, when)
    row["session_id"] = _own_conversation(session, owner, when)
    seq = session.scalar(insert(table_of(Mail)).values(row).returning(table_of(Mail).c.seq))
    assert seq is not None
    session.execute(
        insert(table_of(Delivery)).values(_delivery_row(owner, seq, folder_key, filing))
    )
    if staged:
        session.execute(
            insert(table_of(Attachment)),
            [
                {"id": new_id(), "owner": owner, "filename": name, "content_type": kind,
                 "size": size, "sha256": sha256, "mail_seq": seq, "created_at": when}
                for name, kind, size, sha256, _ in staged
            ],
        )  # fmt: skip
    if filing.flags.keywords:
        added = {keyword: [seq] for keyword in filing.flags.keywords}
        change_keywords(session, owner, added, {}, keyword_limits)
    file_mail(session, seq, [(owner, folder_key)])
    uid = session.scalar(
        select(ImapUid.uid).where(ImapUid.folder_id == folder_id, ImapUid.mail_seq == seq)
    )
    assert uid is not None
    return int(uid)


def _mail_row(
    owner: str, domain: str, original: Original, parsed: Parsed, when: datetime
) -> dict[str, Any]:
    """From the person when the `From:` address is theirs, else from an outside party."""
    own = parsed.sender.casefold() == f"{owner}@{domain}".casefold()
    return {
        "id": new_id(),
        "from_name": owner if own else EXTERNAL_NAME,
        "from_path": "" if own else parsed.sender,
        "to_name": owner,
        "to_path": "",
        "cc": [],
        "subject": parsed.subject,
        "body": parsed.body,
        **excerpt_values(parsed.body),
        "mail_type": FILED,
        "message_id": parsed.message_id or synthetic_message_id(original.data, domain),
        "raw_sha256": original.sha256,
        "created_at": when,
    }


def _delivery_row(owner: str, seq: int, folder_key: str, filing: Filing) -> dict[str, Any]:
    archived, deleted, folder = _placement(folder_key).of_new()
    flags = filing.flags
    return {
        "mail_seq": seq,
        "recipient": owner,
        "kind": "to",
        "is_read": flags.seen,
        "archived": archived,
        "deleted": deleted,
        "folder": folder,
        "flagged": flags.flagged,
        "answered": flags.answered,
        "marked_deleted": flags.deleted,
        "draft": flags.draft,
        "created_at": filing.when or utcnow(),
    }


def _own_conversation(session: Session, owner: str, when: datetime) -> str:
    """The person's conversation of filed mail, made at their first APPEND."""
    key = filed_conversation_key(owner)
    query = select(Conversation.id).where(Conversation.default_key == key)
    found = session.scalar(query)
    if found is None and lock_creation(session):
        found = session.scalar(query)  # made by a racing APPEND meanwhile
    if found is None:
        found = insert_conversation(
            session,
            alias=None,
            alias_source=None,
            subject="Filed from your mail client",
            budget_limit=None,
            created_by=owner,
            created_at=when,
            default_key=key,
        ).id
        add_participants(session, found, [owner])
    return found
