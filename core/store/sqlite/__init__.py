"""SQLite's backend of the store: its engines (WAL, transactions begun by us), group
commit, the connections its threads keep, `Prepared` statements run on the cursor.

Imports the store's common parts only, never the PostgreSQL backend.
"""
