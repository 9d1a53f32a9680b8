"""Each person's mailbox state: their folders (which exist, what is in each, counts), where
each mail sits in them with its UID and mod-sequence, the flags and keywords they gave it,
what left a folder, and their drafts as the Drafts folder. IMAP and the web UI read the
same rows; the write path files new mail here inside its own transaction.

May import the store and the vocabulary; independent of identity, nothing of mail or above.
"""
