"""Sending outbound mail: the queued jobs (core/outbound/) rendered (core/rendering/),
DKIM-signed, handed to the smarthost over SMTP, and a postmaster notice
(core/approvals/postmaster.py) to the sender when a recipient cannot be reached.

It imports the layers below (approvals, rendering, outbound, secrets, the store) and
aiosmtplib and dkimpy; the gateway runs its sender loop and the `agentmail dkim`
commands.
"""
