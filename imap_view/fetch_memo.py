"""A FETCH item read from a message's content, formatted once per content.

Clients fetch the same items of the same messages again and again: a listing's
header fields on every sync, a message's text each time it is opened, and every
session of the human does the same (imaptest's stress mix: pymap's values were a
fifth of its CPU). The content a FETCH reads is shared by the process's sessions
(imap_view/content_cache.py: a parsed content per mail; imap_view/kept_contents.py:
a kept summary), and an item's bytes depend on that content, the item (its section
and partial range) and UTF8=ACCEPT alone. So the bytes are kept beside the content,
weakly: they go when the cache lets the content go. Bounded per content (`MAX_ITEMS`
items of at most `MAX_BYTES` each): a message fetched whole is written as it is
stored (imap_view/fetch_lines.py), never kept twice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final
from weakref import WeakKeyDictionary

from pymap.interfaces.message import LoadedMessageInterface, MessageInterface
from pymap.parsing.specials import FetchAttribute
from pymap.selected import SelectedMailbox

from imap_view.message import KeptLoaded, LoadedMessage
from imap_view.pymap_compat import loaded_content

__all__ = ["MAX_BYTES", "MAX_ITEMS", "remembered"]

Loaded = LoadedMessageInterface | None
Render = Callable[[MessageInterface, SelectedMailbox, Loaded], bytes]

MAX_ITEMS: Final = 16  # items kept per content; past it, the oldest goes
MAX_BYTES: Final = 64 * 1024  # an item's bytes past this are formatted each time

_KEPT: WeakKeyDictionary[object, dict[tuple[bytes, bool], bytes]] = WeakKeyDictionary()


def _source(loaded: Loaded) -> tuple[object, bool] | None:
    """What the item's bytes are made from (the object they live beside), and
    whether they are UTF-8 (RFC 6855); None when there is nothing shared to keep
    them by (a message loaded as its bytes alone, or without its content)."""
    if isinstance(loaded, KeptLoaded):
        return loaded.kept, loaded.utf8_kept
    if isinstance(loaded, LoadedMessage):
        content = loaded_content(loaded)
        return (content, loaded.utf8) if content is not None else None
    return None


def remembered(attribute: FetchAttribute, render: Render) -> Render:
    """`render` of an item that reads the content alone, its bytes kept per content."""
    name = bytes(attribute)  # its key: pymap hashes an attribute anew each time
    keys = ((name, False), (name, True))

    def render_once(message: MessageInterface, selected: SelectedMailbox, loaded: Loaded) -> bytes:
        source = _source(loaded)
        if source is None:
            return render(message, selected, loaded)
        owner, utf8 = source
        items = _KEPT.get(owner)
        if items is None:
            items = _KEPT[owner] = {}
        key = keys[utf8]
        data = items.get(key)
        if data is None:
            data = render(message, selected, loaded)
            if len(data) <= MAX_BYTES:
                if len(items) >= MAX_ITEMS:
                    del items[next(iter(items))]
                items[key] = data
        return data

    return render_once
