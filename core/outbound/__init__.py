"""Outbound mail's queue: who may send outside (and, for agents, to whom: allowlist.py),
the jobs written with a mail, their claims, retries and rate limits.

It sits beside core/push (it imports the store, identity's names and the vocabulary)
so that the one write path (core/mail/send.py) can write a mail's jobs in the mail's
own transaction; sending them (rendering, DKIM, SMTP, notices) is core/relay's.
"""
