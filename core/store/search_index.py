"""The search index's tables: the database's own, outside the models.

Migration 0012s creates them and triggers on `mails` keep them: an FTS5 table
with the trigram tokenizer on SQLite (FTS5 adds its shadow tables), a table
with a GIN `pg_trgm` index on PostgreSQL. The schema comparison with the
models leaves exactly these out (tests/integration/test_migrations.py).
"""

from __future__ import annotations

SEARCH_TABLE = "mail_search"
# FTS5's shadow tables (https://www.sqlite.org/fts5.html#fts5_shadow_tables).
_FTS5_SHADOWS = ("data", "idx", "content", "docsize", "config")
INDEX_TABLES = frozenset({SEARCH_TABLE, *(f"{SEARCH_TABLE}_{s}" for s in _FTS5_SHADOWS)})
