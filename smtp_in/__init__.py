"""SMTP submission: aiosmtpd on the gateway's loop, every message stored through `core`.

Imports `core` only; never another adapter, nor `gateway`. Modules: smtp_in/README.md.
"""
