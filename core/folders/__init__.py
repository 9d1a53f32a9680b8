"""The IMAP view's folders as the store sees them: which exist, what is in each, their
counters and changes, and Drafts served as messages.

May import mail, rendering, identity, the store and the vocabulary; independent of approvals.
"""
