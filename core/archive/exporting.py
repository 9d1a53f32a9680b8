"""`agentmail export`: a user's mailbox, or one conversation, as mbox or Maildir.

Each mail is written as the bytes it arrived with (SMTP, import) when they were
kept, else as its rendering (core/rendering/render.py), with LF line ends as local mail
files have them, oldest first, so parents come before replies and `agentmail
import` of the result rebuilds the same threads.
mbox is written as *mboxrd* (a body line `>*From ` gains one `>`), which the
importer undoes, so export → import → export gives the same bytes.
"""

from __future__ import annotations

import asyncio
import mailbox
import os
import re
import time
import uuid
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Final, Literal

from sqlalchemy import Select, or_, select
from sqlalchemy.orm import Session

from core.errors import InvalidRequest, NotFound
from core.rendering.render import render_mail
from core.rendering.stored import RenderInputs, load_render_inputs, parts_of
from core.store.blobs import BlobStore
from core.store.engine import Store
from core.store.models import Conversation, Delivery, Mail
from core.store.raw_messages import originals_of

__all__ = ["ExportFormat", "export_mail", "mboxrd_entry"]

ExportFormat = Literal["mbox", "maildir"]
CHUNK: Final = 200
_FROM_LINE: Final = re.compile(rb"^(>*From )", re.MULTILINE)
Progress = Callable[[int, int], None]  # done, total


def mboxrd_entry(raw: bytes, when: float) -> bytes:
    """One mbox message: the `From ` separator line, the quoted bytes, a blank line."""
    stamp = time.strftime("%a %b %d %H:%M:%S %Y", time.gmtime(when)).encode()
    body = _FROM_LINE.sub(rb">\1", raw)
    end = b"" if body.endswith(b"\n") else b"\n"
    return b"From MAILER-DAEMON " + stamp + b"\n" + body + end + b"\n"


def _selection(user: str | None, conversation: str | None) -> Select[int, str, datetime]:
    columns = select(Mail.seq, Mail.id, Mail.created_at)
    if (user is None) == (conversation is None):
        raise InvalidRequest("export one user's mailbox or one conversation")
    if user is not None:
        name = user.lower()
        received = select(Delivery.mail_seq).where(Delivery.recipient == name)
        mine = or_(Mail.from_name == name, Mail.seq.in_(received))
        return columns.where(mine).order_by(Mail.seq)
    assert conversation is not None
    conv_id = select(Conversation.id).where(
        or_(Conversation.id == conversation, Conversation.alias == conversation.lower())
    )
    return columns.where(Mail.session_id.in_(conv_id)).order_by(Mail.seq)


async def export_mail(
    store: Store,
    blobs: BlobStore,
    domain: str,
    target: Path,
    *,
    user: str | None = None,
    conversation: str | None = None,
    fmt: ExportFormat = "mbox",
    progress: Progress | None = None,
) -> int:
    """Write the mails to `target` (an mbox file, or a Maildir folder); returns how many."""
    query = _selection(user, conversation)

    def listing(session: Session) -> list[tuple[int, str, float]]:
        if conversation is not None and not session.scalar(
            select(Conversation.id).where(
                or_(Conversation.id == conversation, Conversation.alias == conversation.lower())
            )
        ):
            raise NotFound(f"no conversation {conversation}")
        return [
            (seq, mail_id, created.timestamp()) for seq, mail_id, created in session.execute(query)
        ]

    rows = await store.read(listing)
    sink = await asyncio.to_thread(_open_sink, target, fmt)
    try:
        for start in range(0, len(rows), CHUNK):
            chunk = rows[start : start + CHUNK]
            messages = await _messages(store, blobs, domain, chunk)
            await asyncio.to_thread(sink.add_all, messages)
            if progress is not None:
                progress(start + len(chunk), len(rows))
    finally:
        await asyncio.to_thread(sink.close)
    return len(rows)


async def _messages(
    store: Store, blobs: BlobStore, domain: str, chunk: Sequence[tuple[int, str, float]]
) -> list[tuple[bytes, float]]:
    """The kept bytes of each mail, or its rendering (in a worker thread)."""
    seqs = [seq for seq, _, _ in chunk]

    def load(session: Session) -> tuple[dict[int, bytes], dict[int, RenderInputs]]:
        kept = originals_of(session, seqs)
        inputs = {
            seq: load_render_inputs(session, mail_id)
            for seq, mail_id, _ in chunk
            if seq not in kept
        }
        return kept, inputs

    kept, inputs = await store.read(load)

    def render() -> list[tuple[bytes, float]]:
        out = []
        for seq, _, when in chunk:
            raw = kept.get(seq)
            if raw is None:
                given = inputs[seq]
                raw = render_mail(
                    given.mail,
                    given.alias,
                    domain,
                    references=given.references,
                    attachments=parts_of(blobs, given.attachments),
                )
            out.append((raw, when))
        return out

    return await asyncio.to_thread(render)


def _local(raw: bytes) -> bytes:
    """Files hold LF line ends (mbox and Maildir readers expect them); the stored
    bytes have CRLF (RFC 5322 §2.1), which the importer puts back."""
    return raw.replace(b"\r\n", b"\n")


class _Sink:
    def add_all(self, messages: list[tuple[bytes, float]]) -> None:
        raise NotImplementedError

    def close(self) -> None:
        return None


class _MboxSink(_Sink):
    def __init__(self, target: Path) -> None:
        self._file = target.open("xb")

    def add_all(self, messages: list[tuple[bytes, float]]) -> None:
        self._file.write(b"".join(mboxrd_entry(_local(raw), when) for raw, when in messages))

    def close(self) -> None:
        self._file.close()


class _MaildirSink(_Sink):
    """Files in `cur/`, flagged seen (`:2,S`), written in `tmp/` first as Maildir asks."""

    def __init__(self, target: Path) -> None:
        mailbox.Maildir(target, factory=None, create=True)  # cur/, new/, tmp/
        self._target = target
        self._count = 0

    def add_all(self, messages: list[tuple[bytes, float]]) -> None:
        for raw, when in messages:
            self._count += 1
            name = f"{int(when)}.{self._count:07d}_{uuid.uuid4().hex}.agentmail:2,S"
            temp = self._target / "tmp" / name
            temp.write_bytes(_local(raw))
            os.utime(temp, (when, when))
            os.replace(temp, self._target / "cur" / name)


def _open_sink(target: Path, fmt: ExportFormat) -> _Sink:
    """mbox: a new file (never overwritten); Maildir: a folder, created or added to."""
    if fmt == "mbox":
        return _MboxSink(target)
    return _MaildirSink(target)
