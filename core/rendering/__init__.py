"""A stored mail as RFC 5322 bytes and back: rendering (multipart/alternative, attachments,
numbered options), parsing back, batch rendering and the cache of rendered bytes; the kept
structures of stored mail (read for a mail's current content, made, backfilled).

May import the mailbox state, identity, the store and the vocabulary; independent of mail.
"""
