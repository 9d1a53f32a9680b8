"""pymap's configuration for the gateway: capabilities, authentication mechanisms, TLS.

`IMAPConfig` reads command-line arguments and environment variables (CERT_FILE,
FQDN) when values are left out; every one it would look up is given here, so the
gateway's settings are the only source.
"""

from __future__ import annotations

import ssl
from argparse import Namespace
from collections.abc import Sequence

from pymap.concurrent import Subsystem
from pymap.config import BackendCapability, IMAPConfig
from pymap.parsing.commands import Commands
from pysasl import SASLAuth
from pysasl.hashing import BuiltinHash

from imap_view.binary_append import BinaryAppendCommand
from imap_view.condstore_parsing import ModseqFetchCommand, ModseqUidFetchCommand
from imap_view.list_extended import CheckedLsubCommand, ExtendedListCommand
from imap_view.search_charset import search_commands
from imap_view.session_commands import EnableCommand, NamespaceCommand, UnselectCommand
from imap_view.sort_parsing import SortCommand, ThreadCommand, UidSortCommand, UidThreadCommand
from imap_view.status import GatewayStatusCommand

__all__ = ["GatewayImapConfig"]

# Both carry the secret in the clear, which is what a password or key check needs.
MECHANISMS = (b"PLAIN", b"LOGIN")
# Commands pymap 0.36.7 lacks or gets wrong, run by imap_view/state.py, and what they
# advertise.
EXTENSION_COMMANDS = (
    BinaryAppendCommand,  # pymap's APPEND, knowing a literal8 (imap_view/binary_append.py)
    EnableCommand,
    NamespaceCommand,
    UnselectCommand,
    ExtendedListCommand,
    CheckedLsubCommand,
    GatewayStatusCommand,
    ModseqFetchCommand,
    ModseqUidFetchCommand,
    SortCommand,
    UidSortCommand,
    ThreadCommand,
    UidThreadCommand,
)
EXTENSION_CAPABILITIES = (
    b"ENABLE",  # RFC 5161
    b"NAMESPACE",  # RFC 2342
    b"UNSELECT",  # RFC 3691
    b"UTF8=ACCEPT",  # RFC 6855
    b"LIST-EXTENDED",  # RFC 5258
    b"LIST-STATUS",  # RFC 5819
    b"SPECIAL-USE",  # RFC 6154
    b"CONDSTORE",  # RFC 7162 §3.1
    b"QRESYNC",  # RFC 7162 §3.2
    b"SORT",  # RFC 5256 §3
    b"SORT=DISPLAY",  # RFC 5957
    b"THREAD=ORDEREDSUBJECT",  # RFC 5256 §3
    b"THREAD=REFERENCES",  # RFC 5256 §3
    b"ESEARCH",  # RFC 4731
    b"ESORT",  # RFC 5267 §3
)


class GatewayImapConfig(IMAPConfig):
    def __init__(
        self,
        *,
        domain: str,
        allow_plaintext_auth: bool,
        tls: ssl.SSLContext | None = None,
        implicit_tls: bool = False,
        max_append_len: int = 26_214_400 + 65_536,
    ) -> None:
        """With `implicit_tls`, the connection is TLS from its first byte (RFC 8314
        §3.3, port 993): no STARTTLS, and LOGIN allowed from anywhere. `max_append_len`
        is the APPENDLIMIT (RFC 7889) pymap advertises after login."""
        super().__init__(
            Namespace(passlib_cfg=None, proxy_protocol=None),
            host=None,
            port=0,
            # pymap wants a context even without TLS; then STARTTLS is not offered.
            ssl_context=tls or ssl.create_default_context(ssl.Purpose.CLIENT_AUTH),
            tls_enabled=tls is not None and not implicit_tls,
            hash_context=BuiltinHash(),
            cpu_subsystem=Subsystem.for_asyncio(),
            reject_dnsbl=False,
            invalid_user_sleep=0.0,  # the login throttle slows guessing instead
            bad_command_limit=5,
            max_append_len=max_append_len,
        )
        self._domain = domain
        self.max_append_bytes = max_append_len
        self._allow_plaintext_auth = allow_plaintext_auth
        self._implicit_tls = implicit_tls
        # Once: pysasl finds its mechanisms by scanning every installed package's entry
        # points, on the loop, which each connection paid before its greeting.
        self._mechanisms = SASLAuth.named(MECHANISMS)
        self._no_mechanisms = SASLAuth([])

    @property
    def commands(self) -> Commands:
        commands = search_commands()  # SEARCH that answers charset problems (search_charset.py)
        for command in EXTENSION_COMMANDS:
            commands.register(command)
        return commands

    @property
    def backend_capability(self) -> BackendCapability:
        # pymap 0.36 has no defaults for these: every one must be given.
        # MULTIAPPEND (RFC 3502): every message of one APPEND in one transaction.
        return BackendCapability(idle=True, object_id=False, multi_append=True)

    @property
    def initial_auth(self) -> SASLAuth:
        """RFC 3501 §6.2.3 / RFC 8314: no password in the clear off this host.

        pymap switches a loopback connection to `tls_auth` itself, and any
        connection after STARTTLS; before that, any other one gets no mechanism
        (and LOGINDISABLED) unless plaintext is allowed.
        """
        secure = self._allow_plaintext_auth or self._implicit_tls
        return self.tls_auth if secure else self._no_mechanisms

    @property
    def tls_auth(self) -> SASLAuth:
        return self._mechanisms  # the mechanisms keep no state between attempts

    @property
    def initial_capability(self) -> Sequence[bytes]:
        # IDLE before login too, as Dovecot does: some clients (aioimaplib) read the
        # capabilities only from the greeting and refuse to IDLE otherwise.
        # LITERAL- (RFC 7888 §4): before login no literal may be larger than 4096
        # octets; after it, LITERAL+ (imap_view/server.py).
        starttls = [b"STARTTLS"] if self._tls_enabled else []
        return [b"LITERAL-", b"ID", b"IDLE", *starttls]

    @property
    def login_capability(self) -> Sequence[bytes]:
        listed = [cap for cap in super().login_capability if cap != b"IDLE"]  # listed once
        return [*listed, *EXTENSION_CAPABILITIES]

    @property
    def greeting(self) -> bytes:
        # pymap's default asks the resolver for the host name: a blocking call.
        return f"AgentMail IMAP ready ({self._domain})".encode()
