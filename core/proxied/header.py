"""A PROXY protocol header read off a socket within its bounds, and not one octet more.

HAProxy's specification (doc/proxy-protocol.txt) gives v1 a line of at most 107 octets
(§2.1) and v2 16 octets and then the length they announce, up to 65,535 (§2.2). The
`proxy-protocol` library parses both (`ProxyProtocolDetect`), but its own reader reads a
v1 line as far as the stream's limit and believes any v2 length, so the reading is
done here, step by step, by what the parser asks for: a v1 header stops at 107 octets,
a v2 header at `V2_MAX_BODY` octets of addresses and TLVs after its 16 (HAProxy's
own sends a few hundred at most, with a client certificate's names). The caller bounds
the time (core/proxied/listener.py).

Nothing past the header is read: what follows (a TLS ClientHello, a client's command) is
left in the socket for the listener's protocol. A v1 line is peeked at (MSG_PEEK) to
find its end; a v2 header's length is known from its fixed part.
"""

from __future__ import annotations

import asyncio
import functools
import socket
from collections.abc import Callable
from typing import TypeVar

from proxyprotocol import ProxyProtocolIncompleteError
from proxyprotocol.detect import ProxyProtocolDetect
from proxyprotocol.result import ProxyResult

__all__ = ["V1_MAX", "V2_MAX_BODY", "HeaderParser", "HeaderRefused", "read_header"]

V1_MAX = 107  # §2.1: "PROXY UNKNOWN" with two IPv6 addresses and ports, and CRLF
V2_FIXED = 16  # §2.2: signature, version and command, family, length
V2_MAX_BODY = 4096  # addresses (216 octets at most, AF_UNIX) and TLVs
_V2_SIGNATURE = b"\r\n\r\n\x00\r\nQUIT\n"
_DETECT = ProxyProtocolDetect()
_T = TypeVar("_T")


class HeaderRefused(Exception):
    """Not a PROXY header within the bounds (the message says why, for the log)."""


class HeaderParser:
    """The octets of a header so far; `step` says what to read next, or the result."""

    __slots__ = ["_data"]

    def __init__(self) -> None:
        self._data = bytearray()

    def feed(self, octets: bytes) -> None:
        self._data += octets

    def step(self) -> ProxyResult | tuple[int, bool]:
        """The result when the header is whole; else (at most how many octets to read,
        whether to stop after a line feed). `HeaderRefused` when it cannot be one."""
        data = bytes(self._data)
        try:
            return _DETECT.unpack(data)
        except ProxyProtocolIncompleteError as incomplete:
            want = incomplete.want_read
        except Exception as error:  # the library's parse of hostile octets, whatever fails
            raise HeaderRefused(f"not a PROXY header ({type(error).__name__})") from error
        if want.want_bytes is not None:
            most = V2_FIXED + V2_MAX_BODY if data.startswith(_V2_SIGNATURE) else V1_MAX
            if len(data) + want.want_bytes > most:
                raise HeaderRefused(f"a PROXY header longer than {most} octets")
            return want.want_bytes, False
        left = V1_MAX - len(data)
        if left <= 0:
            raise HeaderRefused(f"a PROXY v1 line longer than {V1_MAX} octets")
        return left, True


async def read_header(sock: socket.socket) -> ProxyResult:
    """The header at the start of `sock` (connected, non-blocking). `HeaderRefused` when
    there is none, `OSError` when the connection fails; the caller bounds the time."""
    parser = HeaderParser()
    while not isinstance(step := parser.step(), ProxyResult):
        most, to_line_end = step
        if to_line_end:
            seen = await _when_readable(sock, functools.partial(sock.recv, most, socket.MSG_PEEK))
            end = seen.find(b"\n")
            most = end + 1 if end >= 0 else max(len(seen), 1)
        octets = await _when_readable(sock, functools.partial(sock.recv, most))
        if not octets:
            raise HeaderRefused("closed before its PROXY header ended")
        parser.feed(octets)
    return step


async def _when_readable(sock: socket.socket, read: Callable[[], _T]) -> _T:
    """`read()` at once if the socket has data, else once it has some."""
    while True:
        try:
            return read()
        except (BlockingIOError, InterruptedError):
            await _readable(sock)


async def _readable(sock: socket.socket) -> None:
    loop = asyncio.get_running_loop()
    ready = loop.create_future()

    def wake() -> None:
        if not ready.done():
            ready.set_result(None)

    fd = sock.fileno()
    loop.add_reader(fd, wake)
    try:
        await ready
    finally:
        loop.remove_reader(fd)
