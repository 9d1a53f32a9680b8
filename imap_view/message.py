"""A stored mail as a pymap message: UID and `\\Seen` from the folder, content loaded in sets.

The content is the mail's original bytes when it arrived as RFC 5322 (SMTP,
import), else its rendering (core/rendering/render.py). A FETCH or SEARCH that needs
content loads all its messages' content first (`Contents.load`, a few queries
and one worker thread for the lot); each message then finds its own there.
Parsed contents are shared across sessions by `ContentCache`. A draft (in
`Drafts`, a negative seq: core/folders/drafts.py) is rendered from its row each time.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import TypeVar

from pymap.bytes import Writeable
from pymap.message import BaseLoadedMessage, BaseMessage
from pymap.mime import MessageContent
from pymap.parsing.primitives import List, Nil, String
from pymap.parsing.response.fetch import (
    BodyStructure,
    ContentBodyStructure,
    EnvelopeStructure,
    MessageBodyStructure,
    MultipartBodyStructure,
    TextBodyStructure,
)
from pymap.parsing.specials import FetchRequirement, Flag, ObjectId

from core.folders.drafts import draft_dates, is_draft_seq, render_drafts
from core.folders.imap_folders import created_dates
from core.rendering.batch import (
    content_key,
    content_keys_and,
    load_many,
    render_headers,
    render_loaded,
)
from core.rendering.stored import RenderInputs
from core.store.engine import Transaction
from imap_view.backend import Backend

__all__ = ["Contents", "LoadedMessage", "Message"]

T = TypeVar("T")


class Contents:
    """One IMAP session's message contents for the running command (see module doc)."""

    def __init__(self, backend: Backend, owner: str) -> None:
        self._backend = backend
        self._owner = owner
        self._command: dict[int, MessageContent] = {}
        self._dates: dict[int, datetime] = {}

    async def load_dates(self, mail_seqs: Iterable[int]) -> None:
        """INTERNALDATE of these mails, for the session (SELECT reads no dates)."""
        wanted = [seq for seq in mail_seqs if seq not in self._dates]
        drafts = [seq for seq in wanted if is_draft_seq(seq)]
        if drafts:
            owner = self._owner
            found = await self._backend.store.read(lambda s: draft_dates(s, owner, drafts))
            self._dates.update(found)
            wanted = [seq for seq in wanted if not is_draft_seq(seq)]
        if wanted:
            self._dates.update(await created_dates(self._backend.store, wanted))

    def date_of(self, mail_seq: int) -> datetime:
        try:
            return self._dates[mail_seq]
        except KeyError:
            raise RuntimeError(f"INTERNALDATE of mail {mail_seq} was not loaded") from None

    async def load(
        self,
        mail_seqs: Iterable[int],
        *,
        envelope_only: bool = False,
        alongside: Transaction[T] | None = None,
    ) -> T | None:
        """Make the content of these mails available until the command ends.

        What the shared cache holds costs one light query (its keys); only the
        others are loaded, rendered and parsed. With `envelope_only` (a FETCH of
        nothing but FLAGS, UID, INTERNALDATE and ENVELOPE) a mail not cached whole
        gets only its header section, rendered and parsed without its body: the
        command reads nothing else, and the header-only content is cached apart.
        `alongside` runs in the same store read as the keys (its result is
        returned): a command's other read costs no second hand-off.
        """
        wanted = [seq for seq in dict.fromkeys(mail_seqs) if seq not in self._command]
        drafts = [seq for seq in wanted if is_draft_seq(seq)]
        if drafts:
            await self._load_drafts(drafts)
            wanted = [seq for seq in wanted if not is_draft_seq(seq)]
        backend = self._backend
        if not wanted and alongside is None:
            return None
        keys, extra = await backend.store.read(content_keys_and(wanted, alongside))
        missing = []
        for seq, key in keys.items():
            cached = backend.contents.get(key)
            if cached is None and envelope_only:
                cached = backend.contents.get((_HEADER, *key))
            if cached is None:
                missing.append(seq)
            else:
                self._command[seq] = cached
        if not missing:
            return extra
        loaded = await backend.store.read(lambda session: load_many(session, missing))
        if envelope_only:
            parsed = await asyncio.to_thread(_headers_parsed, loaded, backend.domain)
        else:
            parsed = await asyncio.to_thread(_render_and_parse, loaded, backend)
        for seq, content in parsed.items():
            key = content_key(seq, loaded[seq])
            backend.contents.put((_HEADER, *key) if envelope_only else key, content)
        self._command.update(parsed)
        return extra

    async def _load_drafts(self, seqs: list[int]) -> None:
        backend, owner = self._backend, self._owner
        raw = await backend.store.read(
            lambda session: render_drafts(session, owner, seqs, backend.domain)
        )
        parsed = await asyncio.to_thread(
            lambda: {seq: MessageContent.parse(data) for seq, data in raw.items()}
        )
        self._command.update(parsed)

    async def get(self, mail_seq: int) -> MessageContent | None:
        if mail_seq not in self._command:
            await self.load([mail_seq])
        return self._command.get(mail_seq)

    def release(self) -> None:
        """The command is done (the process-wide cache keeps what it can)."""
        self._command = {}


_HEADER = "header only"  # marks a header-only content's cache key


def _headers_parsed(
    loaded: dict[int, bytes | RenderInputs], domain: str
) -> dict[int, MessageContent]:
    return {seq: MessageContent.parse(data) for seq, data in render_headers(loaded, domain).items()}


def _render_and_parse(
    loaded: dict[int, bytes | RenderInputs], backend: Backend
) -> dict[int, MessageContent]:
    raw = render_loaded(loaded, backend.blobs, backend.domain)
    return {seq: MessageContent.parse(data) for seq, data in raw.items()}


_NO_ID = ObjectId(None)


class Message(BaseMessage):
    """A message of the selected folder. Its INTERNALDATE is looked up in `contents`,
    where the commands that use it (FETCH INTERNALDATE, SEARCH BEFORE/ON/SINCE)
    load it first (imap_view/session.py)."""

    __slots__ = ["_contents", "mail_seq"]

    def __init__(
        self,
        uid: int,
        permanent_flags: frozenset[Flag],
        *,
        mail_seq: int,
        contents: Contents,
        expunged: bool = False,
    ) -> None:
        # What BaseMessage.__init__ sets, without its cost: it runs typing.Protocol's
        # __init__ chain and makes two new ObjectIds per message, and SELECT makes a
        # message per UID of the folder (100,000 at times).
        self.uid = uid  # type: ignore[misc]
        self.expunged = expunged  # type: ignore[misc]
        self._email_id = _NO_ID
        self._thread_id = _NO_ID
        self._permanent_flags = permanent_flags
        self._flags_key = (uid, permanent_flags)
        self.mail_seq = mail_seq
        self._contents = contents

    @property  # type: ignore[misc]
    def internal_date(self) -> datetime:
        return self._contents.date_of(self.mail_seq)

    def as_expunged(self) -> Message:
        return Message(
            self.uid,
            self.permanent_flags,
            mail_seq=self.mail_seq,
            contents=self._contents,
            expunged=True,
        )

    async def load_content(self, requirement: FetchRequirement) -> LoadedMessage:
        content = None
        if not requirement.has_none(FetchRequirement.CONTENT):
            content = await self._contents.get(self.mail_seq)
        return LoadedMessage(self, requirement, content)


class Envelope(EnvelopeStructure):
    """RFC 3501 §7.4.2: the envelope's date is the Date header as written; pymap
    0.36 re-formats it as an INTERNALDATE (`30-Nov-2026 09:51:20 +0000`)."""

    @property
    def _value(self) -> Writeable:
        date = String.build(str(self.date)) if self.date else Nil()
        return List(
            [
                date,
                String.build(self.subject),
                self._addresses(self.from_),
                self._addresses(self.sender, self.from_),
                self._addresses(self.reply_to, self.from_),
                self._addresses(self.to),
                self._addresses(self.cc),
                self._addresses(self.bcc),
                String.build(self.in_reply_to),
                String.build(self.message_id),
            ]
        )


class LoadedMessage(BaseLoadedMessage):
    """pymap's loaded message with RFC 3501 §7.4.2 body sizes and envelope dates.

    BODYSTRUCTURE's size of a part is the size of its body, and a text part's
    line count that of its body; pymap 0.36 counts the part's headers in both.
    """

    @classmethod
    def _get_envelope_structure(cls, msg: MessageContent) -> EnvelopeStructure:
        parsed = msg.header.parsed
        return Envelope(
            parsed.date,
            parsed.subject,
            parsed.from_,
            parsed.sender,
            parsed.reply_to,
            parsed.to,
            parsed.cc,
            parsed.bcc,
            parsed.in_reply_to,
            parsed.message_id,
        )

    @classmethod
    def _get_size_with_lines(cls, msg: MessageContent) -> tuple[int, int]:
        return len(msg.body), msg.body.lines

    @classmethod
    def _get_body_structure(cls, msg: MessageContent) -> BodyStructure:
        parsed = msg.header.parsed
        content_type = msg.body.content_type
        params = cls._get_params(msg)
        disposition = parsed.content_disposition
        language = parsed.content_language
        location = parsed.content_location
        if content_type.maintype == "multipart":
            parts: Sequence[BodyStructure] = [
                cls._get_body_structure(part) for part in msg.body.nested
            ]
            return MultipartBodyStructure(
                content_type.subtype, params, disposition, language, location, parts
            )
        content_id = parsed.content_id
        description = parsed.content_description
        encoding = parsed.content_transfer_encoding
        size, lines = cls._get_size_with_lines(msg)
        if content_type.maintype == "message" and content_type.subtype == "rfc822":
            inner = msg.body.nested[0]
            return MessageBodyStructure(
                params,
                disposition,
                language,
                location,
                content_id,
                description,
                encoding,
                None,
                size,
                lines,
                cls._get_envelope_structure(inner),
                cls._get_body_structure(inner),
            )
        if content_type.maintype == "text":
            return TextBodyStructure(
                content_type.subtype,
                params,
                disposition,
                language,
                location,
                content_id,
                description,
                encoding,
                None,
                size,
                lines,
            )
        return ContentBodyStructure(
            content_type.maintype,
            content_type.subtype,
            params,
            disposition,
            language,
            location,
            content_id,
            description,
            encoding,
            None,
            size,
        )
