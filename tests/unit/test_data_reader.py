"""DATA read in chunks (smtp_in/data_reader.py) gives exactly what aiosmtpd's line reader
gave: the same content for any split of the stream into packets, never a byte past the
end mark, and a refusal where it refused (a long line, too many bytes: when a message has
both, which one is named may differ; both are refusals for good)."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from smtp_in.data_reader import Received, read_data
from tests.support.fuzzing import examples, fuzz_settings

LIMIT = 1001  # aiosmtpd's line_length_limit, and its stream reader's limit
AFTER = b"QUIT\r\n"  # a pipelined command (RFC 2920): it stays in the stream


def _lines_reader(wire: bytes, max_bytes: int | None) -> Received:
    """aiosmtpd's own reading, line by line (aiosmtpd/smtp.py `smtp_DATA`)."""
    lines = wire.split(b"\r\n")
    content, size = [], 0
    for line in lines:
        if line == b".":
            break
        size += len(line) + 2
        if len(line) + 2 > LIMIT:
            return Received(b"", too_long=True)
        if max_bytes and size > max_bytes:
            return Received(b"", too_much=True)
        content.append(line[1:] if line.startswith(b".") else line)
    return Received(b"".join(line + b"\r\n" for line in content))


class _CountingReader(asyncio.StreamReader):
    """A stream reader that counts the reads made of it."""

    reads = 0

    async def readuntil(self, *args: Any, **kwargs: Any) -> bytes:
        self.reads += 1
        return await super().readuntil(*args, **kwargs)

    async def readexactly(self, *args: Any, **kwargs: Any) -> bytes:
        self.reads += 1
        return await super().readexactly(*args, **kwargs)


async def _read(
    wire: bytes, cuts: list[int], max_bytes: int | None, reads: list[int] | None = None
) -> tuple[Received, bytes]:
    reader = _CountingReader(limit=LIMIT)
    stream = wire + AFTER
    points = sorted({c % (len(stream) + 1) for c in cuts} | {0, len(stream)})

    async def feed() -> None:
        for start, end in itertools.pairwise(points):
            reader.feed_data(stream[start:end])
            await asyncio.sleep(0)
        reader.feed_eof()

    feeding = asyncio.create_task(feed())
    received = await read_data(reader, max_bytes, LIMIT)
    await feeding
    if reads is not None:
        reads.append(reader.reads)
    return received, await reader.read()


_line = st.one_of(
    st.sampled_from([b"", b".", b"..", b".x", b"\r", b"a\r", b"x" * 999, b"x" * 1000, b"\n."]),
    st.binary(max_size=40).map(lambda b: b.replace(b"\r\n", b"")),
)
_message = st.lists(_line, max_size=30).map(lambda lines: b"".join(x + b"\r\n" for x in lines))


@fuzz_settings(examples(300))
@given(_message, st.lists(st.integers(0, 4000), max_size=8), st.sampled_from([None, 200]))
def test_any_split_reads_what_the_line_reader_read(
    message: bytes, cuts: list[int], max_bytes: int | None
) -> None:
    # What a client sends: dot-stuffed lines (RFC 5321 §4.5.2) and the end mark.
    lines = message.split(b"\r\n")[:-1]
    wire = b"".join((b"." if x.startswith(b".") else b"") + x + b"\r\n" for x in lines) + b".\r\n"
    received, rest = asyncio.run(_read(wire, cuts, max_bytes))
    assert rest == AFTER
    expected = _lines_reader(wire, max_bytes)
    if expected.too_long or expected.too_much:
        assert (received.too_long or received.too_much) and received.content == b""
    else:
        assert received == expected and received.content == message


def test_many_short_lines_are_read_in_few_steps() -> None:
    """500,000 lines arriving in 64 KiB packets: a few reads a packet, not one a line."""
    wire = b"a=\r\n" * 500_000 + b".\r\n"
    reads: list[int] = []
    received, rest = asyncio.run(_read(wire, list(range(0, len(wire), 65536)), None, reads))
    assert received.content == b"a=\r\n" * 500_000 and rest == AFTER
    packets = len(wire) // 65536 + 1
    assert reads[0] <= 4 * packets, (reads, packets)
