"""Sending outbound mail: the queued jobs (core/outbound/) rendered (core/rendering/),
DKIM-signed, handed to the smarthost or straight to the recipient domain's MX
(`AGENTMAIL_SMARTHOST=direct`: mx.py, direct.py) over SMTP from a bounce address of
each job's own (envelope.py), and a postmaster notice (notices.py,
core/approvals/postmaster.py) to the sender when a recipient cannot be reached — at
once, or when a bounce comes back later (bounces.py reads it, bounce_record.py records
it; the MX listener's call is in bounces.py's docstring).

It imports the layers below (approvals, rendering, outbound, secrets, mailauth's
resolver, the store) and aiosmtplib, dkimpy, dnspython and flufl.bounce; the gateway
runs its sender loop and the `agentmail dkim` and `doctor` commands.
"""
