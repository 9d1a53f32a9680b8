"""A stored mail as a pymap message: UID and flags from the folder, its content found in
the session's `Contents` (imap_view/contents.py), ENVELOPE and BODYSTRUCTURE as RFC 3501
§7.4.2 asks.
"""

from __future__ import annotations

from collections.abc import Sequence
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

from imap_view.contents import Contents

__all__ = ["LoadedMessage", "Message"]

T = TypeVar("T")


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
