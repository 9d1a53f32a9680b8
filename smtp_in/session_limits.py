"""Bounds on one SMTP session, and on the sessions of one address.

A client silent for `idle_seconds` (5 minutes, RFC 5321 §4.5.3.2.7's least wait for
a command) is told so with Postfix's words and closed; aiosmtpd's own timer would
close it without a word. A NOOP every few seconds would keep a session open for
ever, so a session also ends after
`max_seconds` whatever it does, and after `max_commands` commands; one address
holds at most `max_per_address` connections at once. Each ends with a `421`
reply and the connection closed, as RFC 5321 §3.8 lets a server do (§4.2.2:
421 "closing transmission channel"; RFC 3463 `4.4.2` bad connection, `4.7.0`
refused by policy). 421 is a temporary reply, rightly: the client may connect
again and go on.

The defaults leave an honest client plenty: a message takes about
`max_recipients` + 5 commands (EHLO, AUTH, MAIL, RCPT…, DATA), so 1,000 commands
carry at least nine messages of 100 recipients (hundreds of ordinary ones), and
30 minutes carry a 25 MB message over a 1 Mbit/s line ten times over. A mail
client that has more to send opens a new session.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.identity.throttle import ConnectionsPerAddress

IDLE_OVER = "421 4.4.2 {host} Error: timeout exceeded"
SESSION_OVER = "421 4.4.2 this session has lasted {seconds:g} s, the most allowed: connect again"
TOO_MANY_COMMANDS = "421 4.4.2 {count} commands in this session, the most allowed: connect again"
TOO_MANY_CONNECTIONS = (
    "421 4.7.0 {count} connections from your address already, the most allowed: try again later"
)


@dataclass(slots=True)
class SessionLimits:
    """The limits, and the open connections per address (shared by the SMTP ports)."""

    max_seconds: float = 1800.0
    idle_seconds: float = 300.0
    max_commands: int = 1000
    max_per_address: int = 50
    open: ConnectionsPerAddress = field(init=False)

    def __post_init__(self) -> None:
        self.open = ConnectionsPerAddress(self.max_per_address)

    def admit(self, address: str) -> bool:
        """Count a new connection from `address`; False (not counted) when it has too many."""
        return self.open.take(address)

    def release(self, address: str) -> None:
        self.open.release(address)
