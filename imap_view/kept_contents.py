"""A FETCH's messages as their kept summaries: found in the process, read from the store,
or made now from the bytes for a mail that has none yet.

A listing (`FETCH 1:* (FLAGS ENVELOPE BODYSTRUCTURE)`, `BODY.PEEK[HEADER.FIELDS (…)]`)
needs no message bytes once each message's summary is kept (core/mime/kept.py,
core/rendering/kept.py). Summaries are kept in the process as `KeptMessage`s by content
key, so a folder listed again reads nothing; the others come in one query. A mail with
nothing kept for its content (stored before the structures existed and not yet
backfilled, or a rendering whose alias or permission state changed) is loaded,
rendered if need be, and its structure made in a worker thread, a few mails at a time
so the event loop gets its turns; the structure is handed to the backfill's queue to be
written (core/rendering/backfill.py). The answers are the same either way: the summary
is made by the same function from the same bytes.
"""

from __future__ import annotations

import asyncio
import sys
from collections import OrderedDict
from collections.abc import Hashable, Mapping
from typing import TYPE_CHECKING, Final

from core.metrics import IMAP_KEPT_MADE, IMAP_KEPT_READS
from core.rendering.batch import load_many
from core.rendering.kept import kept_summaries, made_structures
from core.rendering.stored import RenderInputs
from imap_view.kept_fetch import KeptMessage

if TYPE_CHECKING:  # the backend holds the cache
    from imap_view.backend import Backend

__all__ = ["MADE_AT_ONCE", "KeptCache", "load_kept"]

# Mails made in one worker-thread hop (each a few ms): the loop runs between hops.
MADE_AT_ONCE: Final = 16
# A single mail this small is made on the loop (a few milliseconds): a worker thread
# holding the GIL slows every loop turn meanwhile by up to the switch interval (5 ms).
INLINE_BYTES: Final = 16 * 1024


class KeptCache:
    """`KeptMessage`s by content key, least recently used out, at most `max_bytes` (each
    counted as its JSON and its formatted items, about twice the JSON)."""

    def __init__(self, max_bytes: int = 16 * 1024 * 1024) -> None:
        self.max_bytes = max_bytes
        self._items: OrderedDict[Hashable, KeptMessage] = OrderedDict()
        self._bytes = 0

    def get(self, key: Hashable) -> KeptMessage | None:
        found = self._items.get(key)
        if found is not None:
            self._items.move_to_end(key)
        return found

    def put(self, key: Hashable, message: KeptMessage) -> None:
        if key in self._items:
            return
        self._items[key] = message
        self._bytes += _memory(message)
        while self._bytes > self.max_bytes and self._items:
            _, evicted = self._items.popitem(last=False)
            self._bytes -= _memory(evicted)


def _memory(message: KeptMessage) -> int:
    return 2 * sys.getsizeof(message.text) + 256


async def load_kept(
    backend: Backend, keys: Mapping[int, tuple[object, ...]], out: dict[int, KeptMessage]
) -> list[int]:
    """Put each mail's `KeptMessage` in `out`; returns the mails to be parsed instead
    (kept without a summary: a header the email package cannot read)."""
    cache = backend.kept
    missing = []
    for seq, key in keys.items():
        found = cache.get(key)
        if found is None:
            missing.append(seq)
        else:
            out[seq] = found
    if not missing:
        return []
    wanted = {seq: keys[seq] for seq in missing}
    read = await backend.store.read(lambda session: kept_summaries(session, wanted))
    IMAP_KEPT_READS.inc(len(read))
    parsed = [seq for seq, text in read.items() if text is None]
    for seq, text in read.items():
        if text is not None:
            out[seq] = KeptMessage(text)
            cache.put(keys[seq], out[seq])
    unfilled = [seq for seq in missing if seq not in read]
    for start in range(0, len(unfilled), MADE_AT_ONCE):
        parsed += await _made(backend, unfilled[start : start + MADE_AT_ONCE], keys, out)
    return parsed


def _small(loaded: Mapping[int, bytes | RenderInputs]) -> bool:
    """One mail of a few KB with no attachment to read from disk: made on the loop."""
    if len(loaded) != 1:
        return False
    [item] = loaded.values()
    if isinstance(item, bytes):
        return len(item) <= INLINE_BYTES
    return not item.attachments and len(item.mail.body) <= INLINE_BYTES // 4


async def _made(
    backend: Backend,
    seqs: list[int],
    keys: Mapping[int, tuple[object, ...]],
    out: dict[int, KeptMessage],
) -> list[int]:
    shas: dict[int, str] = {}
    loaded = await backend.store.read(lambda session: load_many(session, seqs, None, shas))
    blobs, domain = backend.blobs, backend.domain
    if _small(loaded):  # a hop to a worker thread costs the loop more than this work
        made = made_structures(loaded, shas, blobs, domain)
    else:
        made = await asyncio.to_thread(made_structures, loaded, shas, blobs, domain)
    IMAP_KEPT_MADE.inc(len(made))
    parsed = []
    for seq, (_, write) in made.items():
        if backend.kept_writes is not None:
            backend.kept_writes.add(write)
        summary = write.kept.summary
        if summary is None:
            parsed.append(seq)
            continue
        out[seq] = KeptMessage(summary)
        backend.kept.put(keys[seq], out[seq])
    return parsed
