"""Creating a human's IMAP folders takes their rows in the one global order (by key).

A human's first IMAP login creates the fixed folders in one INSERT; filing a mail
creates the folders it needs one by one, in key order (core/mailboxes/uids.py).
The login's INSERT once went in the order of FIXED_FOLDERS (inbox, sent, …,
decision), so a first permission request (into `decision`, then `inbox`) racing
the human's first login deadlocked on PostgreSQL: each held the row the other
wanted next. Both now go in key order, so one simply waits for the other.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.orm import Session

from core.mailboxes.uids import DECISION, FIXED_FOLDERS, INBOX, create_folders
from core.store.engine import Store
from core.store.engine import database_url as store_url


@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
async def test_a_first_login_and_a_first_filing_never_deadlock(database_url: str) -> None:
    store = Store(store_url(database_url, Path()))
    attempts: list[str] = []
    try:

        def filing(session: Session) -> None:
            # As file_mails creates what a permission request needs: decision, then inbox.
            attempts.append("filing")
            create_folders(session, "jianf", [DECISION])
            session.execute(text("SELECT pg_sleep(0.4)"))
            create_folders(session, "jianf", [INBOX])

        def login(session: Session) -> None:
            attempts.append("login")
            session.execute(text("SELECT pg_sleep(0.1)"))
            create_folders(session, "jianf", FIXED_FOLDERS)  # core/mailboxes/folders.py

        await asyncio.gather(store.write(filing), store.write(login))
        assert sorted(attempts) == ["filing", "login"]  # neither was aborted and run again
    finally:
        await store.close()
