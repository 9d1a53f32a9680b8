"""pymap's IMAP connection with bounded reads: literal sizes, command sizes and timeouts.

pymap 0.36's `IMAPConnection.readline` reads a `{n+}` literal with
`readexactly(n)` before anything parses it, and waits for a client forever.
Every read goes through `readline` and `read_continuation`, so overriding those
two (and `read_command`, which marks where a command starts) bounds every byte
a client sends:

- a literal is refused when it is announced, before one octet of it is read:
  4096 octets before login and in any command but APPEND (RFC 7888 §4,
  LITERAL-), the APPENDLIMIT after it (RFC 7889); a command's size and its
  number of literals are bounded too (imap_view/limits.py);
- before login the client has `login_timeout` from connecting; after it,
  `idle_timeout` between commands (RFC 3501 §5.4) — IDLE included, which a
  client re-issues to stay (RFC 2177 §3); a command line, once begun, must
  arrive within `command_timeout` (and a literal within it per MiB);
- `end` (a revoked key or a changed password, core/identity/signed_in.py) says
  `* BYE [EXPIRED]` at once while the connection waits for the client, else as
  soon as the command running is answered, and closes.

A refused synchronizing literal gets a tagged reply instead of `+` and the
session goes on, since no octet of it is coming; a refused non-synchronizing
one is already on the way, so the reply is followed by `* BYE` and the
connection closes (RFC 7888 §4). So is a command over its size limit, a line
longer than 64 KiB and a timeout (`* BYE` with the reason, RFC 3501 §7.1.5).
"""

from __future__ import annotations

import asyncio
import logging
import re
from asyncio import StreamReader, StreamWriter
from collections.abc import Awaitable
from contextvars import ContextVar
from typing import NoReturn, TypeVar

from proxyprotocol.sock import SocketInfo
from pymap.config import IMAPConfig
from pymap.imap import IMAPConnection
from pymap.imap.state import ConnectionState
from pymap.parsing.command import Command
from pymap.parsing.command.select import IdleCommand
from pymap.parsing.commands import Commands
from pymap.parsing.response import (
    CommandResponse,
    Response,
    ResponseBad,
    ResponseBye,
    ResponseCode,
    ResponseNo,
)

from core import metrics
from imap_view.deadline import Deadline
from imap_view.limits import LINE_BYTES, LITERAL_CHUNK, LITERALS_PER_COMMAND, ImapLimits
from imap_view.mailbox_names import UTF8_NAMES

__all__ = ["CURRENT_CONNECTION", "LimitedConnection"]

_T = TypeVar("_T")
# A literal announced at the end of a line: `{n}` or `{n+}` (RFC 7888), `~{n}` (RFC 3516).
_LITERAL = re.compile(rb"\{(\d+)(\+?)\}\r?\n$")
# RFC 3501 §9: tag = 1*<any ASTRING-CHAR except "+">, then SP and the command name.
_TAG_AND_NAME = re.compile(rb"([\x21\x23\x24\x26\x27\x2c-\x5b\x5d-\x7a\x7c-\x7e]+) ([A-Za-z]+)")
_TOOBIG = ResponseCode.of(b"TOOBIG")  # RFC 4469 §6, RFC 7889 §4
_pymap_log = logging.getLogger("pymap.imap")  # the logger pymap's connection writes to
_BATCH = 64 * 1024  # octets of a response handed to the transport at once
_MAX_DIGITS = 18  # more than this is more than any limit (and than int() should parse)
# RFC 5530 §3 EXPIRED: "access is no longer permitted using that passphrase".
_CREDENTIAL_ENDED = b"[EXPIRED] The key or password of this session was revoked or changed."


class _Refused(Exception):
    """A command refused as it is read, after which the session goes on."""

    def __init__(self, response: CommandResponse) -> None:
        super().__init__()
        self.response = response


class _Batch:
    """A response's writes, gathered (pymap's `WriteStream` is `write` alone)."""

    __slots__ = ["_parts", "_size", "_writer"]

    def __init__(self, writer: StreamWriter) -> None:
        self._writer = writer
        self._parts: list[bytes] = []
        self._size = 0

    def write(self, data: bytes) -> None:
        self._parts.append(data)
        self._size += len(data)
        if self._size >= _BATCH:
            self.flush()

    def flush(self) -> None:
        if self._parts:
            self._writer.write(b"".join(self._parts))
            self._parts, self._size = [], 0

    async def pause(self) -> None:
        """Between chunks of a long response (imap_view/fetch_ok.py): what is gathered
        goes out, a slow client's backlog is waited for, and the loop runs its other
        tasks (`drain` returns at once while the transport keeps up)."""
        metrics.IMAP_RESPONSE_PAUSES.inc()
        self.flush()
        await self._writer.drain()
        await asyncio.sleep(0)


class LimitedConnection(IMAPConnection):
    __slots__ = [
        "_append",
        "_command",
        "_deadline",
        "_ending",
        "_in_command",
        "_literals",
        "_next",
        "_said_bye",
        "_size",
        "_state",
        "_tag",
        "_timer",
        "limits",
    ]

    def __init__(
        self,
        commands: Commands,
        config: IMAPConfig,
        reader: StreamReader,
        writer: StreamWriter,
        sock_info: SocketInfo,
        *,
        limits: ImapLimits,
    ) -> None:
        super().__init__(commands, config, reader, writer, sock_info)
        self.limits = limits
        self._state: ConnectionState | None = None
        self._deadline = 0.0  # of the login, on the loop's clock
        self._said_bye = False
        self._ending: bytes | None = None  # the BYE to end with, once `end` was called
        self._in_command = False  # reading a command (not a SASL response, not IDLE's DONE)
        self._literals = 0  # in the command read so far
        self._next = True  # the next line read starts a command (or IDLE's DONE)
        self._size = 0  # octets of the command read so far
        self._tag = b"*"
        self._append = False
        self._command = b""  # the name of the command being read, upper case
        self._timer: Deadline | None = None  # made on the loop, in `run`

    async def run(self, state: ConnectionState) -> None:
        self._state = state
        self._deadline = asyncio.get_running_loop().time() + self.limits.login_timeout
        self._timer = Deadline()
        try:
            await super().run(state)
        finally:
            self._timer.close()

    def end(self) -> None:
        """From outside: the credential this session logged in with no longer holds.
        The read waiting for the client ends now (as a timeout would); a command
        running is answered first, then `* BYE [EXPIRED]` and the connection closes."""
        self._ending = _CREDENTIAL_ENDED
        if self._timer is not None:
            self._timer.expire_now()

    @property
    def authenticated(self) -> bool:
        try:
            return self._state is not None and self._state.session is not None
        except AttributeError:  # pymap's way of saying "no session yet"
            return False

    @property
    def utf8_names(self) -> bool:
        """Whether this session enabled UTF8=ACCEPT (RFC 6855 §3: UTF-8 mailbox names)."""
        try:
            extensions = getattr(self._state and self._state.session, "extensions", None)
        except AttributeError:  # no session yet
            return False
        return bool(getattr(extensions, "utf8_accept", False))

    async def read_command(self, state: ConnectionState) -> Command:
        UTF8_NAMES.set(self.utf8_names)  # read by the parse, in this connection's task
        while True:
            self._start_command()
            self._in_command = True
            try:
                return await super().read_command(state)
            except _Refused as refused:  # a synchronizing literal: nothing more is coming
                await self.write_response(refused.response)
            finally:
                self._in_command = False

    async def read_idle_done(self, cmd: IdleCommand) -> bool:
        self._start_command()
        return await super().read_idle_done(cmd)

    async def readline(self) -> memoryview:
        buf = bytearray()
        while True:
            line = await self._line()
            buf += line
            announced = _LITERAL.search(line)  # not in `buf`: a literal may end in `{1}\r\n`
            if announced is None:
                self._print("%s -->| %s", buf)  # type: ignore[arg-type]  # as pymap does
                return memoryview(buf)
            length, non_synchronizing = await self._allowed(announced)
            if not non_synchronizing:
                return memoryview(buf)  # pymap asks for it (`+`), then read_continuation
            buf += await self._literal(length)

    async def read_continuation(self, literal_length: int) -> memoryview:
        literal = await self._literal(literal_length)
        self._print("%s -->| %s", literal)
        return memoryview(literal + bytes(await self.readline()))

    async def write_response(self, resp: Response) -> None:
        """pymap 0.36.7's, without `bytes(resp)` for its debug log when that log is off:
        it formatted every response a second time (a FETCH's literals and envelopes
        included) only to throw it away. What a response writes is gathered and handed
        to the transport in pieces of `_BATCH` octets: pymap wrote every line of it
        apart, one `send` each (21 for a FETCH of 20 messages)."""
        batch = _Batch(self.writer)
        try:
            await resp.async_write(batch)
            batch.flush()
            await self.writer.drain()
        except ConnectionError:
            pass
        else:
            if _pymap_log.isEnabledFor(logging.DEBUG):
                self._print("%s <--| %s", bytes(resp))

    async def send_error_disconnect(self) -> None:
        if not self._said_bye:  # a BYE with its reason went out already
            await super().send_error_disconnect()

    def _start_command(self) -> None:
        self._next, self._size, self._literals, self._tag = True, 0, 0, b"*"
        self._append, self._command = False, b""

    async def _line(self) -> bytes:
        """A line: a command's first one waited for up to the idle (or login) timeout until
        its first octet, its rest (and every later line) within the command timeout. A line
        already buffered whole (a pipelined command, or one that arrived while the last
        was served) is read at once, without either."""
        if self._ending is not None and self._next:
            await self._close(self._ending)
        if self._has_line():
            line = await self._rest(ready=True)
        elif self._next:
            wait, reason = self._waiting()
            first = await self._within(wait, self.reader.readexactly(1), reason, self._has(1))
            line = first if first == b"\n" else first + await self._rest(self._has_line())
        else:
            line = await self._rest(ready=False)
        if not line.endswith(b"\n"):
            raise EOFError()
        if self._next:
            self._next = False
            named = _TAG_AND_NAME.match(line)
            if named is not None:
                self._tag, self._command = named.group(1), named.group(2).upper()
                self._append = self._command == b"APPEND"
        await self._count(len(line))
        return line

    async def _rest(self, ready: bool) -> bytes:
        wait, reason = self._reading()
        try:
            return await self._within(wait, self.reader.readline(), reason, ready)
        except ValueError:  # asyncio's StreamReader: longer than its limit
            await self._close(b"Command line longer than %d octets." % LINE_BYTES)

    async def _literal(self, length: int) -> bytes:
        await self._count(length)
        wait, reason = self._reading()
        literal = bytearray()
        while len(literal) < length:
            chunk = min(LITERAL_CHUNK, length - len(literal))
            ready = self._has(chunk)
            literal += await self._within(wait, self.reader.readexactly(chunk), reason, ready)
        return bytes(literal)

    async def _count(self, octets: int) -> None:
        self._size += octets
        limit = self._command_limit()
        if self._size > limit:
            text = b"Command larger than %d octets." % limit
            await self._fail(ResponseBad(self._tag, text, _TOOBIG), text)

    async def _allowed(self, announced: re.Match[bytes]) -> tuple[int, bool]:
        """The length of an announced literal and whether it is non-synchronizing,
        once it is within the limits."""
        digits, non_synchronizing = announced.group(1), announced.group(2) == b"+"
        self._literals += 1
        if self._literals > LITERALS_PER_COMMAND:
            # pymap parses the command again after each `+`: many literals cost n².
            text = b"More than %d literals in one command." % LITERALS_PER_COMMAND
            await self._refuse(ResponseBad(self._tag, text), non_synchronizing)
        length = int(digits) if len(digits) <= _MAX_DIGITS else None
        limit = self.limits.literal_limit(authenticated=self.authenticated, append=self._append)
        if length is None or length > limit:
            response: CommandResponse
            if self._append and self.authenticated:
                text = b"Message larger than the APPENDLIMIT of %d octets." % limit
                response = ResponseNo(self._tag, text, _TOOBIG)  # RFC 7889 §4
            else:
                text = b"Literal larger than %d octets." % limit
                response = ResponseBad(self._tag, text, _TOOBIG)
            await self._refuse(response, non_synchronizing)
        assert length is not None
        command_limit = self._command_limit()
        if self._size + length > command_limit:
            text = b"Command larger than %d octets." % command_limit
            await self._refuse(ResponseBad(self._tag, text, _TOOBIG), non_synchronizing)
        return length, non_synchronizing

    async def _refuse(self, response: CommandResponse, non_synchronizing: bool) -> NoReturn:
        if non_synchronizing:  # its octets are on the way: stop here (RFC 7888 §4)
            await self._fail(response, b"Non-synchronizing literal refused.")
        if not self._in_command:  # a SASL response or IDLE's DONE has no literal
            await self._fail(response, b"Literal refused.")
        raise _Refused(response)  # no `+`, so nothing of it comes: the session goes on

    async def _fail(self, response: CommandResponse, reason: bytes) -> NoReturn:
        await self.write_response(response)
        await self._close(reason)

    def _command_limit(self) -> int:
        return self.limits.command_limit(authenticated=self.authenticated, command=self._command)

    def _waiting(self) -> tuple[float, bytes]:
        """How long a client may be silent before its next command, and what it is told."""
        if self.authenticated:
            seconds = self.limits.idle_timeout
            return seconds, b"Autologout: idle for %g seconds." % seconds
        return self._login_left()

    def _reading(self) -> tuple[float, bytes]:
        """How long the rest of a begun command line may take."""
        seconds = self.limits.command_timeout
        timeout = (seconds, b"Command not completed within %g seconds." % seconds)
        if self.authenticated:
            return timeout
        return min(timeout, self._login_left())

    def _login_left(self) -> tuple[float, bytes]:
        left = self._deadline - asyncio.get_running_loop().time()
        seconds = self.limits.login_timeout
        return max(left, 0.0), b"Not logged in within %g seconds of connecting." % seconds

    async def _within(
        self, seconds: float, read: Awaitable[_T], reason: bytes, ready: bool = False
    ) -> _T:
        """`read` within `seconds`, else `* BYE` with the reason. `ready`: what it reads is
        in the reader's buffer already (a pipelining client's next line), so it completes
        without waiting. The timeout is the connection's one lazily moved timer
        (imap_view/deadline.py), not a timer armed and cancelled per read."""
        if ready:
            return await read
        timer = self._timer
        assert timer is not None
        try:
            return await timer.within(seconds, read)
        except TimeoutError:
            await self._close(self._ending or reason)

    def _has(self, octets: int) -> bool:
        """Whether asyncio's StreamReader holds `octets` already (its `_buffer`)."""
        buffer = getattr(self.reader, "_buffer", None)
        return isinstance(buffer, bytearray) and len(buffer) >= octets

    def _has_line(self) -> bool:
        buffer = getattr(self.reader, "_buffer", None)
        return isinstance(buffer, bytearray) and b"\n" in buffer

    async def _close(self, reason: bytes) -> NoReturn:
        """`* BYE` with the reason (RFC 3501 §7.1.5); the EOFError ends the connection."""
        await self.write_response(ResponseBye(reason))
        self._said_bye = True
        raise EOFError()


# The connection whose task is running: a session it opens is ended through it.
CURRENT_CONNECTION: ContextVar[LimitedConnection] = ContextVar("agentmail_imap_connection")
