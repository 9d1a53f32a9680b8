"""The `FETCH` lines a command sends of flags: a STORE's answer, and the changes other
sessions made (imap_view/selected.py), formatted when made and written at once.

pymap writes a `FetchResponse` value by value (a `BytesFormat` per value, a write per
item and per space) inside an async context manager made for every line, and builds
a `List` per message to sort its flags: with five sessions storing flags on a dozen
messages at a time, every command of every session carried a dozen such lines, and
writing them was a fifth of the CPU of an imaptest run of STOREs. Here a value is its
bytes (`FLAGS (…)` kept per flag set, imap_view/fetch_lines.py), and a line one write:
the same bytes as pymap's (RFC 3501 §7.4.2), merged the same way.
"""

from __future__ import annotations

from collections.abc import Iterable

from pymap.bytes import WriteStream
from pymap.parsing.response.specials import FetchResponse
from pymap.parsing.specials import FetchAttribute, FetchValue
from pymap.parsing.specials.flag import Flag

from imap_view.fetch_lines import flag_list

__all__ = ["FixedAttribute", "ReadyFetch", "ReadyValue", "flags_value", "uid_value"]


class FixedAttribute(FetchAttribute):
    """FLAGS, UID, MODSEQ: an attribute whose hash is worked out once. pymap's is a
    tuple's hash made anew each time, and a line's values are a dictionary by
    attribute, compared (by hash) at every merge."""

    def __init__(self, name: bytes) -> None:
        super().__init__(name)
        self.fixed_hash = super().__hash__()

    def __hash__(self) -> int:
        return self.fixed_hash


_FLAGS = FixedAttribute(b"FLAGS")
_UID = FixedAttribute(b"UID")


class ReadyValue(FetchValue):
    """A FETCH value as its bytes (`NAME value`)."""

    __slots__ = ["_data"]

    def __init__(self, attribute: FetchAttribute, data: bytes) -> None:
        super().__init__(attribute)
        self._data = data

    def __bytes__(self) -> bytes:
        return self._data


def flags_value(flags: frozenset[Flag]) -> ReadyValue:
    """pymap's `FetchValue.of(FLAGS, List(flags, sort=True))`."""
    return ReadyValue(_FLAGS, b"FLAGS " + flag_list(flags))


def uid_value(uid: int) -> ReadyValue:
    return ReadyValue(_UID, b"UID %d" % uid)


class ReadyFetch(FetchResponse):
    """pymap's `FetchResponse`, written in one piece."""

    def __init__(self, seq: int, data: Iterable[FetchValue], **kwargs: object) -> None:
        super().__init__(seq, data, **kwargs)  # type: ignore[arg-type]

    def write(self, writer: WriteStream) -> None:
        values = b" ".join([bytes(value) for value in self.data.values()])
        writer.write(b"* %d FETCH (%b)\r\n" % (self.seq, values))

    async def async_write(self, writer: WriteStream) -> None:
        if self.writing_hook is None:  # nothing to load: no context manager made
            self.write(writer)
        else:
            await super().async_write(writer)

    def merge(self, other: FetchResponse) -> ReadyFetch:
        """pymap's merge: the values of both, the other's winning."""
        if self.seq != other.seq:
            raise ValueError(other)
        return ReadyFetch(
            self.seq,
            (self.data | other.data).values(),
            writing_hook=other.writing_hook or self.writing_hook,
        )
