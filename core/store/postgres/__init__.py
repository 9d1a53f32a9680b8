"""PostgreSQL's backend of the store: a new mail in one statement, statements deferred
into the events insert, the events lock and NOTIFY (core/store/replicas.py listens).

Imports the store's common parts only, never the SQLite backend.
"""
