"""The client behind a TCP proxy: HAProxy's PROXY protocol (v1 text, v2 binary) read
before a listener's first byte of SMTP, IMAP or TLS, and believed only from
`AGENTMAIL_TRUSTED_PROXIES`.

`peer.py` is the client of one connection, `header.py` reads a header within its bounds,
`listener.py` accepts connections, reads the header of those from a trusted proxy and
hands each to its protocol with the client's address. It imports nothing of core.
"""
