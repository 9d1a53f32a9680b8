"""A new mail's rows on PostgreSQL in one statement: mail, deliveries, IMAP filing,
participants and the conversation's UPDATE.

On PostgreSQL every statement is a round trip to a backend (a socket send and
receive, an event-loop pass, greenlet switches: ~0.3 ms of the gateway's CPU
each, docs/performance.md); a send to an existing conversation ran seven of them
after its conversation's lock. Data-modifying CTEs (PostgreSQL's `WITH … INSERT
… RETURNING`) chain them into one: every part takes what it needs (the mail's
`seq`, a folder's new UID) from the `RETURNING` of another. SQLite has no such
CTEs and pays microseconds a statement, so it keeps core/mail/send.py's path; a
test stores the same sends both ways and compares the rows
(tests/integration/test_send_pg.py).

The locks are taken in the global order (core/store/engine.py): the conversation
(the caller holds it), then the folders by owner and key (`FOR UPDATE` on the
sorted rows, as core/mail/imap_uids.py takes them one by one). A folder that does
not exist yet (the first mail of a conversation or of a human) writes nothing:
the statement's rows depend on every folder being there, and the caller then
takes the statement-by-statement path, which creates it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import JSON, Integer, String, bindparam, text
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.engine import Connection
from sqlalchemy.sql.elements import TextClause

from core.mail.conversation_rows import ConversationRow
from core.mail.imap_uids import Placement
from core.store.models import Mail, table_of

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


_SQL = f"""
WITH folders AS MATERIALIZED (
    SELECT imap_folders.id FROM imap_folders
    JOIN unnest(:f_owners, :f_keys) AS placed (owner, key)
        ON imap_folders.owner = placed.owner AND imap_folders.key = placed.key
    ORDER BY imap_folders.owner, imap_folders.key
    FOR UPDATE OF imap_folders
),
ready AS MATERIALIZED (SELECT count(*) = :f_count AS ok FROM folders),
mail AS (
    INSERT INTO mails ({", ".join(MAIL_COLUMNS)})
    SELECT {", ".join(f":m_{c}" for c in MAIL_COLUMNS)} FROM ready WHERE ready.ok
    RETURNING seq
),
delivered AS (
    INSERT INTO deliveries (mail_seq, recipient, kind, is_read, archived, flagged, answered,
        marked_deleted, deleted, created_at)
    SELECT mail.seq, sent.recipient, sent.kind, false, false, false, false, false, false,
        :m_created_at
    FROM mail, unnest(:d_names, :d_kinds) WITH ORDINALITY AS sent (recipient, kind, n)
    ORDER BY sent.n
),
advanced AS (
    UPDATE imap_folders
    SET next_uid = imap_folders.next_uid + 1, highest_modseq = imap_folders.highest_modseq + 1
    FROM folders, ready
    WHERE ready.ok AND imap_folders.id = folders.id
    RETURNING imap_folders.id, imap_folders.next_uid, imap_folders.highest_modseq
),
filed AS (
    INSERT INTO imap_uids (folder_id, uid, mail_seq, modseq)
    SELECT advanced.id, advanced.next_uid - 1, mail.seq, advanced.highest_modseq
    FROM advanced, mail
),
joined AS (
    INSERT INTO session_participants (session_id, name)
    SELECT :m_session_id, member.name
    FROM ready, unnest(:names) WITH ORDINALITY AS member (name, n)
    WHERE ready.ok
    ORDER BY member.n
    ON CONFLICT DO NOTHING
),
saved AS (
    UPDATE sessions
    SET budget_used = sessions.budget_used + :rounds, status = :status,
        updated_at = :m_created_at
    FROM ready
    WHERE ready.ok AND sessions.id = :m_session_id
    RETURNING sessions.id, sessions.alias, sessions.subject, sessions.status,
        sessions.budget_limit, sessions.budget_used, sessions.updated_at
)
SELECT mail.seq, saved.* FROM mail, saved
"""

_TEXTS = ARRAY(String())
_STATEMENT: TextClause = text(_SQL).bindparams(
    *(bindparam(f"m_{c}", type_=_mail_type(c)) for c in MAIL_COLUMNS),
    bindparam("f_owners", type_=_TEXTS),
    bindparam("f_keys", type_=_TEXTS),
    bindparam("f_count", type_=Integer()),
    bindparam("d_names", type_=_TEXTS),
    bindparam("d_kinds", type_=_TEXTS),
    bindparam("names", type_=_TEXTS),
    bindparam("rounds", type_=Integer()),
    bindparam("status", type_=String()),
)


def store_mail(
    connection: Connection,
    values: Mapping[str, Any],
    recipients: Mapping[str, str],
    placements: Sequence[Placement],
    names: Sequence[str],
    status: str,
    rounds: int,
) -> tuple[int, ConversationRow] | None:
    """Insert the mail (`values`), a delivery per recipient (name → `to`/`cc`, in
    order), a UID in each folder of `placements`, the participants `names`, and
    write back the conversation (`rounds` more used, `status`, `updated_at` the
    mail's `created_at`): the mail's `seq` and the conversation as stored, or None when a
    folder is missing, and then nothing was written."""
    folders = sorted(set(placements))
    params: dict[str, Any] = {f"m_{c}": values.get(c) for c in MAIL_COLUMNS}
    params.update(
        f_owners=[owner for owner, _ in folders],
        f_keys=[key for _, key in folders],
        f_count=len(folders),
        d_names=list(recipients),
        d_kinds=list(recipients.values()),
        names=list(dict.fromkeys(names)),
        rounds=rounds,
        status=status,
    )
    row = connection.execute(_STATEMENT, params).first()
    if row is None:
        return None
    seq, *saved = row
    return int(seq), ConversationRow(*saved)
