"""mail search: a trigram index over subject, body and addresses, kept by triggers

Revision ID: 0012s
Revises: 0011k
Create Date: 2026-12-01

Search (`core/mail/search.py`) finds substrings, also of Chinese text and of
paths like `/srv/app`, which word tokenizers split or drop; trigrams find both.
SQLite: an FTS5 table with the `trigram` tokenizer (rowid = mails.seq).
PostgreSQL: a `mail_search` table whose document (lower-cased) has a GIN `pg_trgm` index
(pg_trgm is a trusted extension from PostgreSQL 13: the database owner may
create it). Triggers on `mails` keep the index in the writing transaction,
whichever path writes (send, import, the bulk path), and this revision fills
it for the mail already there. The tables are not in the models: they are the
database's own index, read only by `core/mail/search.py`
(`core/store/search_index.py` names them).
"""

from __future__ import annotations

from alembic import op

revision = "0012s"
down_revision = "0011k"
branch_labels = None
depends_on = None
phase = "expand"  # the release before it runs against the schema it leaves

# The addresses of a mail as one text: sender, recipient, cc (JSON text).
_SQLITE_ADDRESSES = (
    "{r}.from_name || ' ' || {r}.from_path || ' ' || {r}.to_name || ' ' || {r}.to_path"
    " || ' ' || coalesce({r}.cc, '')"
)
_SQLITE_INSERT = (
    "INSERT INTO mail_search(rowid, subject, body, addresses) "
    "VALUES (new.seq, new.subject, new.body, " + _SQLITE_ADDRESSES.format(r="new") + ");"
)
_WATCHED = "subject, body, from_name, from_path, to_name, to_path, cc"


def _sqlite_upgrade() -> None:
    op.execute(
        "CREATE VIRTUAL TABLE mail_search USING fts5("
        "subject, body, addresses, tokenize = 'trigram')"
    )
    op.execute(
        "INSERT INTO mail_search(rowid, subject, body, addresses) "
        "SELECT seq, subject, body, " + _SQLITE_ADDRESSES.format(r="mails") + " FROM mails"
    )
    op.execute(
        f"CREATE TRIGGER mail_search_insert AFTER INSERT ON mails BEGIN {_SQLITE_INSERT} END"
    )
    op.execute(
        f"CREATE TRIGGER mail_search_update AFTER UPDATE OF {_WATCHED} ON mails BEGIN "
        f"DELETE FROM mail_search WHERE rowid = old.seq; {_SQLITE_INSERT} END"
    )
    op.execute(
        "CREATE TRIGGER mail_search_delete AFTER DELETE ON mails BEGIN "
        "DELETE FROM mail_search WHERE rowid = old.seq; END"
    )


# Lower-cased once here: LIKE on it is cheaper than ILIKE on each recheck.
_PG_DOCUMENT = (
    "lower({r}.subject || E'\\n' || {r}.from_name || ' ' || {r}.from_path || ' ' || {r}.to_name"
    " || ' ' || {r}.to_path || ' ' || coalesce({r}.cc::text, '') || E'\\n' || {r}.body)"
)


def _postgresql_upgrade() -> None:
    op.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    op.execute(
        "CREATE TABLE mail_search ("
        "seq BIGINT PRIMARY KEY REFERENCES mails(seq) ON DELETE CASCADE, "
        "document TEXT NOT NULL)"
    )
    op.execute(
        "INSERT INTO mail_search(seq, document) SELECT seq, "
        + _PG_DOCUMENT.format(r="mails")
        + " FROM mails"
    )
    op.execute("CREATE INDEX ix_mail_search_trgm ON mail_search USING gin (document gin_trgm_ops)")
    op.execute(
        "CREATE FUNCTION mail_search_keep() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        "INSERT INTO mail_search(seq, document) VALUES (NEW.seq, "
        + _PG_DOCUMENT.format(r="NEW")
        + ") ON CONFLICT (seq) DO UPDATE SET document = EXCLUDED.document; "
        "RETURN NULL; END $$"
    )
    op.execute(
        f"CREATE TRIGGER mail_search_keep AFTER INSERT OR UPDATE OF {_WATCHED} ON mails "
        "FOR EACH ROW EXECUTE FUNCTION mail_search_keep()"
    )


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        _sqlite_upgrade()
    else:
        _postgresql_upgrade()


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for trigger in ("insert", "update", "delete"):
            op.execute(f"DROP TRIGGER IF EXISTS mail_search_{trigger}")
    else:
        op.execute("DROP TRIGGER IF EXISTS mail_search_keep ON mails")
        op.execute("DROP FUNCTION IF EXISTS mail_search_keep()")
    op.execute("DROP TABLE IF EXISTS mail_search")
