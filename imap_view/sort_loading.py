"""The keys SORT and THREAD order a session's messages by, loaded in bounded chunks.

The messages a SORT or THREAD found (by the same search as SEARCH) are read CHUNK at
a time: one store read gives their INTERNALDATE, an original's size and, for an
original whose keys the process has not parsed yet, its header section; a rendering's
fields come from its columns (core/rendering/sort_rows.py). Headers are parsed in a
worker thread (imap_view/sort_keys.py), so neither the reads nor the parsing hold the
event loop for more than a chunk, and at most a chunk of header bytes is in memory.

Measured on 1,000 messages (docs/performance.md, "SORT and THREAD"): parsing an
original's keys costs about 0.1 ms and is done once per process; a rendering's keys
cost no rendering. Only SIZE of a rendering needs the rendering itself, the same one
FETCH RFC822.SIZE makes and the content cache keeps (imap_view/contents.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Final

from core.rendering.sort_rows import SortRow, sort_rows
from imap_view.backend import Backend
from imap_view.contents import Contents
from imap_view.message import Message
from imap_view.sort_keys import HeaderKeys, keys_of_fields, keys_of_header
from imap_view.sort_order import Sortable

__all__ = ["CHUNK", "sortables"]

CHUNK: Final = 2_000  # messages per store read, parse and rendering batch
_NOTHING = HeaderKeys(None, "", False, "", "", "", None, ())  # a message gone meanwhile


def _parsed(rows: dict[int, SortRow]) -> dict[int, HeaderKeys]:
    """The keys of the rows that carry a header or a rendering's fields (a worker thread)."""
    parsed = {}
    for seq, row in rows.items():
        if row.header is not None:
            parsed[seq] = keys_of_header(row.header)
        elif row.fields is not None:
            parsed[seq] = keys_of_fields(row.fields)
    return parsed


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
    backend: Backend,
    contents: Contents,
    owner: str,
    seqs: list[int],
    *,
    size: bool,
    references: bool,
) -> dict[int, tuple[int, int, HeaderKeys]]:
    """(INTERNALDATE, size, keys) of each mail of one chunk."""
    cache = backend.sort_keys
    known = {seq: keys for seq in seqs if (keys := cache.get(seq)) is not None}
    unknown = {seq for seq in seqs if seq not in known}
    domain = backend.domain
    rows = await backend.store.read(
        lambda session: sort_rows(
            session, owner, seqs, domain, headers_of=unknown, references=references
        )
    )
    parsed = await asyncio.to_thread(_parsed, {s: r for s, r in rows.items() if s not in known})
    for seq, keys in parsed.items():
        if rows[seq].header is not None and seq >= 0:  # an original: its keys never change
            cache.put(seq, keys)
    sizes: dict[int, int] = {}
    if size:
        sizes = await _rendered_sizes(contents, [s for s, r in rows.items() if r.size is None])
    out = {}
    for seq, row in rows.items():
        keys = known.get(seq) or parsed.get(seq, _NOTHING)
        measured = row.size if row.size is not None else sizes.get(seq, 0)
        out[seq] = (int(row.arrival.timestamp()), measured, keys)
    return out


async def sortables(
    backend: Backend,
    contents: Contents,
    owner: str,
    found: Sequence[tuple[int, Message]],
    *,
    uid: bool,
    size: bool = False,
    references: bool = False,
) -> list[Sortable]:
    """The found messages (number, message), in sequence order, with their keys; each
    named by its UID when `uid`. `size` loads sizes (SORT SIZE), `references` a
    rendering's References (THREAD=REFERENCES): each costs what only they need."""
    loaded: dict[int, tuple[int, int, HeaderKeys]] = {}
    seqs = list(dict.fromkeys(message.mail_seq for _, message in found))
    for start in range(0, len(seqs), CHUNK):
        chunk = seqs[start : start + CHUNK]
        loaded.update(
            await _chunk(backend, contents, owner, chunk, size=size, references=references)
        )
    items = []
    for number, message in found:
        arrival, measured, keys = loaded.get(message.mail_seq, (0, 0, _NOTHING))
        items.append(Sortable(message.uid if uid else number, arrival, measured, keys))
    return items
