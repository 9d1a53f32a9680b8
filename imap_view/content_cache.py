"""Message contents shared by every IMAP session of the process: parsed, and the bytes
they were parsed from.

A parsed mail holds many times its length (`memory_of`), so a folder of a thousand
mails does not fit the default budget parsed, and a client that reads them in order
(mbsync's pull, one `UID FETCH n (BODY.PEEK[])` each) would find none of them cached:
each loaded from the store and rendered again, rendering being most of that. So a
quarter of the budget keeps the rendered bytes, counted by their size, apart from the
parsed contents: a mail whose parsed content was evicted is parsed again from its
bytes, neither read nor rendered.
"""

from __future__ import annotations

import gc
import sys
from collections import OrderedDict
from collections.abc import Hashable
from types import FunctionType, ModuleType

from pymap.mime import MessageContent

__all__ = ["ContentCache", "memory_of"]

_NOT_OWNED = (type, ModuleType, FunctionType)  # shared by every object: not the content's


def memory_of(content: MessageContent) -> int:
    """The bytes a parsed content holds: every object reachable from it.

    A parsed message costs about twice its length plus ~20 KiB of header and part
    objects (a 2.4 KB mail takes 23 KB), so counting its length, as this cache
    once did, let a "64 MiB" cache grow to ~640 MB: the RSS an outside soak saw
    climb (107 → 168 → 196 MB in ten minutes, and on). Measured in the worker
    thread that parses it, for about half the cost of the parse.
    """
    seen: set[int] = set()
    pending: list[object] = [content]
    total = 0
    while pending:
        item = pending.pop()
        if id(item) in seen or isinstance(item, _NOT_OWNED):
            continue
        seen.add(id(item))
        total += sys.getsizeof(item)
        pending.extend(gc.get_referents(item))
    return total


class ContentCache:
    """Parsed message contents shared by every IMAP session of the process, by what
    they were made from (`content_key`), least recently used first out, holding at
    most `max_bytes` of memory (as `memory_of` counts it): three quarters for parsed
    contents, a quarter for the bytes they were parsed from (the module doc).

    Rendering and parsing cost milliseconds per mail; clients re-read the same
    mails often (a listing, then the message; every device of a human).
    """

    def __init__(self, max_bytes: int = 64 * 1024 * 1024) -> None:
        self.max_bytes = max_bytes
        self.raw_max_bytes = max_bytes // 4
        self._items: OrderedDict[Hashable, tuple[MessageContent, int]] = OrderedDict()
        self._bytes = 0
        self._raw: OrderedDict[Hashable, bytes] = OrderedDict()
        self._raw_bytes = 0

    @property
    def held_bytes(self) -> int:
        return self._bytes + self._raw_bytes

    def get(self, key: Hashable) -> MessageContent | None:
        item = self._items.get(key)
        if item is None:
            return None
        self._items.move_to_end(key)
        return item[0]

    def get_raw(self, key: Hashable) -> bytes | None:
        """The bytes a content of this key was parsed from, if still kept."""
        raw = self._raw.get(key)
        if raw is not None:
            self._raw.move_to_end(key)
        return raw

    def put(self, key: Hashable, content: MessageContent, size: int, raw: bytes = b"") -> None:
        """Keep `content`, which holds `size` bytes (`memory_of`), and the bytes it was
        parsed from (`raw`, if given), evicting the oldest of each."""
        if raw:
            self.put_raw(key, raw)
        if key in self._items:
            return
        self._items[key] = (content, size)
        self._bytes += size
        limit = self.max_bytes - self.raw_max_bytes
        while self._bytes > limit and self._items:  # one too large is not kept
            _, (_, evicted) = self._items.popitem(last=False)
            self._bytes -= evicted

    def put_raw(self, key: Hashable, raw: bytes) -> None:
        """Keep the bytes of a content (unparsed), evicting the oldest bytes."""
        if key in self._raw:
            return
        self._raw[key] = raw
        self._raw_bytes += sys.getsizeof(raw)
        while self._raw_bytes > self.raw_max_bytes and self._raw:
            _, evicted = self._raw.popitem(last=False)
            self._raw_bytes -= sys.getsizeof(evicted)
