"""Parsed message contents shared by every IMAP session of the process."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable

from pymap.mime import MessageContent

__all__ = ["ContentCache"]


class ContentCache:
    """Parsed message contents shared by every IMAP session of the process, by what
    they were made from (`content_key`), least recently used first out.

    Rendering and parsing cost milliseconds per mail; clients re-read the same
    mails often (a listing, then the message; every device of a human).
    """

    def __init__(self, max_bytes: int = 64 * 1024 * 1024) -> None:
        self.max_bytes = max_bytes
        self._items: OrderedDict[Hashable, MessageContent] = OrderedDict()
        self._bytes = 0

    def get(self, key: Hashable) -> MessageContent | None:
        content = self._items.get(key)
        if content is not None:
            self._items.move_to_end(key)
        return content

    def put(self, key: Hashable, content: MessageContent) -> None:
        if key in self._items:
            return
        self._items[key] = content
        self._bytes += len(content)
        while self._bytes > self.max_bytes and len(self._items) > 1:
            _, evicted = self._items.popitem(last=False)
            self._bytes -= len(evicted)
