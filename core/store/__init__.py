"""The store: tables, the engine and its transactions, group commit, migrations, event rows,
the in-process bus and its PostgreSQL LISTEN/NOTIFY replica link, blob files, and the
original bytes of mail, once per content (raw_messages.py); which unexpected failures may
pass on a retry (transient.py, full.py).

May import only what is below it: the metrics, the cluster's notices and the vocabulary at
`core/` top (never identity, mail or above).
"""
