"""Keywords a recipient sets on a mail (IMAP's `$Label1`, `$Junk`, `$Forwarded`, …).

RFC 3501 §2.3.2 lets a client define keywords of its own where the mailbox's
PERMANENTFLAGS has `\\*`: Thunderbird's labels `$Label1` to `$Label5`, `$Junk` and
`$NotJunk`, `$Forwarded`, `$MDNSent`. They are kept per recipient, like the
delivery's flags (one row each in `delivery_keywords`), shared by every IMAP
session and shown over REST. A keyword is an IMAP atom (RFC 3501 §9
`flag-keyword = atom`), compared as written.

Bounded: so many keywords per mail, so many distinct ones per human (the IMAP
FLAGS response lists them), each so long (`KeywordLimits`, from the settings).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import BindParameter, ColumnElement, and_, bindparam, delete, distinct, func, select
from sqlalchemy.orm import Session

from core.errors import InvalidRequest
from core.store.models import Delivery, DeliveryKeyword, table_of
from core.store.port import insert_or_skip
from core.store.prepared import Prepared, Row

__all__ = [
    "Keeping",
    "KeywordLimits",
    "change_keywords",
    "check_keyword",
    "keywords_in_use",
    "keywords_of",
]

# RFC 3501 §9: atom-specials, and CTL / SP; `\\` starts a system flag, never a keyword.
_NOT_IN_ATOM = frozenset('(){ %*"\\]')


@dataclass(frozen=True, slots=True)
class KeywordLimits:
    """Settings `imap_max_keywords_per_mail`, `imap_max_keywords_per_user`,
    `imap_max_keyword_length`."""

    per_mail: int = 32
    per_user: int = 256
    length: int = 64


@dataclass(frozen=True, slots=True)
class Keeping:
    """Of these mails, every keyword but `keywords` goes (IMAP's `STORE … FLAGS`)."""

    mail_seqs: Sequence[int]
    keywords: frozenset[str]


def check_keyword(keyword: str, limits: KeywordLimits) -> None:
    if not 1 <= len(keyword) <= limits.length:
        raise InvalidRequest(f"a keyword has 1 to {limits.length} characters: {keyword[:80]!r}")
    if any(not 0x20 < ord(c) < 0x7F or c in _NOT_IN_ATOM for c in keyword):
        raise InvalidRequest(f"a keyword is an IMAP atom (RFC 3501 §9): {keyword[:80]!r}")


def keywords_of(session: Session, owner: str, mail_seqs: Sequence[int]) -> dict[int, list[str]]:
    """`owner`'s keywords of these mails, sorted, by mail seq (mails without none left out)."""
    found: dict[int, list[str]] = {}
    if not mail_seqs:
        return found
    params = {"owner": owner, "seqs": list(mail_seqs)}
    for seq, keyword in _OF_MAILS.run(session.connection(), params):
        found.setdefault(int(seq), []).append(keyword)
    return found


def all_keywords_of(session: Session, owner: str) -> dict[int, list[str]]:
    """Every keyword `owner` set, by mail seq (an IMAP SELECT reads them once)."""
    found: dict[int, list[str]] = {}
    rows = session.execute(
        select(DeliveryKeyword.mail_seq, DeliveryKeyword.keyword)
        .where(DeliveryKeyword.recipient == owner)
        .order_by(DeliveryKeyword.mail_seq, DeliveryKeyword.keyword)
    )
    for seq, keyword in rows:
        found.setdefault(int(seq), []).append(keyword)
    return found


def keywords_in_use(session: Session, owner: str) -> list[str]:
    """The distinct keywords `owner` has on any mail (by index), sorted."""
    query = (
        select(DeliveryKeyword.keyword)
        .where(DeliveryKeyword.recipient == owner)
        .distinct()
        .order_by(DeliveryKeyword.keyword)
    )
    return list(session.scalars(query))


def change_keywords(
    session: Session,
    owner: str,
    added: Mapping[str, Sequence[int]],
    removed: Mapping[str, Sequence[int]],
    limits: KeywordLimits,
    keeping: Keeping | None = None,
) -> set[int]:
    """Add and remove `owner`'s keywords ({keyword: mail seqs}, and what `keeping` does
    not keep); the mails that changed.

    Only on mails `owner` received (a delivery of theirs); raises InvalidRequest,
    changing nothing, past a limit. The caller records the change (uids.touch).
    Keywords given the same mails are removed by one statement, and every keyword
    is added by one read of what is there and one insert, whatever their number:
    an IMAP STORE names a few keywords for a set of messages.
    """
    changed: set[int] = set()
    connection = session.connection()
    by_mails: dict[tuple[int, ...], list[str]] = {}
    for keyword, seqs in sorted(removed.items()):
        if seqs:
            by_mails.setdefault(tuple(dict.fromkeys(seqs)), []).append(keyword)
    for seqs, keywords in by_mails.items():
        params = {"owner": owner, "keywords": keywords, "seqs": list(seqs)}
        changed.update(int(row[0]) for row in _REMOVE.run(connection, params))
    if keeping is not None and keeping.mail_seqs:
        params = {"owner": owner, "seqs": list(keeping.mail_seqs)}
        if keeping.keywords:
            params["keywords"] = sorted(keeping.keywords)
            others = _REMOVE_OTHERS.run(connection, params)
        else:
            others = _REMOVE_ALL.run(connection, params)
        changed.update(int(row[0]) for row in others)
    wanted = {keyword: list(seqs) for keyword, seqs in added.items() if seqs}
    if not wanted:
        return changed
    for keyword in wanted:
        check_keyword(keyword, limits)
    mails = sorted({seq for seqs in wanted.values() for seq in seqs})
    held: dict[int, set[str]] = {}
    params = {"owner": owner, "keywords": sorted(wanted), "seqs": mails}
    for seq, keyword in _HELD.run(connection, params):
        held.setdefault(int(seq), set()).update([keyword] if keyword is not None else [])
    rows: list[dict[str, Any]] = [
        {"recipient": owner, "mail_seq": seq, "keyword": keyword}
        for keyword, seqs in sorted(wanted.items())
        for seq in dict.fromkeys(seqs)
        if seq in held and keyword not in held[seq]
    ]
    if not rows:
        return changed
    insert_or_skip(session, _KEYWORDS).run(connection, rows)
    changed.update(row["mail_seq"] for row in rows)
    _check_counts(session, owner, {row["mail_seq"] for row in rows}, limits)
    return changed


# Built once: a STORE runs them in the writer thread, and building a statement
# cost more than running it.
_KEYWORDS = table_of(DeliveryKeyword)
_DELIVERIES = table_of(Delivery)
_OWNED = _KEYWORDS.c.recipient == bindparam("owner")
_AMONG = _KEYWORDS.c.mail_seq.in_(bindparam("seqs", expanding=True))
_NAMED: BindParameter[list[str]] = bindparam("keywords", expanding=True)


def _removal(*where: ColumnElement[bool]) -> Prepared:
    """The keywords of `owner`'s mails `seqs` that `where` picks, removed; their mails."""
    return Prepared(delete(_KEYWORDS).where(_OWNED, _AMONG, *where).returning(_KEYWORDS.c.mail_seq))


_REMOVE = _removal(_KEYWORDS.c.keyword.in_(_NAMED))
_REMOVE_ALL = _removal()
_REMOVE_OTHERS = _removal(_KEYWORDS.c.keyword.not_in(_NAMED))
# The mails `owner` received among `seqs` (a row each, or one per keyword of
# `keywords` already set on it): a keyword is added where it is not there yet.
_HELD = Prepared(
    select(_DELIVERIES.c.mail_seq, _KEYWORDS.c.keyword)
    .select_from(
        _DELIVERIES.outerjoin(
            _KEYWORDS,
            and_(
                _KEYWORDS.c.recipient == _DELIVERIES.c.recipient,
                _KEYWORDS.c.mail_seq == _DELIVERIES.c.mail_seq,
                _KEYWORDS.c.keyword.in_(bindparam("keywords", expanding=True)),
            ),
        )
    )
    .where(
        _DELIVERIES.c.recipient == bindparam("owner"),
        _DELIVERIES.c.mail_seq.in_(bindparam("seqs", expanding=True)),
    )
)
_OF_MAILS = Prepared(
    select(_KEYWORDS.c.mail_seq, _KEYWORDS.c.keyword)
    .where(
        _KEYWORDS.c.recipient == bindparam("owner"),
        _KEYWORDS.c.mail_seq.in_(bindparam("seqs", expanding=True)),
    )
    .order_by(_KEYWORDS.c.mail_seq, _KEYWORDS.c.keyword)
)
_DISTINCT = Prepared(
    select(func.count(distinct(_KEYWORDS.c.keyword))).where(
        _KEYWORDS.c.recipient == bindparam("owner")
    )
)
_MOST = Prepared(
    select(func.count())
    .select_from(_KEYWORDS)
    .where(
        _KEYWORDS.c.recipient == bindparam("owner"),
        _KEYWORDS.c.mail_seq.in_(bindparam("seqs", expanding=True)),
    )
    .group_by(_KEYWORDS.c.mail_seq)
    .order_by(func.count().desc())
    .limit(1)
)


def _check_counts(session: Session, owner: str, seqs: set[int], limits: KeywordLimits) -> None:
    """After the insert, in the same transaction: past a limit the whole write is refused."""
    connection = session.connection()
    distinct_count = _scalar(_DISTINCT.first(connection, {"owner": owner}))
    if distinct_count > limits.per_user:
        raise InvalidRequest(f"at most {limits.per_user} different keywords per user")
    most = _scalar(_MOST.first(connection, {"owner": owner, "seqs": sorted(seqs)}))
    if most > limits.per_mail:
        raise InvalidRequest(f"at most {limits.per_mail} keywords on one mail")


def _scalar(row: Row | None) -> int:
    return int(row[0] or 0) if row is not None else 0
