"""How much an IMAP client may send, how slowly, and how many connections it may hold.

pymap reads whatever a client announces: `x LOGIN {2000000000+}` made it buffer
two gigabytes before anyone logged in. These limits bound every connection
(imap_view/connection.py enforces them); the gateway builds them from its
settings.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.mailboxes.keywords import KeywordLimits

__all__ = ["ImapLimits"]

# RFC 7888 §4 (LITERAL-): a non-synchronizing literal is at most 4096 octets, and
# pymap itself takes no larger literal in any command but APPEND.
SMALL_LITERAL = 4096
# Before login a client sends LOGIN, AUTHENTICATE, STARTTLS, CAPABILITY, ID, NOOP:
# two small literals and a line are all a command needs.
PREAUTH_COMMAND_BYTES = 16_384
# Every line, as Dovecot's `imap_max_line_length` (64 KiB); asyncio's StreamReader
# refuses a longer one anyway.
LINE_BYTES = 65_536
# ID before login (RFC 2971 §3.3: at most 30 field-value pairs, a field at most 30
# octets, a value at most 1024): ~32 KiB in literals or plain quoted strings, ~62 KiB
# quoted with every octet escaped; so one line's worth.
PREAUTH_ID_BYTES = LINE_BYTES
# Literals in one command: LOGIN has two, ID (RFC 2971) at most 60 strings.
LITERALS_PER_COMMAND = 64
# A literal is read (and timed) one MiB at a time.
LITERAL_CHUNK = 1_048_576


@dataclass(frozen=True, slots=True)
class ImapLimits:
    """The per-connection limits of the IMAP server (settings `imap_*`), and the memory
    its sessions share for parsed messages (imap_view/content_cache.py)."""

    max_append_bytes: int = 26_214_400 + 65_536
    login_timeout: float = 60.0
    idle_timeout: float = 1800.0
    command_timeout: float = 60.0
    max_connections_per_address: int = 20
    keywords: KeywordLimits = field(default_factory=KeywordLimits)
    content_cache_bytes: int = 64 * 1024 * 1024  # parsed messages and their bytes, in memory

    def literal_limit(self, *, authenticated: bool, append: bool) -> int:
        """The largest literal one command may carry in this state."""
        return self.max_append_bytes if authenticated and append else SMALL_LITERAL

    def command_limit(self, *, authenticated: bool, command: bytes = b"") -> int:
        """The most octets (lines and literals) one command (named `command`, upper case)
        may have in all."""
        if authenticated:
            return self.max_append_bytes + LINE_BYTES
        return PREAUTH_ID_BYTES if command == b"ID" else PREAUTH_COMMAND_BYTES
