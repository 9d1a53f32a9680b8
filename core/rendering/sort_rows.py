"""What IMAP's SORT and THREAD order by, read from the columns that hold it (RFC 5256).

A mail is served as its original bytes (SMTP, import) or as its rendering
(core/rendering/render.py), and SORT must order it by what FETCH shows. So:

* INTERNALDATE (ARRIVAL) is `mails.created_at`, for every mail;
* an original's size is `raw_messages.size`, and its header fields are read from a
  prefix of its bytes (`substr` in the database: never the whole message);
* a rendering's fields come from the columns the renderer writes them from (subject,
  `created_at` as its Date, the parties with the conversation's alias through
  `header_parties`, Message-ID, the parent chain as References): nothing is rendered.
  Its size is the rendering's length, which only rendering gives: the caller asks for
  it only for SORT (SIZE), through the content cache FETCH fills;
* a draft (a negative seq, core/mailboxes/drafts.py) is rendered: a human has few.

Two reads: `sort_rows` gives each mail's INTERNALDATE, an original's size and
`SortRow.keyed_by`, what its keys depend on (as `content_key` says what its bytes
depend on): an original's never change, a rendering's change with its conversation's
alias only. The caller keeps keys by it, and `sort_sources` reads the header or the
fields of only the mails whose keys it does not hold.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final, Protocol, cast

from sqlalchemy import LargeBinary, bindparam, func, select
from sqlalchemy.orm import Session

from core.mailboxes.drafts import draft_dates, is_draft_seq, render_drafts
from core.rendering.batch import references_of
from core.rendering.render import MailParties, header_parties
from core.store.models import Conversation, Mail, RawMessage

__all__ = [
    "HEADER_BYTES",
    "MAX_HEADER_BYTES",
    "RenderedFields",
    "SortRow",
    "rendered_fields",
    "sort_rows",
    "sort_sources",
]

HEADER_BYTES: Final = 8 * 1024  # read first: most header sections end before this
MAX_HEADER_BYTES: Final = 64 * 1024  # at most (the bound of imap_view/opaque.py's scan)


class MailFields(MailParties, Protocol):
    """The columns a rendering's header is written from (a `Mail`, or a row of them)."""

    @property
    def subject(self) -> str: ...
    @property
    def created_at(self) -> datetime: ...
    @property
    def message_id(self) -> str: ...


@dataclass(frozen=True, slots=True)
class RenderedFields:
    """The header fields of a mail's rendering that SORT and THREAD read."""

    subject: str
    date: datetime
    sender: str  # addr-specs, as the rendering writes them
    to: str
    cc: str | None  # the first Cc, if any
    message_id: str
    references: tuple[str, ...]  # the parent chain's Message-IDs, oldest first
    sender_name: str = ""  # the display names the rendering writes (RFC 5957's keys)
    to_name: str = ""


@dataclass(frozen=True, slots=True)
class SortRow:
    seq: int
    arrival: datetime
    size: int | None  # None: a rendering, whose size only rendering gives
    keyed_by: tuple[object, ...] | None  # what its keys depend on; None: a draft's, which
    header: bytes | None = None  # carries its header section (rendered each time)


_ROWS = (
    select(
        Mail.seq, Mail.created_at, Mail.raw_sha256.is_not(None), RawMessage.size, Conversation.alias
    )
    .join(Conversation, Conversation.id == Mail.session_id)
    .outerjoin(RawMessage, RawMessage.sha256 == Mail.raw_sha256)
    .where(Mail.seq.in_(bindparam("seqs", expanding=True)))
)
_RENDERED = (
    select(
        Mail.seq, Mail.subject, Mail.created_at, Mail.from_name, Mail.from_path,
        Mail.to_name, Mail.to_path, Mail.cc, Mail.message_id, Mail.parent_id,
        Conversation.alias,
    )
    .join(Conversation, Conversation.id == Mail.session_id)
    .where(Mail.seq.in_(bindparam("seqs", expanding=True)))
)  # fmt: skip


def _prefixes(session: Session, seqs: list[int], length: int) -> dict[int, bytes]:
    """The first `length` octets of these mails' originals."""
    head = func.substr(RawMessage.data, 1, length, type_=LargeBinary)
    query = (
        select(Mail.seq, head)
        .join(RawMessage, RawMessage.sha256 == Mail.raw_sha256)
        .where(Mail.seq.in_(bindparam("seqs", expanding=True)))
    )
    return {int(seq): bytes(data) for seq, data in session.execute(query, {"seqs": seqs})}


def _headers(session: Session, sizes: dict[int, int]) -> dict[int, bytes]:
    """The header section of each original (by seq, with its size), read as a prefix:
    HEADER_BYTES, then MAX_HEADER_BYTES for those whose header goes on; one still longer
    is cut at its last line break there (the fields past it are not read)."""
    found = _prefixes(session, list(sizes), HEADER_BYTES)
    longer = [
        seq
        for seq, data in found.items()
        if sizes[seq] > HEADER_BYTES and b"\n\r\n" not in data and b"\n\n" not in data
    ]
    if longer:
        found.update(_prefixes(session, longer, MAX_HEADER_BYTES))
    return {seq: _section(data, len(data) == sizes[seq]) for seq, data in found.items()}


def _section(data: bytes, whole: bool) -> bytes:
    """The header section in a prefix of a message (RFC 5322 §2.1: up to the first empty
    line); a prefix that ends inside it is cut at its last line break."""
    if data.startswith((b"\r\n", b"\n")):  # no header fields at all
        return b""
    if not whole and b"\n\r\n" not in data and b"\n\n" not in data:
        data = data[: data.rfind(b"\n") + 1]
    return header_of(data)


def rendered_fields(
    mail: MailFields, alias: str | None, domain: str, references: Sequence[str] = ()
) -> RenderedFields:
    """The fields of a mail's rendering, from what `render_header` writes them from."""
    sender, to, cc = header_parties(mail, alias)
    return RenderedFields(
        mail.subject,
        mail.created_at,
        sender.email(domain),
        to.email(domain),
        cc[0].email(domain) if cc else None,
        mail.message_id,
        tuple(references),
        sender.name,
        to.name,
    )


def _rendered(session: Session, seqs: list[int], domain: str) -> dict[int, RenderedFields]:
    rows = session.execute(_RENDERED, {"seqs": seqs}).all()
    chains = references_of(session, {row.seq: row.parent_id for row in rows})
    return {
        int(row.seq): rendered_fields(
            cast(MailFields, row), row.alias, domain, chains.get(row.seq, ())
        )
        for row in rows
    }


def sort_rows(session: Session, owner: str, seqs: Sequence[int], domain: str) -> dict[int, SortRow]:
    """A `SortRow` per mail seq (unknown ones left out). A few statements whatever the
    number of seqs: the caller bounds it."""
    drafts = [seq for seq in seqs if is_draft_seq(seq)]
    mails = [seq for seq in seqs if not is_draft_seq(seq)]
    rows: dict[int, SortRow] = {}
    if drafts:
        saved = draft_dates(session, owner, drafts)
        for seq, data in render_drafts(session, owner, drafts, domain).items():
            rows[seq] = SortRow(seq, saved[seq], len(data), None, _section(data, True))
    for seq, created_at, original, size, alias in (
        session.execute(_ROWS, {"seqs": mails}).all() if mails else ()
    ):
        if original and size is not None:
            rows[int(seq)] = SortRow(int(seq), created_at, int(size), (int(seq),))
        else:
            rows[int(seq)] = SortRow(int(seq), created_at, None, (int(seq), alias))
    return rows


def sort_sources(
    session: Session, domain: str, originals: dict[int, int], renderings: Collection[int]
) -> dict[int, bytes | RenderedFields]:
    """The header section of each original (by seq, with its size) and the fields of each
    rendering (with its References)."""
    found: dict[int, bytes | RenderedFields] = {}
    if originals:
        found.update(_headers(session, originals))
    if renderings:
        found.update(_rendered(session, list(renderings), domain))
    return found


def header_of(raw: bytes) -> bytes:
    """A message's header section with the empty line that ends it (RFC 5322 §2.1)."""
    crlf, lf = raw.find(b"\r\n\r\n"), raw.find(b"\n\n")
    if crlf != -1 and (lf == -1 or crlf < lf):
        return raw[: crlf + 4]
    if lf != -1:
        return raw[: lf + 2]
    return raw + (b"\r\n" if raw.endswith(b"\r\n") else b"\r\n\r\n")
