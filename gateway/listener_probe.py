"""Do the gateway's listeners serve? A greeting read from each, as a client reads it.

A socket that accepts connections is not a server that answers: a listener whose
connections fail while their protocol is built (an exception asyncio drops) accepts
every client and closes it at once. So readiness and `agentmail doctor` connect to
each listener and take what a client needs first: SMTP's 220 greeting and the 250
reply to EHLO (RFC 5321 §3.1, §4.1.1.1), IMAP's untagged OK greeting (RFC 3501
§7.1.1, PREAUTH too), then end the session politely (QUIT, LOGOUT). Implicit-TLS
ports are probed through TLS without checking the certificate: the listener is
under test here, the certificate has a check of its own. Each probe is bounded by
a timeout. A listener that expects a PROXY header from this machine (a trusted proxy,
core/proxied/) is first sent v2's LOCAL one, which HAProxy's specification (§2.2) gives
to a proxy's own health checks: the probe is then counted as this machine.
`ListenerCheck` runs them at most once per `fresh_for` seconds, so a
load balancer polling `/readyz` costs one probe per listener every two seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import time
from collections.abc import Sequence
from dataclasses import dataclass

from proxyprotocol.result import ProxyResultLocal
from proxyprotocol.v2 import ProxyProtocolV2

PROBE_TIMEOUT_SECONDS = 2.0
FRESH_SECONDS = 2.0
_LINE_LIMIT = 64 * 1024  # a reply line longer than this is no greeting of ours
_MAX_LINES = 64  # EHLO's reply lines: a dozen here
_CLOSE_SECONDS = 0.5  # for our side's close (a TLS close waits for the peer's)
_LOCAL_HEADER = ProxyProtocolV2().pack(ProxyResultLocal())


@dataclass(frozen=True)
class Listener:
    """One listener to probe: its name as shown ("SMTP", "IMAPS"), where, whether it
    speaks TLS from the first byte and whether it expects a PROXY header first."""

    name: str
    host: str
    port: int
    tls: bool = False
    proxy_header: bool = False

    @property
    def protocol(self) -> str:
        """ "SMTP", "IMAP" or "HTTP" (what is spoken once TLS, if any, is up)."""
        return self.name.removesuffix("S") if self.tls else self.name

    @property
    def where(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


def connect_host(bound: str) -> str:
    """Where a client on this machine reaches a socket bound to `bound`."""
    return {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(bound, bound)


def _client_tls() -> ssl.SSLContext:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


class _Refused(Exception):
    """The answer was not the protocol's (the message says what came instead)."""


@dataclass(frozen=True)
class Answer:
    """What a probe found: `ok`, why not (`text`), whether anything accepted the
    connection at all, and the greeting it read (doctor tells the gateway's apart)."""

    ok: bool
    text: str
    listening: bool = True
    greeting: str = ""


def _shown(line: bytes) -> str:
    return line[:120].decode("ascii", "replace").strip()


async def _reply(reader: asyncio.StreamReader, code: bytes) -> str:
    """An SMTP reply with `code` read to its last line (RFC 5321 §4.2.1); its first line."""
    first = b""
    for _ in range(_MAX_LINES):
        line = await reader.readline()
        if not line:
            raise _Refused("closed the connection" if code == b"220" else "closed after EHLO")
        if not line.startswith(code):
            raise _Refused(f"answered {_shown(line)!r}")
        first = first or line
        if line[3:4] != b"-":
            return _shown(first)
    raise _Refused("answered too many lines")


async def _until_closed(reader: asyncio.StreamReader) -> None:
    """The server's last lines, up to its close: by then it has released what the
    session held (the next probe from this address is not one too many)."""
    for _ in range(_MAX_LINES):
        if not await reader.readline():
            return


async def _smtp(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> str:
    greeting = await _reply(reader, b"220")
    writer.write(b"EHLO readiness.probe\r\n")
    await _reply(reader, b"250")
    writer.write(b"QUIT\r\n")
    await _until_closed(reader)  # 221
    return greeting


async def _imap(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> str:
    greeting = await reader.readline()
    if not greeting:
        raise _Refused("closed the connection")
    if not greeting.startswith((b"* OK", b"* PREAUTH")):
        raise _Refused(f"answered {_shown(greeting)!r}")
    writer.write(b"p LOGOUT\r\n")
    await _until_closed(reader)  # * BYE, p OK
    return _shown(greeting)


async def _http(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> str:
    """`GET /healthz` (the liveness probe): its status line must say 200; its body."""
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
    status = await reader.readline()
    if not status:
        raise _Refused("closed the connection")
    if status.split(b" ", 2)[1:2] != [b"200"]:
        raise _Refused(f"answered {_shown(status)!r}")
    rest = b""
    while len(rest) < _LINE_LIMIT and (chunk := await reader.read(_LINE_LIMIT)):
        rest += chunk
    return _shown(rest.partition(b"\r\n\r\n")[2])  # the body


_CONVERSE = {"SMTP": _smtp, "IMAP": _imap, "HTTP": _http}


async def probe(listener: Listener, within: float = PROBE_TIMEOUT_SECONDS) -> Answer:
    """Whether a client would be served there, and if not why (one line, for /readyz
    and doctor)."""
    what = f"{listener.protocol} greeting" if listener.protocol != "HTTP" else "/healthz"
    writer: asyncio.StreamWriter | None = None
    try:
        async with asyncio.timeout(within):
            reader, writer = await asyncio.open_connection(
                listener.host, listener.port, limit=_LINE_LIMIT
            )
            if listener.proxy_header:
                writer.write(_LOCAL_HEADER)  # before TLS, as a proxy sends it
            if listener.tls:
                await writer.start_tls(_client_tls(), server_hostname=listener.host)
            greeting = await _CONVERSE[listener.protocol](reader, writer)
    except TimeoutError:
        return Answer(False, f"{listener.where}: no {what} within {within:g} s")
    except _Refused as refused:
        return Answer(False, f"{listener.where}: no {what}: {refused}")
    except ConnectionRefusedError:
        return Answer(False, f"{listener.where}: nothing listens", listening=False)
    except Exception as error:  # TLS, a reset, a line too long: a reason, never a raise
        shown = error.strerror if isinstance(error, OSError) and error.strerror else error
        return Answer(False, f"{listener.where}: {type(error).__name__}: {shown}")
    finally:
        if writer is not None:
            writer.close()
            with contextlib.suppress(Exception):
                async with asyncio.timeout(min(within, _CLOSE_SECONDS)):
                    await writer.wait_closed()
    return Answer(True, "ok", greeting=greeting)


class ListenerCheck:
    """Every listener probed (`probe_all`), the result kept `fresh_for` seconds and
    shared by callers meanwhile (one round of probes in flight at a time)."""

    def __init__(
        self,
        listeners: Sequence[Listener],
        *,
        timeout: float = PROBE_TIMEOUT_SECONDS,
        fresh_for: float = FRESH_SECONDS,
    ) -> None:
        self.listeners = tuple(listeners)
        self._timeout = timeout
        self._fresh_for = fresh_for
        self._result: dict[str, str] = {}
        self._taken = -float("inf")
        self._running: asyncio.Task[dict[str, str]] | None = None

    async def __call__(self) -> dict[str, str]:
        """Each listener's name and "ok", or why not."""
        if time.monotonic() - self._taken < self._fresh_for:
            return self._result
        if self._running is None:
            self._running = asyncio.create_task(self._probe_all(), name="listener probe")
        return await asyncio.shield(self._running)

    async def _probe_all(self) -> dict[str, str]:
        try:
            found = await probe_all(self.listeners, self._timeout)
            self._result = {each.name: answer.text for each, answer in found.items()}
            self._taken = time.monotonic()
            return self._result
        finally:
            self._running = None


async def probe_all(
    listeners: Sequence[Listener], within: float = PROBE_TIMEOUT_SECONDS
) -> dict[Listener, Answer]:
    """Each listener's answer. One protocol's listeners are probed one after the other
    (SMTP and SMTPS share one count of connections per client address, IMAP and IMAPS
    another), so a probe holds one connection of each at a time, never two."""

    async def in_turn(group: list[Listener]) -> list[tuple[Listener, Answer]]:
        return [(each, await probe(each, within)) for each in group]

    groups: dict[str, list[Listener]] = {}
    for each in listeners:
        groups.setdefault(each.protocol, []).append(each)
    answered = await asyncio.gather(*(in_turn(group) for group in groups.values()))
    found = dict(pair for group in answered for pair in group)
    return {each: found[each] for each in listeners}
