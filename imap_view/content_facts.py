"""What SEARCH asks of a parsed message, worked out once per content.

A SEARCH reads every message of the folder, and clients search again and again
(imaptest's stress mix: a search every few commands of each session). pymap worked
each answer out anew: `LARGER`/`SMALLER` made the message's bytes to count them,
`TEXT`/`BODY` made the bytes of every part's header and text body before matching,
`SENTSINCE` built the envelope to read its date. The content is shared by the
process's sessions (imap_view/content_cache.py) and never changes, so these are
kept beside it, weakly: they go when the cache lets the content go. The searched
texts are kept only for a message under `MAX_TEXT_BYTES` (they copy its bytes).
"""

from __future__ import annotations

from typing import Final
from weakref import WeakKeyDictionary

from pymap.mime import MessageContent

__all__ = ["MAX_TEXT_BYTES", "searched_texts", "size_of"]

MAX_TEXT_BYTES: Final = 256 * 1024

_SIZES: WeakKeyDictionary[MessageContent, int] = WeakKeyDictionary()
_TEXTS: WeakKeyDictionary[MessageContent, tuple[bytes, ...]] = WeakKeyDictionary()


def size_of(content: MessageContent) -> int:
    """`len(content)`: RFC822.SIZE, SEARCH LARGER and SMALLER (pymap's counts its bytes
    made anew)."""
    size = _SIZES.get(content)
    if size is None:
        size = _SIZES[content] = len(content)
    return size


def _texts(content: MessageContent) -> tuple[bytes, ...]:
    """What pymap's `contains` searches, in its order: each part's header, and its
    body when the part is text; lower-cased (ASCII only, as `bytes.lower`): pymap
    matches with `re.I` on bytes, which folds ASCII letters alone."""
    texts: list[bytes] = []
    for part in content.walk():
        texts.append(bytes(part.header).lower())
        if part.body.content_type.maintype == "text":
            texts.append(bytes(part.body).lower())
    return tuple(texts)


def searched_texts(content: MessageContent) -> tuple[bytes, ...]:
    """`_texts`, kept for a message under `MAX_TEXT_BYTES`."""
    texts = _TEXTS.get(content)
    if texts is None:
        texts = _texts(content)
        if size_of(content) <= MAX_TEXT_BYTES:
            _TEXTS[content] = texts
    return texts
