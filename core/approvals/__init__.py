"""Permission requests and their decisions: asking, deciding (web and by mail reply), the
reply decision rules, and postmaster notices for late replies.

May import mail, rendering, identity, the store and the vocabulary; independent of folders.
"""
