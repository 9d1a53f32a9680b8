"""A new mail's rows on PostgreSQL in one statement: mail, deliveries, IMAP filing,
participants and the conversation's UPDATE.

On PostgreSQL every statement is a round trip to a backend (a socket send and
receive, an event-loop pass, greenlet switches: ~0.3 ms of the gateway's CPU
each, docs/performance.md); a send ran seven of them after its conversation's
lock. Data-modifying CTEs (PostgreSQL's `WITH … INSERT … RETURNING`) chain them
into one: every part takes what it needs (the mail's `seq`, a folder's new UID)
from the `RETURNING` of another. When nothing of the send needs the mail's `seq`
(no attachment, no forward, no \\Answered flag to set), the statement does not
even run on its own: it goes with the transaction's events insert
(core/store/pg_tail.py). SQLite has no such CTEs and pays microseconds a
statement, so it keeps core/mail/send.py's path; a test stores the same sends
both ways and compares the rows (tests/integration/test_send_pg.py).

Locks come in the global order (core/store/engine.py): the conversation (the
caller holds it), then the folders by owner and key: the rows are upserted in
that order (`INSERT … ON CONFLICT DO UPDATE`, one row after the other), so a
folder is created at first use (next UID 2 and mod-sequence 1: created, then
advanced, as core/mail/imap_uids.py does in two statements) or advanced under
its lock. The upsert draws a folder id each time it runs (a gap in a BIGINT
sequence, never read).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import JSON, BigInteger, Integer, String, bindparam
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Session

from core.mailboxes.uids import Placement, uid_validity_now
from core.store.models import Mail, table_of
from core.store.pg_tail import Tail, run_at_commit

_MAILS = table_of(Mail)
# Every column a send gives; the permission ones are NULL for other mails, as the
# INSERT of send.py leaves them out.
MAIL_COLUMNS = (
    "id",
    "session_id",
    "parent_id",
    "from_name",
    "from_path",
    "to_name",
    "to_path",
    "cc",
    "subject",
    "body",
    "mail_type",
    "auto",
    "hops",
    "message_id",
    "raw_sha256",
    "created_at",
    "options",
    "permission_state",
    "expires_at",
    "action",
    "action_sha256",
)


def _mail_type(column: str) -> Any:
    if column == "options":  # None is SQL NULL, as when the column is left out
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
    SELECT :m_session_id, member.name
    FROM unnest(:names) WITH ORDINALITY AS member (name, n)
    ORDER BY member.n
    ON CONFLICT DO NOTHING
    RETURNING 1
),
saved AS (
    UPDATE sessions
    SET budget_used = sessions.budget_used + :rounds, status = :status,
        updated_at = :m_created_at
    WHERE sessions.id = :m_session_id
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
    ),
    "written",
)


def store_mail(
    session: Session,
    values: Mapping[str, Any],
    recipients: Mapping[str, str],
    placements: Sequence[Placement],
    names: Sequence[str],
    status: str,
    rounds: int,
    *,
    at_commit: bool,
) -> int | None:
    """Insert the mail (`values`), a delivery per recipient (name → `to`/`cc`, in
    order), a UID in each folder of `placements` (created when missing), the
    participants `names`, and write back the conversation (`rounds` more used,
    `status`, `updated_at` the mail's `created_at`).

    `at_commit`: the rows go with the transaction's events statement
    (core/store/pg_tail.py), and the mail's `seq` is not known (None); otherwise
    they are written now and its `seq` is returned."""
    folders = sorted(set(placements))
    params: dict[str, Any] = {f"m_{c}": values.get(c) for c in MAIL_COLUMNS}
    params.update(
        f_owners=[owner for owner, _ in folders],
        f_keys=[key for _, key in folders],
        f_validity=uid_validity_now(),
        d_names=list(recipients),
        d_kinds=list(recipients.values()),
        names=list(dict.fromkeys(names)),
        rounds=rounds,
        status=status,
    )
    if at_commit:
        run_at_commit(session, _TAIL, params)
        return None
    row = session.connection().execute(_TAIL.alone(), params).one()
    return int(row[0])
