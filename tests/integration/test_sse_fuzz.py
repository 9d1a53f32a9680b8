"""`Last-Event-ID` fuzzed: any value is a clear 422 or a stream, never a 500.

The header comes from browsers and bridges that may have seen another database
(or nothing sane): a value that is not an event id is refused with 422, and an
id that was never given out (from the future) gets `resync` first, as a pruned
one does. The cases replay what used to fail: `²` (str.isdigit() took it, int()
did not: 500) and ids past 64 bits (a driver overflow: 500).
"""

from __future__ import annotations

import functools

import httpx
import pytest
from hypothesis import strategies as st

from api.paging import MAX_EVENT_ID
from tests.support.fuzzing import drawn, examples
from tests.support.gateway import Api

pytestmark = pytest.mark.fuzz

STREAM = "/api/v1/events/stream"
REFUSED = [b"\xb2", b"\xd9\xa1", b"abc", b"-1", b"1.5", b"1e3", b"0x10", b"+5", b"9" * 30,
           str(MAX_EVENT_ID + 1).encode(), b"\xff" * 100, b"1 2"]  # fmt: skip
FROM_THE_FUTURE = [str(MAX_EVENT_ID).encode(), b"1000000", b"77777"]


def _has_control(value: bytes) -> bool:
    return any((byte < 0x20 and byte != 0x09) or byte == 0x7F for byte in value)


async def _first_event(client: httpx.AsyncClient, value: bytes) -> tuple[int, str | None]:
    """The status, and for a stream the first thing it says (`resync` or `connected`)."""
    async with client.stream("GET", STREAM, headers={"Last-Event-ID": value}) as response:
        if response.status_code != 200:
            await response.aread()
            if response.status_code == 400 and _has_control(value):
                return 400, None  # uvicorn's HTTP parser refused the request line itself
            body = response.json()
            assert body["error"]["code"] == "invalid_request", body
            return response.status_code, None
        async for line in response.aiter_lines():
            if line.startswith("event:"):
                return 200, line.partition(":")[2].strip()
            if line.startswith(":"):
                return 200, line[1:].strip()
    raise AssertionError("the stream ended before saying anything")


# Header values as they travel: latin-1 text without control characters (h11 refuses them).
_header_text = st.one_of(
    st.text(st.characters(min_codepoint=0x20, max_codepoint=0xFF, exclude_characters="\x7f")).map(
        lambda t: t.encode("latin-1")
    ),
    st.integers(-(2**70), 2**70).map(lambda n: str(n).encode()),
    st.text("0123456789\u00b2\u00b3\u00b9\u0661\u0662 .,+-eE", max_size=25).map(str.encode),
).filter(lambda b: b.strip(b" \t") == b)


@functools.cache
def header_values(count: int) -> list[bytes]:
    return drawn(_header_text, count)


async def test_last_event_id_is_a_422_or_a_stream(api: Api) -> None:
    """The known cases, then the fuzzed ones (one gateway for both: fewer starts)."""
    agent = await api.agent("builder")
    for value in REFUSED:
        assert await _first_event(agent, value) == (422, None), value
    for value in FROM_THE_FUTURE:
        assert await _first_event(agent, value) == (200, "resync"), value
    assert await _first_event(agent, b"0") == (200, "connected")
    assert (await agent.get(STREAM, params={"after": str(MAX_EVENT_ID + 1)})).status_code == 422
    for value in header_values(examples(200)):
        status, first = await _first_event(agent, value)
        assert status in (200, 422) or (status == 400 and _has_control(value)), (value, status)
        assert status != 200 or first in ("resync", "connected"), (value, first)
