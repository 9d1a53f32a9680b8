"""IMAP: pymap's protocol engine over the store, the mail of each human seen as folders.

Imports `core` (and pymap) only; never another adapter, nor `gateway`.
Modules: imap_view/README.md.
"""
