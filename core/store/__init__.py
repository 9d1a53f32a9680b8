"""The store: tables, the engine and its transactions, group commit, migrations, event rows,
the in-process bus and its PostgreSQL LISTEN/NOTIFY replica link, and blob files.

The lowest layer: imports only the vocabulary at `core/` top (never identity, mail or above).
"""
