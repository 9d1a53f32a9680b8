"""DATA's bytes, read in chunks up to the end mark (RFC 5321 §4.1.1.4, §4.5.2).

aiosmtpd reads DATA a line at a time on the loop, and keeps each line as an object
until the end: 18 MB of 3-byte lines (quoted-printable soft breaks) cost millions of
awaits on the loop and a gigabyte of memory. Here the stream is read in the chunks
it arrives in: `readuntil` of the end mark `CRLF . CRLF`, and when the reader's
limit is passed first, the bytes it scanned. Nothing past the end mark is read, so
commands a client pipelines after DATA (RFC 2920) stay in the stream for the
command loop. The reply states match aiosmtpd's: a line over the limit
(RFC 5321 §4.5.3.1.6) or a message over the size limit (RFC 1870) is read to its
end, kept nowhere, and refused after it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from smtp_in.aiosmtpd_compat import CompatSMTP

__all__ = ["Received", "read_data", "receive_data"]

END = b"\r\n.\r\n"
_EMPTY = b".\r\n"  # the end mark on the first line: an empty message


@dataclass(frozen=True, slots=True)
class Received:
    content: bytes  # with the transparency dots removed (§4.5.2); empty when refused
    too_long: bool = False  # a line over the limit
    too_much: bool = False  # more bytes than the size limit


class _Collector:
    """The message as it arrives: its bytes (until a limit is passed), its size and
    the unfinished last line, for the line-length rule."""

    def __init__(self, max_bytes: int | None, max_line: int) -> None:
        self.data = bytearray()
        self.size = 0
        self.max_bytes = max_bytes
        self.max_line = max_line
        self.too_long = False
        self.too_much = False
        self._line = b""  # the bytes after the last CRLF
        self.recent = b""  # the last bytes read: where an end mark may have begun

    def take(self, piece: bytes) -> None:
        self.size += len(piece)
        self.recent = (self.recent + piece[-len(END) :])[-len(END) :]
        if self.max_bytes and self.size - len(_EMPTY) > self.max_bytes:
            self.too_much = True
        if not self.too_long and not self.too_much:
            self._check_lines(piece)
        if self.too_long or self.too_much:
            self.data = bytearray()  # kept nowhere: nothing of it is stored
            return
        self.data += piece

    def _check_lines(self, piece: bytes) -> None:
        """A line (with its CRLF) over `max_line` octets, as aiosmtpd counts it. The
        split of one chunk (a few hundred KB at most) is gone before the next."""
        lines = (self._line + piece).split(b"\r\n")
        self._line = lines.pop()
        longest = max(map(len, lines), default=0)
        # The unfinished line, its CR maybe the first half of its CRLF.
        started = len(self._line) - self._line.endswith(b"\r")
        if max(longest, started) + 2 > self.max_line:
            self.too_long = True

    def pending(self) -> int:
        """How many bytes of an end mark the last bytes read could be the start of."""
        for size in range(len(END) - 1, 0, -1):
            if self.recent.endswith(END[:size]):
                return size
        return 0


async def read_data(reader: asyncio.StreamReader, max_bytes: int | None, max_line: int) -> Received:
    """The message after `354`, up to and without the end mark."""
    collector = _Collector(max_bytes, max_line)
    first = await reader.readexactly(len(_EMPTY))  # every DATA ends with at least these
    if first == _EMPTY:
        return Received(b"")
    collector.take(first)
    # Only the first bytes can hold the start of an end mark not yet searched for: the
    # reader's own search covers every other (after an overrun it keeps the last
    # bytes, which could begin one). Past them, a byte at a time, till the end mark
    # is complete or can no longer start in what was read: never a byte past it.
    unsearched = True
    while not collector.recent.endswith(END):
        if unsearched and collector.pending():
            collector.take(await reader.readexactly(1))
            continue
        unsearched = False
        try:
            collector.take(await reader.readuntil(END))
        except asyncio.LimitOverrunError as over:
            # No end mark in the bytes scanned (or one past the limit): take those.
            collector.take(await reader.readexactly(over.consumed))
    if collector.too_long or collector.too_much:
        return Received(b"", collector.too_long, collector.too_much and not collector.too_long)
    content = bytes(memoryview(collector.data)[: -len(_EMPTY)])  # one copy, not two
    collector.data = bytearray()
    # §4.5.2: a line that starts with a period had one added by the client.
    if content.startswith(b"."):
        content = content[1:]
    return Received(content.replace(b"\r\n.", b"\r\n"))


async def receive_data(server: CompatSMTP, arg: str) -> None:
    """aiosmtpd's `smtp_DATA` with the message read by `read_data`: the same checks and
    replies in the same order, the handler's DATA hook, then a new envelope."""
    if await server.check_helo_needed() or await server.check_auth_needed("DATA"):
        return
    assert server.envelope is not None
    if not server.envelope.rcpt_tos:
        await server.push("503 Error: need RCPT command")
        return
    if arg:
        await server.push("501 Syntax: DATA")
        return
    await server.push("354 End data with <CR><LF>.<CR><LF>")
    received = await read_data(server.reader, server.data_size_limit, server.line_length_limit)
    if received.too_long or received.too_much:
        server.envelope = server.new_envelope()
        # aiosmtpd's own replies (the server's `push` gives them their codes).
        too_long = "500 Line too long (see RFC5321 4.5.3.1.6)"
        await server.push(too_long if received.too_long else "552 Error: Too much mail data")
        return
    server.envelope.content = server.envelope.original_content = received.content
    status = await server.run_hook("DATA")
    server.envelope = server.new_envelope()
    await server.push(status)
