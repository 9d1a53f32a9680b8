"""What the schema (core/store/models/) promises about a store, checked with plain SQL.

A mail is written in one transaction with everything that belongs to it: its
deliveries (one per recipient), the `new_mail` event of each recipient, its
IMAP UIDs in the humans' folders (below their folder's counter) and, when it came
as bytes, its `raw_messages` row. A crash may cut a transaction, never half of
one, so after any crash every rule below holds. Each query returns the rows that
break its rule, so a failure shows them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from sqlalchemy import bindparam, text
from sqlalchemy.orm import Session

ORPHANS: dict[str, str] = {
    "a delivery without its mail": """
        SELECT d.id FROM deliveries d LEFT JOIN mails m ON m.seq = d.mail_seq
        WHERE m.seq IS NULL""",
    # (Imported mail between outside people and a local one may have no local recipient.)
    "a mail to a local name without its delivery": """
        SELECT m.id, m.to_name FROM mails m
        WHERE (m.to_name IN (SELECT name FROM users) OR m.to_name IN (SELECT name FROM agents))
          AND NOT EXISTS (SELECT 1 FROM deliveries d
                          WHERE d.mail_seq = m.seq AND d.recipient = m.to_name)""",
    "a mail without its conversation": """
        SELECT m.id FROM mails m LEFT JOIN sessions s ON s.id = m.session_id
        WHERE s.id IS NULL""",
    "a conversation without a mail": """
        SELECT s.id FROM sessions s
        WHERE NOT EXISTS (SELECT 1 FROM mails m WHERE m.session_id = s.id)""",
    "a participant without its conversation": """
        SELECT p.name FROM session_participants p LEFT JOIN sessions s ON s.id = p.session_id
        WHERE s.id IS NULL""",
    "an IMAP UID without its mail": """
        SELECT u.uid FROM imap_uids u LEFT JOIN mails m ON m.seq = u.mail_seq
        WHERE m.seq IS NULL""",
    "an IMAP UID without its folder": """
        SELECT u.uid FROM imap_uids u LEFT JOIN imap_folders f ON f.id = u.folder_id
        WHERE f.id IS NULL""",
    "an IMAP UID at or above its folder's next UID (RFC 3501 §2.3.1.1)": """
        SELECT f.owner, f.key, u.uid, f.next_uid FROM imap_uids u
        JOIN imap_folders f ON f.id = u.folder_id WHERE u.uid >= f.next_uid""",
    "a keyword without its mail": """
        SELECT k.keyword FROM delivery_keywords k LEFT JOIN mails m ON m.seq = k.mail_seq
        WHERE m.seq IS NULL""",
    "an attachment naming a mail that is not there": """
        SELECT a.id FROM attachments a LEFT JOIN mails m ON m.seq = a.mail_seq
        WHERE a.mail_seq IS NOT NULL AND m.seq IS NULL""",
    "a mail whose original bytes are missing": """
        SELECT m.id FROM mails m LEFT JOIN raw_messages r ON r.sha256 = m.raw_sha256
        WHERE m.raw_sha256 IS NOT NULL AND r.sha256 IS NULL""",
    "original bytes of the wrong size": """
        SELECT r.sha256 FROM raw_messages r WHERE length(r.data) <> r.size""",
}

# A human recipient's INBOX and a human sender's Sent hold every new mail (not yet
# archived or deleted): core/mailboxes/uids.py new_mail_placements.
UNFILED_DELIVERY = """
    SELECT m.subject, d.recipient FROM deliveries d JOIN mails m ON m.seq = d.mail_seq
    JOIN users h ON h.name = d.recipient
    WHERE m.subject IN :subjects AND d.archived = false AND d.deleted = false
      AND NOT EXISTS (SELECT 1 FROM imap_uids u JOIN imap_folders f ON f.id = u.folder_id
                      WHERE u.mail_seq = m.seq AND f.owner = d.recipient AND f.key = 'inbox')"""
UNFILED_SENT = """
    SELECT m.subject FROM mails m JOIN users h ON h.name = m.from_name
    WHERE m.subject IN :subjects
      AND NOT EXISTS (SELECT 1 FROM imap_uids u JOIN imap_folders f ON f.id = u.folder_id
                      WHERE u.mail_seq = m.seq AND f.owner = m.from_name AND f.key = 'sent')"""


def broken_rules(session: Session) -> dict[str, list[tuple[object, ...]]]:
    """Every rule of ORPHANS that some rows break, with (up to five of) those rows."""
    broken: dict[str, list[tuple[object, ...]]] = {}
    for rule, query in ORPHANS.items():
        rows = [tuple(row) for row in session.execute(text(query)).fetchmany(5)]
        if rows:
            broken[rule] = rows
    return broken


def unfiled(session: Session, subjects: Iterable[str]) -> list[tuple[object, ...]]:
    """Mails among `subjects` missing from a human recipient's INBOX or sender's Sent."""
    wanted = sorted(set(subjects))
    if not wanted:
        return []
    params = {"subjects": wanted}
    rows = []
    for query in (UNFILED_DELIVERY, UNFILED_SENT):
        statement = text(query).bindparams(bindparam("subjects", expanding=True))
        rows += [tuple(row) for row in session.execute(statement, params)]
    return rows


def missing_events(session: Session, subjects: Iterable[str]) -> list[tuple[str, str]]:
    """(subject, recipient) of deliveries among `subjects` that have no `new_mail` event."""
    wanted = set(subjects)
    announced = set()
    for recipient, payload in session.execute(
        text("SELECT recipient, payload FROM events WHERE type = 'new_mail'")
    ):
        mail_id = (payload if isinstance(payload, dict) else json.loads(payload))["mail_id"]
        announced.add((mail_id, recipient))
    missing = []
    for mail_id, subject, recipient in session.execute(
        text(
            "SELECT m.id, m.subject, d.recipient FROM mails m"
            " JOIN deliveries d ON d.mail_seq = m.seq"
        )
    ):
        if subject in wanted and (mail_id, recipient) not in announced:
            missing.append((subject, recipient))
    return missing
