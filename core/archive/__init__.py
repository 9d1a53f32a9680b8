"""Import (mbox, Maildir, .eml, IMAP) and export (mbox, Maildir): reading sources, parsing,
ordering threads parents-first, writing in batches through the import mode of the write path.

The top layer of core: may import every other part of it.
"""
