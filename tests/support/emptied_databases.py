"""A PostgreSQL test database emptied for the next test instead of dropped.

CREATE DATABASE … TEMPLATE copies the whole template through the WAL and DROP DATABASE
removes it again: about a quarter of a second of the server's CPU a test, on a machine
the suite keeps busy. A database a test has finished with is as good as a new copy
once it holds no rows and its schema is the template's: its rows are deleted and
every sequence restarts, so ids begin at 1 as in a copy.

It is reused only when nothing can still reach it: no other session connected and
no prepared transaction, and its catalog (tables, columns, defaults, indexes,
constraints, functions, triggers, extensions, the migration version, per-database
settings) is the template's, by one fingerprint. Anything else (a test that altered
the schema, a process still connected) and it is dropped as before.
"""

from __future__ import annotations

import asyncpg

from core.store.schema_phases import LAST_CONTRACT_KEY, newest_contract

# Every schema object a test could have changed, one line each, hashed.
_FINGERPRINT = r"""
SELECT md5(string_agg(line, E'\n' ORDER BY line)) FROM (
  SELECT 'rel ' || n.nspname || '.' || c.relname || ' ' || c.relkind::text AS line
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')
     AND n.nspname NOT LIKE 'pg\_toast%' AND n.nspname NOT LIKE 'pg\_temp%'
  UNION ALL
  SELECT 'col ' || c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
         || ' ' || a.attnotnull || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
   WHERE c.relnamespace = 'public'::regnamespace AND a.attnum > 0 AND NOT a.attisdropped
  UNION ALL
  SELECT 'idx ' || pg_get_indexdef(i.indexrelid) FROM pg_index i
    JOIN pg_class c ON c.oid = i.indrelid WHERE c.relnamespace = 'public'::regnamespace
  UNION ALL
  SELECT 'con ' || conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint
   WHERE connamespace = 'public'::regnamespace
  UNION ALL
  SELECT 'fn ' || proname || '(' || pg_get_function_identity_arguments(oid) || ') '
         || md5(prosrc) FROM pg_proc WHERE pronamespace = 'public'::regnamespace
  UNION ALL
  SELECT 'trg ' || tgname FROM pg_trigger WHERE NOT tgisinternal
  UNION ALL
  SELECT 'ext ' || extname || ' ' || extversion FROM pg_extension
  UNION ALL
  SELECT 'ver ' || version_num FROM alembic_version
  UNION ALL
  SELECT 'set ' || array_to_string(setconfig, ',') FROM pg_db_role_setting
   WHERE setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())
) AS catalog
"""

_OTHERS = """
SELECT (SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid())
     + (SELECT count(*) FROM pg_prepared_xacts WHERE database = $1)
"""


async def fingerprint(conn: asyncpg.Connection) -> str:
    """The schema of the database `conn` is connected to, as one hash."""
    value: str = await conn.fetchval(_FINGERPRINT)
    return value


# What the migrations write besides the schema: the webhooks' fan-out cursor (at the
# newest event then: none, in a new database), and the newest contract migration
# applied (core/store/schema_phases.py).
SEEDED = (
    "INSERT INTO meta (key, value) VALUES ('webhooks_through_event', '0'),"
    f" ('{LAST_CONTRACT_KEY}', '{newest_contract()}')"
)


async def emptied(conn: asyncpg.Connection, name: str, template_fingerprint: str) -> bool:
    """Empty the database `conn` is connected to (named `name`) for the next test, if it
    is safe to reuse; False when it must be dropped instead."""
    if await conn.fetchval(_OTHERS, name) or await fingerprint(conn) != template_fingerprint:
        return False
    tables = await conn.fetch(
        "SELECT quote_ident(tablename) AS t FROM pg_tables"
        " WHERE schemaname = 'public' AND tablename <> 'alembic_version'"
    )
    sequences = await conn.fetch(
        "SELECT quote_ident(sequencename) AS s FROM pg_sequences WHERE schemaname = 'public'"
    )
    names = [row["t"] for row in tables]
    async with conn.transaction():
        if await conn.fetchval("SELECT rolsuper FROM pg_roles WHERE rolname = current_user"):
            # DELETE, with the foreign keys' triggers off: a test leaves a few rows, and
            # TRUNCATE's new files for every table and index cost a hundred times more.
            await conn.execute("SET LOCAL session_replication_role = replica")
            await conn.execute("; ".join(f"DELETE FROM {name}" for name in names))
        elif names:
            await conn.execute(f"TRUNCATE {', '.join(names)} CASCADE")
        if sequences:
            await conn.execute("; ".join(f"ALTER SEQUENCE {row['s']} RESTART" for row in sequences))
        # The rows the migrations seed, as a database new from the template has them.
        await conn.execute(SEEDED)
    # Nor is one that somebody reached while it was being emptied.
    return not await conn.fetchval(_OTHERS, name)
