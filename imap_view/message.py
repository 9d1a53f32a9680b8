"""A stored mail as a pymap message: UID and flags from the folder, its content found in
the session's `Contents` (imap_view/contents.py), ENVELOPE and BODYSTRUCTURE as RFC 3501
§7.4.2 asks.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, ClassVar, TypeVar

from pymap.bytes import Writeable
from pymap.message import BaseLoadedMessage, BaseMessage
from pymap.mime import MessageContent
from pymap.parsing.response.fetch import BodyStructure, EnvelopeStructure
from pymap.parsing.specials import FetchRequirement, Flag, ObjectId

from imap_view.binary_message import binary_message
from imap_view.content_facts import searched_texts, size_of
from imap_view.decoders import decoded
from imap_view.envelope import envelope_of
from imap_view.kept_fetch import KeptMessage
from imap_view.pymap_compat import loaded_content
from imap_view.structure import EMPTY, body_structure

if TYPE_CHECKING:  # imap_view.contents needs the backend, whose selections hold messages
    from imap_view.contents import Contents

__all__ = ["KeptLoaded", "LoadedMessage", "Message", "WholeLoaded"]

T = TypeVar("T")


_NO_ID = ObjectId(None)


class Message(BaseMessage):
    """A message of the selected folder. Its INTERNALDATE is looked up in `contents`,
    where the commands that use it (FETCH INTERNALDATE, SEARCH BEFORE/ON/SINCE)
    load it first (imap_view/session.py).

    The messages a SELECT puts into a session's view are shared by every session that
    selects the same folder state (imap_view/selection_base.py), so they carry no
    session: a command binds the ones it reads content or dates of to its session's
    `Contents` (`bound`), which makes a copy of those few.
    """

    __slots__ = ["_contents", "mail_seq", "modseq"]

    def __init__(
        self,
        uid: int,
        permanent_flags: frozenset[Flag],
        *,
        mail_seq: int,
        contents: Contents | None = None,
        expunged: bool = False,
        modseq: int = 0,
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
        self.modseq = modseq  # as stored (imap_view/extensions.py: `wire_modseq`)
        self._contents = contents

    def bound(self, contents: Contents) -> Message:
        """This message as seen by the session that owns `contents`: a copy, its
        fields set directly (a FETCH binds every message it lists)."""
        if self._contents is contents:
            return self
        copy = object.__new__(Message)
        copy.uid = self.uid  # type: ignore[misc]
        copy.expunged = self.expunged  # type: ignore[misc]
        copy._email_id = _NO_ID
        copy._thread_id = _NO_ID
        copy._permanent_flags = self._permanent_flags
        copy._flags_key = self._flags_key
        copy.mail_seq = self.mail_seq
        copy.modseq = self.modseq
        copy._contents = contents
        return copy

    @property
    def _session_contents(self) -> Contents:
        if self._contents is None:
            raise RuntimeError(f"message {self.uid} is not bound to a session's contents")
        return self._contents

    @property  # type: ignore[misc]
    def internal_date(self) -> datetime:
        return self._session_contents.date_of(self.mail_seq)

    def as_expunged(self) -> Message:
        return Message(
            self.uid,
            self.permanent_flags,
            mail_seq=self.mail_seq,
            contents=self._contents,
            expunged=True,
            modseq=self.modseq,
        )

    async def load_content(self, requirement: FetchRequirement) -> LoadedMessage:
        contents = self._session_contents
        content = None
        if _needs_content(requirement):
            content = await contents.get(self.mail_seq)
        loaded = Utf8LoadedMessage if contents.utf8_accept else LoadedMessage
        return loaded(self, requirement, content)

    async def load_kept(self, requirement: FetchRequirement) -> LoadedMessage:
        """For a FETCH its kept summary answers (`Contents.load_kept`): the summary as
        the command loaded it; the content if the command loaded that instead."""
        contents = self._session_contents
        kept = contents.kept_of(self.mail_seq)
        if kept is None:
            return await self.load_content(requirement)
        return KeptLoaded(self, requirement, kept, contents.utf8_accept)

    async def load_bytes(self, requirement: FetchRequirement) -> LoadedMessage:
        """For a FETCH of whole messages (`Contents.load`'s `bytes_only`): the bytes as
        the command loaded them, unparsed; parsed only if it did not."""
        data = self._session_contents.bytes_of(self.mail_seq)
        if data is None:
            return await self.load_content(requirement)
        return WholeLoaded(self, requirement, data)


# Whether a requirement needs the content, by requirement: asked once per message of
# every FETCH, and `FetchRequirement.has_none` is three Python-level enum operations.
_CONTENT_NEEDED: dict[FetchRequirement, bool] = {}


def _needs_content(requirement: FetchRequirement) -> bool:
    needed = _CONTENT_NEEDED.get(requirement)
    if needed is None:
        needed = _CONTENT_NEEDED[requirement] = not requirement.has_none(FetchRequirement.CONTENT)
    return needed


class LoadedMessage(BaseLoadedMessage):
    """pymap's loaded message with RFC 3501 §7.4.2 body sizes, envelopes and body
    structures (imap_view/envelope.py, imap_view/structure.py), 7-bit unless `utf8`
    (a session that enabled UTF8=ACCEPT, RFC 6855, loads `Utf8LoadedMessage`).

    BODYSTRUCTURE's size of a part is the size of its body, and a text part's
    line count the line feeds in its body, as Dovecot counts (imap_view/parts.py);
    pymap 0.36 counts the part's headers in both.
    """

    utf8: ClassVar[bool] = False

    def _get_subpart(self, section: Sequence[int] | None) -> MessageContent:
        """The part a section number names (RFC 3501 §6.4.5): below a message/rfc822
        part the numbers name the parts of the message it carries, so `2.1` of a
        forwarded multipart message is that message's first part. pymap 0.36 (its
        private `_get_subpart`, which every section read goes through) took `2.1` for
        the carried message itself."""
        subpart = self.content
        for depth, number in enumerate(section or ()):
            carries = _carries_a_message(subpart)
            if depth and carries:
                subpart = subpart.body.nested[0]
                carries = _carries_a_message(subpart)
            if subpart.body.has_nested and not carries:
                subpart = subpart.body.nested[number - 1]
            elif number != 1:
                raise IndexError(number)
            elif subpart.body.content_type.maintype == "multipart":
                subpart = EMPTY  # no part found in it: one empty part (imap_view/structure.py)
        return subpart

    def _carried(self, section: Sequence[int] | None) -> MessageContent | None:
        """The message a multipart/digest's part carries by default (no Content-Type,
        RFC 2046 §5.1.5), which pymap's `n.HEADER` and `n.TEXT` do not see."""
        if not section:
            return None
        try:
            msg = self._get_subpart(section)
        except (IndexError, ValueError):  # pymap's "no content" is a ValueError
            return None
        if _carries_a_message(msg) and not msg.is_rfc822:
            return msg.body.nested[0]
        return None

    def _headed(self, section: Sequence[int] | None) -> MessageContent | None:
        """The message whose header `HEADER`, `n.HEADER` and their `.FIELDS` name: the
        whole one, or the one a message/rfc822 part (or a digest's part) carries."""
        carried = self._carried(section)
        if carried is not None:
            return carried
        try:
            msg = self._get_subpart(section)
        except (IndexError, ValueError):
            return None
        if not section:
            return msg
        return msg.body.nested[0] if msg.is_rfc822 else None

    def get_message_headers(
        self,
        section: Sequence[int] | None = None,
        subset: Collection[bytes] | None = None,
        inverse: bool = False,
    ) -> Writeable:
        """pymap's, but `HEADER.FIELDS.NOT` ends with the empty line only when the header
        has one, as Dovecot answers (a header with no body: `{0}` when nothing is left);
        `HEADER.FIELDS` always ends with one (RFC 3501 §6.4.5's subset of the header)."""
        msg = self._headed(section)
        if msg is None:
            return Writeable.empty()
        if subset is None:
            return msg.header
        fields = (
            bytes(value) for key, value in msg.header.folded if inverse != (key.upper() in subset)
        )
        end = b"\r\n" if not inverse or _has_empty_line(bytes(msg.header)) else b""
        return Writeable.concat((Writeable.concat(fields), Writeable.wrap(end)))

    def get_size(self, section: Sequence[int] | None = None) -> int:
        """pymap's, the whole message's counted once per content (imap_view/content_facts.py)."""
        content = None if section else loaded_content(self)
        return size_of(content) if content is not None else super().get_size(section)

    def contains(self, value: bytes) -> bool:
        """pymap's SEARCH TEXT/BODY test (each part's header, a text part's body: the
        value anywhere, ASCII letters in either case, as `re.I` on bytes) over texts
        lower-cased once per content (imap_view/content_facts.py)."""
        content = loaded_content(self)
        if content is None:
            return False
        wanted = value.lower()
        return any(wanted in text for text in searched_texts(content))

    def get_message_text(self, section: Sequence[int] | None = None) -> Writeable:
        carried = self._carried(section)
        return super().get_message_text(section) if carried is None else carried.body

    def get_body(self, section: Sequence[int] | None = None, binary: bool = False) -> Writeable:
        """`BINARY[]` of the whole message: every part decoded (imap_view/binary_message.py;
        pymap decoded the top level's body alone and kept its header). `BINARY[n]`: the
        part decoded by imap_view/decoders.py's `decoded`."""
        if not binary:
            return super().get_body(section, binary)
        if not section:
            return Writeable.wrap(binary_message(bytes(super().get_body(None, False))))
        try:
            part = self._get_subpart(section)
        except (IndexError, ValueError):  # no such part (pymap's "no content" is a ValueError)
            return Writeable.empty()
        return decoded(part)

    @classmethod
    def _get_envelope_structure(cls, msg: MessageContent) -> EnvelopeStructure:
        return envelope_of(msg, utf8=cls.utf8)

    @classmethod
    def _get_size_with_lines(cls, msg: MessageContent) -> tuple[int, int]:
        return len(msg.body), msg.body.lines

    @classmethod
    def _get_body_structure(cls, msg: MessageContent) -> BodyStructure:
        return body_structure(
            msg, cls._get_envelope_structure, cls._get_size_with_lines, utf8=cls.utf8
        )


def _has_empty_line(header: bytes) -> bool:
    """Whether a header section (as pymap keeps it) ends with the empty line."""
    return header in (b"\r\n", b"\n") or header.endswith((b"\n\r\n", b"\n\n"))


def _carries_a_message(msg: MessageContent) -> bool:
    """A message/rfc822 part (by its type, or its place in a multipart/digest)."""
    kind = msg.body.content_type
    return kind.maintype == "message" and kind.subtype == "rfc822" and msg.body.has_nested


class Utf8LoadedMessage(LoadedMessage):
    utf8 = True


class WholeLoaded(LoadedMessage):
    """A message loaded as its bytes alone: what `BODY[]`, `RFC822` and `RFC822.SIZE` of
    the whole message write (imap_view/fetch_lines.py), the same bytes a parsed
    content gives back (pymap keeps the bytes it parsed), without parsing them."""

    def __init__(self, message: Message, requirement: FetchRequirement, data: bytes) -> None:
        super().__init__(message, requirement, None)
        self.data = data

    def get_size(self, section: Sequence[int] | None = None) -> int:
        if section:
            raise ValueError("a whole message was loaded, not its parts")
        return len(self.data)

    def get_body(self, section: Sequence[int] | None = None, binary: bool = False) -> Writeable:
        if section or binary:
            raise ValueError("a whole message was loaded, not its parts")
        return Writeable.wrap(self.data)


class _Formatted(Writeable):
    """A body structure formatted already: BODY as its bytes, BODYSTRUCTURE as `extended`."""

    def __init__(self, basic: Callable[[], bytes], extended: bytes) -> None:
        super().__init__()
        self._basic = basic
        self.extended = extended

    def __bytes__(self) -> bytes:
        return self._basic()


class KeptLoaded(LoadedMessage):
    """A message loaded as its kept summary (imap_view/kept_fetch.py): what a listing
    writes — ENVELOPE, BODYSTRUCTURE, BODY, RFC822.SIZE, `BODY[HEADER.FIELDS (…)]` of
    kept fields — without its bytes. The FETCH asked for nothing else
    (imap_view/kept_fetch.py, `kept_only`)."""

    def __init__(
        self, message: Message, requirement: FetchRequirement, kept: KeptMessage, utf8: bool
    ) -> None:
        super().__init__(message, requirement, None)
        self.kept = kept
        self.utf8_kept = utf8

    def get_size(self, section: Sequence[int] | None = None) -> int:
        if section:
            raise ValueError("a kept structure answers for the whole message")
        return self.kept.size

    def get_envelope_structure(self) -> EnvelopeStructure:
        return Writeable.wrap(self.kept.envelope(self.utf8_kept))  # type: ignore[return-value]

    def get_body_structure(self) -> BodyStructure:
        kept, utf8 = self.kept, self.utf8_kept
        extended = kept.body_structure(utf8)
        formatted = _Formatted(lambda: kept.body_structure(utf8, extended=False), extended)
        return formatted  # type: ignore[return-value]

    def get_message_headers(
        self,
        section: Sequence[int] | None = None,
        subset: Collection[bytes] | None = None,
        inverse: bool = False,
    ) -> Writeable:
        fields = None
        if not section and subset is not None and not inverse:
            fields = self.kept.header_fields(frozenset(subset))
        if fields is None:
            raise ValueError("not among the kept header fields")
        return Writeable.wrap(fields)
