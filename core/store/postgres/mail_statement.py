"""A new mail's rows on PostgreSQL in one statement: mail, deliveries, IMAP filing,
participants and the conversation's UPDATE.

On PostgreSQL every statement is a round trip to a backend (a socket send and
receive, an event-loop pass, greenlet switches: docs/performance.md); a send
would run seven of them after its conversation's lock. Data-modifying CTEs
(PostgreSQL's `WITH … INSERT … RETURNING`) chain them
into one: every part takes what it needs (the mail's `seq`, a folder's new UID)
from the `RETURNING` of another. When nothing of the send needs the mail's `seq`
(no attachment, no forward, no \\Answered flag to set), the statement does not
even run on its own: it goes with the transaction's events insert
(core/store/postgres/deferred_statements.py). SQLite has no such CTEs and pays
microseconds a statement, so the domain writes its rows through the common
statements; the contract suite (tests/contract/) stores the same sends both
ways and compares the rows.

Locks come in the global order (core/store/engine.py): the conversation (the
caller holds it), then the folders by owner and key: the rows are upserted in
that order (`INSERT … ON CONFLICT DO UPDATE`, one row after the other), so a
folder is created at first use (next UID 2 and mod-sequence 1: created, then
advanced, as the common statements do in two) or advanced under
its lock. The upsert draws a folder id each time it runs (a gap in a BIGINT
sequence, never read).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, BigInteger, Integer, String, bindparam
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Session

from core.store.models import Mail, table_of
from core.store.port import NewMail
from core.store.postgres.deferred_statements import Tail, run_at_commit

_MAILS = table_of(Mail)
# Every column but the sequence the database draws: a column the domain leaves out
# takes the model's scalar default, as Core's INSERT would give it.
MAIL_COLUMNS = tuple(c.name for c in _MAILS.c if c.name != "seq")
_REQUIRED = object()


def _default(column: str) -> Any:
    default: Any = _MAILS.c[column].default
    if default is None:
        return None
    return default.arg if default.is_scalar else _REQUIRED


_DEFAULTS = {c: _default(c) for c in MAIL_COLUMNS}


def _mail_type(column: str) -> Any:
    if isinstance(_MAILS.c[column].type, JSON):  # None is SQL NULL, as a left-out column
        return JSON(none_as_null=True)
    return _MAILS.c[column].type


_CTES = f"""
mail AS (
    INSERT INTO mails ({", ".join(MAIL_COLUMNS)})
    VALUES ({", ".join(f":m_{c}" for c in MAIL_COLUMNS)})
    RETURNING seq
),
delivered AS (
    INSERT INTO deliveries (mail_seq, recipient, kind, is_read, archived, flagged, answered,
        marked_deleted, deleted, created_at)
    SELECT mail.seq, sent.recipient, sent.kind, false, false, false, false, false, false,
        :m_created_at
    FROM mail, unnest(:d_names, :d_kinds) WITH ORDINALITY AS sent (recipient, kind, n)
    ORDER BY sent.n
    RETURNING 1
),
folders AS (
    INSERT INTO imap_folders AS folder (owner, key, uid_validity, next_uid, highest_modseq)
    SELECT placed.owner, placed.key, :f_validity, 2, 1
    FROM unnest(:f_owners, :f_keys) WITH ORDINALITY AS placed (owner, key, n)
    ORDER BY placed.n
    ON CONFLICT (owner, key) DO UPDATE
    SET next_uid = folder.next_uid + 1, highest_modseq = folder.highest_modseq + 1
    RETURNING folder.id, folder.next_uid, folder.highest_modseq
),
filed AS (
    INSERT INTO imap_uids (folder_id, uid, mail_seq, modseq)
    SELECT folders.id, folders.next_uid - 1, mail.seq, folders.highest_modseq
    FROM folders, mail
    RETURNING 1
),
joined AS (
    INSERT INTO session_participants (session_id, name)
    SELECT :conversation_id, member.name
    FROM unnest(:names) WITH ORDINALITY AS member (name, n)
    ORDER BY member.n
    ON CONFLICT DO NOTHING
    RETURNING 1
),
saved AS (
    UPDATE sessions
    SET budget_used = sessions.budget_used + :rounds, status = :status,
        updated_at = :updated_at
    WHERE sessions.id = :conversation_id
    RETURNING 1
),
written AS MATERIALIZED (
    SELECT mail.seq, (SELECT count(*) FROM delivered) + (SELECT count(*) FROM filed)
        + (SELECT count(*) FROM joined) + (SELECT count(*) FROM saved) AS rows
    FROM mail
)"""

_TEXTS = ARRAY(String())
_TAIL = Tail(
    _CTES,
    (
        *(bindparam(f"m_{c}", type_=_mail_type(c)) for c in MAIL_COLUMNS),
        bindparam("f_owners", type_=_TEXTS),
        bindparam("f_keys", type_=_TEXTS),
        bindparam("f_validity", type_=BigInteger()),
        bindparam("d_names", type_=_TEXTS),
        bindparam("d_kinds", type_=_TEXTS),
        bindparam("names", type_=_TEXTS),
        bindparam("rounds", type_=Integer()),
        bindparam("status", type_=String()),
        bindparam("conversation_id", type_=String()),
        bindparam("updated_at", type_=_MAILS.c.created_at.type),
    ),
    "written",
)


def write_mail(session: Session, mail: NewMail) -> int | None:
    """Insert the mail, a delivery per recipient, a UID in each folder of its
    placements (created when missing), its participants, and write back the
    conversation (`rounds` more used, `status`, `updated_at`).

    Unless the mail's `seq` is needed, the rows go with the transaction's events
    statement (core/store/postgres/deferred_statements.py) and None is returned."""
    folders = sorted(set(mail.placements))
    conversation = mail.conversation
    params: dict[str, Any] = {}
    for column, default in _DEFAULTS.items():
        value = mail.mail.get(column, default)
        if value is _REQUIRED:
            raise ValueError(f"column {column!r} has a computed default: give its value")
        params[f"m_{column}"] = value
    params.update(
        f_owners=[owner for owner, _ in folders],
        f_keys=[key for _, key in folders],
        f_validity=mail.uid_validity,
        d_names=list(mail.recipients),
        d_kinds=list(mail.recipients.values()),
        names=list(dict.fromkeys(mail.participants)),
        rounds=conversation.rounds,
        status=conversation.status,
        conversation_id=conversation.conversation_id,
        updated_at=conversation.updated_at,
    )
    if not mail.seq_needed:
        run_at_commit(session, _TAIL, params)
        return None
    row = session.connection().execute(_TAIL.alone(), params).one()
    return int(row[0])
