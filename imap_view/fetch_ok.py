"""A FETCH's tagged `OK` and its untagged lines: merged as pymap merges them, and written
in chunks that give the event loop its turns.

Every IMAP session, the HTTP API, SMTP and IDLE pushes share one event loop, and a
response is written by a coroutine that awaits nothing while each message's line is
formatted from what the command loaded. A listing of a thousand messages held the loop
for its whole length (IDLE pushes waited behind it: p99 670 ms). So after every `CHUNK`
lines the writer's `pause` is awaited (imap_view/connection.py): what is written so far
goes to the transport, a slow client's backlog is drained, and the other tasks of the
loop run before the next chunk is formatted.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Final

from pymap.bytes import WriteStream
from pymap.parsing.response import CommandResponse, ResponseOk, UntaggedResponse
from pymap.parsing.response.specials import FetchResponse

from imap_view.fetch_lines import FetchLine
from imap_view.pymap_compat import forget_rendered, mergeable, untagged

__all__ = ["CHUNK", "FetchOk"]

CHUNK: Final = 64  # lines formatted between two turns of the loop


class FetchOk(ResponseOk):
    """A FETCH's `OK`, whose `FetchLine`s merge with the `FETCH` responses the
    command's untagged updates add for the same message, as pymap's would (pymap keys
    a merge by the response's type, so a `FetchLine` is filed as a `FetchResponse`)."""

    def add_untagged(self, *responses: UntaggedResponse) -> None:
        for response in responses:
            if not isinstance(response, FetchLine | FetchResponse):
                super().add_untagged(response)
                continue
            key = (FetchResponse, response.seq)
            lines, table = untagged(self), mergeable(self)
            index = table.get(key)
            if index is None:
                table[key] = len(lines)
                lines.append(response)
                continue
            kept = lines[index]
            if isinstance(response, FetchLine):
                response = response.as_fetch_response()
            assert isinstance(kept, FetchLine | FetchResponse)
            lines[index] = kept.merge(response)
        forget_rendered(self)

    def add_lines(self, lines: list[FetchLine]) -> None:
        """The command's own lines, one per message (no two of the same message, none
        yet of the updates, which come after): appended, and filed for the merges."""
        if untagged(self):
            self.add_untagged(*lines)
            return
        untagged(self).extend(lines)
        table = mergeable(self)
        for index, line in enumerate(lines):
            table[(FetchResponse, line.seq)] = index
        forget_rendered(self)

    @property
    def is_terminal(self) -> bool:
        """pymap asks every untagged line; a FETCH line never ends the session."""
        return any(line.is_terminal for line in untagged(self) if not isinstance(line, FetchLine))

    async def async_write(self, writer: WriteStream) -> None:
        """pymap's (each untagged line, then the tagged one), pausing every `CHUNK`."""
        pause: Callable[[], Awaitable[None]] | None = getattr(writer, "pause", None)
        for number, line in enumerate(untagged(self), 1):
            await line.async_write(writer)
            if pause is not None and number % CHUNK == 0:
                await pause()
        super(CommandResponse, self).write(writer)
