"""The keys SORT and THREAD order a session's messages by, loaded in bounded chunks.

The messages a SORT or THREAD found (by the same search as SEARCH) are read CHUNK at
a time: one store read gives their INTERNALDATE, an original's size and what their keys
depend on; a second, only for the keys the process does not hold yet, an original's
header section or a rendering's fields from its columns (core/rendering/sort_rows.py).
They are parsed in a worker thread (imap_view/sort_keys.py) and kept
(`Backend.sort_keys`), so neither the reads nor the parsing hold the event loop for
more than a chunk, and at most a chunk of header bytes is in memory.

Measured on 1,000 messages (docs/performance.md, "SORT and THREAD"): an original's
keys cost about 0.15 ms of CPU to parse, a rendering's about as much to make from its
columns (rendering its header would cost ten times that), once per process. Only SIZE
of a rendering needs the rendering itself, the same one FETCH RFC822.SIZE makes and
the content cache keeps (imap_view/contents.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Final

from core.rendering.sort_rows import RenderedFields, sort_rows, sort_sources
from imap_view.backend import Backend
from imap_view.contents import Contents
from imap_view.message import Message
from imap_view.sort_keys import HeaderKeys, keys_of_fields, keys_of_header
from imap_view.sort_order import Sortable

__all__ = ["CHUNK", "sortables"]

CHUNK: Final = 2_000  # messages per store read, parse and rendering batch
_NOTHING = HeaderKeys(None, "", False, "", "", "", None, ())  # a message gone meanwhile


def _parsed(sources: dict[int, bytes | RenderedFields]) -> dict[int, HeaderKeys]:
    """The keys of header sections and renderings' fields (a worker thread)."""
    return {
        seq: keys_of_header(source) if isinstance(source, bytes) else keys_of_fields(source)
        for seq, source in sources.items()
    }


async def _rendered_sizes(contents: Contents, seqs: list[int]) -> dict[int, int]:
    """The size of renderings: rendered (or found in the content cache) as FETCH
    RFC822.SIZE renders them, their bytes let go after."""
    await contents.load(seqs, bytes_only=True)
    sizes = {}
    for seq in seqs:
        data = contents.bytes_of(seq)
        sizes[seq] = 0 if data is None else len(data)
    contents.release()
    return sizes


async def _chunk(
    backend: Backend, contents: Contents, owner: str, seqs: list[int], *, size: bool
) -> dict[int, tuple[int, int, HeaderKeys]]:
    """(INTERNALDATE, size, keys) of each mail of one chunk: one read for what every
    command needs, one for the sources of the keys the process does not hold yet."""
    store, domain, cache = backend.store, backend.domain, backend.sort_keys
    rows = await store.read(lambda session: sort_rows(session, owner, seqs, domain))
    keys: dict[int, HeaderKeys] = {}
    originals: dict[int, int] = {}
    renderings: list[int] = []
    for seq, row in rows.items():
        held = None if row.keyed_by is None else cache.get(row.keyed_by)
        if held is not None:
            keys[seq] = held
        elif row.header is not None:  # a draft, rendered just now
            keys[seq] = keys_of_header(row.header)
        elif row.size is not None:
            originals[seq] = row.size
        else:
            renderings.append(seq)
    if originals or renderings:
        sources = await store.read(
            lambda session: sort_sources(session, domain, originals, renderings)
        )
        for seq, made in (await asyncio.to_thread(_parsed, sources)).items():
            keyed_by = rows[seq].keyed_by
            assert keyed_by is not None
            cache.put(keyed_by, made)
            keys[seq] = made
    sizes: dict[int, int] = {}
    if size:
        sizes = await _rendered_sizes(contents, [s for s, r in rows.items() if r.size is None])
    return {
        seq: (
            int(row.arrival.timestamp()),
            row.size if row.size is not None else sizes.get(seq, 0),
            keys.get(seq, _NOTHING),
        )
        for seq, row in rows.items()
    }


async def sortables(
    backend: Backend,
    contents: Contents,
    owner: str,
    found: Sequence[tuple[int, Message]],
    *,
    uid: bool,
    size: bool = False,
) -> list[Sortable]:
    """The found messages (number, message), in sequence order, with their keys; each
    named by its UID when `uid`. `size` loads a rendering's size (SORT SIZE), which
    costs its rendering."""
    loaded: dict[int, tuple[int, int, HeaderKeys]] = {}
    backend.sort_keys.begin()
    seqs = list(dict.fromkeys(message.mail_seq for _, message in found))
    for start in range(0, len(seqs), CHUNK):
        chunk = seqs[start : start + CHUNK]
        loaded.update(await _chunk(backend, contents, owner, chunk, size=size))
    items = []
    for number, message in found:
        arrival, measured, keys = loaded.get(message.mail_seq, (0, 0, _NOTHING))
        items.append(Sortable(message.uid if uid else number, arrival, measured, keys))
    return items
