"""Permission requests and their decisions: asking, deciding (web and by mail reply), the
reply decision rules, and postmaster notices for late replies.

May import mail, rendering, the mailbox state, identity, the store and the vocabulary.
"""
