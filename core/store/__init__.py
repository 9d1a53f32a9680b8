"""The store: the tables (models/), migrations, the storage port (port.py) and its two
backends (sqlite/, postgres/), the Store that runs their transactions (engine.py), event
rows and the in-process bus, the PostgreSQL replica link, blob files, and the original
bytes of mail, once per content (raw_messages.py); which unexpected failures may pass on
a retry (transient.py, disk_full.py). Library internals through sqlalchemy_compat.py.

May import only what is below it: the metrics, the cluster's notices and the vocabulary at
`core/` top (never identity, mail or above).
"""
