"""SEARCH's FROM, TO, CC, BCC, BODY and TEXT keys, judged in a worker thread.

pymap 0.36 matched FROM in the email package's rendering of the field (a name given
as a comment was lost), and BODY and TEXT alike in the raw bytes of every part's
header and text body (so BODY found a word of the Subject, and missed one broken by a
quoted-printable soft line break). These keys are matched as Dovecot matches them
(imap_view/address_search.py, imap_view/search_text.py), in i;unicode-casemap.

Decoding a message's text costs in proportion to its size, so the search judges every
candidate for all of these keys in one worker-thread pass before pymap's matching
runs (`judge`, from imap_view/session.py); each key then answers from its verdicts.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pymap.interfaces.message import LoadedMessageInterface, MessageInterface
from pymap.mime import MessageContent
from pymap.search import SearchCriteria, SearchParams

from core.mime.header_decoding import header_text
from core.mime.headers import header_fields, header_split
from core.mime.summary import FIELD_LINES, SCAN_BYTES
from imap_view.address_search import address_text
from imap_view.casemap import casemap
from imap_view.message import Message
from imap_view.opaque import OpaqueContent
from imap_view.search_text import part_texts

__all__ = [
    "ADDRESS_KEYS",
    "TEXT_KEYS",
    "AddressCriteria",
    "ContentCriteria",
    "TextCriteria",
    "judge",
]

ADDRESS_KEYS = frozenset((b"FROM", b"TO", b"CC", b"BCC"))
TEXT_KEYS = frozenset((b"BODY", b"TEXT"))


class ContentCriteria(SearchCriteria):
    """A key matched in a message's content: its verdict for each candidate is made
    beforehand, by `judge` (a message not judged, or without content, is not found)."""

    def __init__(self, value: str, params: SearchParams) -> None:
        super().__init__(params)
        self.needle = casemap(value)
        self.verdicts: dict[int, bool] = {}  # by mail seq

    def matches(
        self, msg_seq: int, msg: MessageInterface, loaded_msg: LoadedMessageInterface
    ) -> bool:
        return isinstance(msg, Message) and self.verdicts.get(msg.mail_seq, False)


class AddressCriteria(ContentCriteria):
    """FROM, TO, CC, BCC: the string in any field of that name (RFC 3501 §6.4.4)."""

    def __init__(self, key: bytes, value: str, params: SearchParams) -> None:
        super().__init__(value, params)
        self.field = key.lower()


class TextCriteria(ContentCriteria):
    """BODY, or TEXT (`header`: the header fields searched too)."""

    def __init__(self, key: bytes, value: str, params: SearchParams) -> None:
        super().__init__(value, params)
        self.header = key == b"TEXT"


def _address_texts(data: bytes, opaque: bool, names: frozenset[bytes]) -> dict[bytes, list[str]]:
    """Each field of these names as SEARCH matches in it, from the message's header (a
    message over the bounds: the fields its ENVELOPE reads, docs/imap.md)."""
    fields_end, _ = header_split(data)
    limit: int | None = None
    if opaque and fields_end > SCAN_BYTES:
        fields_end = data.rfind(b"\n", 0, SCAN_BYTES) + 1
    if opaque:
        limit = FIELD_LINES
    texts: dict[bytes, list[str]] = {}
    for name, lines in header_fields(data, 0, fields_end, wanted=names, max_field_lines=limit):
        value = header_text(data[lines[0][0] : lines[-1][1]].partition(b":")[2])
        texts.setdefault(name, []).append(address_text(value))
    return texts


def _judged(
    content: MessageContent,
    addresses: Sequence[AddressCriteria],
    texts: Sequence[TextCriteria],
) -> tuple[list[bool], list[bool]]:
    data, opaque = bytes(content), isinstance(content, OpaqueContent)
    found = [False] * len(addresses)
    if addresses:
        names = frozenset(criterion.field for criterion in addresses)
        fields = _address_texts(data, opaque, names)
        found = [
            any(criterion.needle in text for text in fields.get(criterion.field, ()))
            for criterion in addresses
        ]
    held = [False] * len(texts)
    if texts:
        headers = any(criterion.header for criterion in texts)
        for part in part_texts(data, opaque, headers=headers):
            for n, criterion in enumerate(texts):
                if not held[n]:
                    held[n] = part.holds(criterion.needle, header=criterion.header)
            if all(held):
                break
    return found, held


def judge(
    criteria: Sequence[ContentCriteria], contents: Iterable[tuple[int, MessageContent | None]]
) -> None:
    """Every criterion's verdict on every (mail seq, content): CPU work proportional to
    the contents' size, for a worker thread. A missing content matches nothing."""
    addresses = [c for c in criteria if isinstance(c, AddressCriteria)]
    texts = [c for c in criteria if isinstance(c, TextCriteria)]
    for seq, content in contents:
        if content is None:
            continue
        found, held = _judged(content, addresses, texts)
        judged: list[ContentCriteria] = [*addresses, *texts]
        for criterion, verdict in zip(judged, found + held, strict=True):
            criterion.verdicts[seq] = verdict
