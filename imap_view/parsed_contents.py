"""Message contents parsed for IMAP in a worker thread: the bounded walk made pymap's
content (imap_view/parts.py), or one part for a message over the bounds
(imap_view/opaque.py), with the memory each then holds counted for the cache.

What a FETCH of content or a SEARCH of text needs; a listing needs none of it
(imap_view/kept_contents.py).
"""

from __future__ import annotations

from pymap.mime import MessageContent

from core.metrics import IMAP_MESSAGE_PARSES, IMAP_OPAQUE_READS
from core.mime.structure import mime_structure
from core.rendering.batch import render_loaded
from core.rendering.stored import RenderInputs
from imap_view.backend import Backend
from imap_view.content_cache import memory_of
from imap_view.envelope import prepare_envelopes
from imap_view.opaque import opaque_content
from imap_view.parts import content_of

__all__ = ["content_of_bytes", "render_and_parse"]


# The headers pymap parses (lazily, on the content object) for BODYSTRUCTURE and for
# SEARCH's SUBJECT and SENT* keys, which mail clients fetch for every message: parsed
# here, they double what a content holds. ENVELOPE's values are read here too
# (imap_view/envelope.py).
_TYPED_HEADERS = (
    "content_type", "date", "subject", "content_disposition", "content_language",
    "content_location", "content_id", "content_description", "content_transfer_encoding",
)  # fmt: skip


def content_of_bytes(data: bytes, opaque: bool | None) -> MessageContent:
    """Parsed (its structure walked under the MIME bounds, core/mime/structure.py, and
    made pymap's content, imap_view/parts.py), or, over the bounds (its stored mark,
    else the walk stops at a bound), one part made without parsing (imap_view/opaque.py);
    its ENVELOPE values read (imap_view/envelope.py). Run it in a worker thread."""
    structure = None if opaque else mime_structure(data)
    content: MessageContent
    if structure is None or structure.opaque:
        IMAP_OPAQUE_READS.inc()
        content = opaque_content(data)
    else:
        IMAP_MESSAGE_PARSES.inc()
        content = content_of(data, structure)
    prepare_envelopes(content)
    return content


def _measured(data: bytes, opaque: bool | None) -> tuple[MessageContent, int]:
    """Parsed, with its ENVELOPE and BODYSTRUCTURE headers, and the memory it then holds:
    in this worker thread, not on the loop, and final, so the cache's count stays true
    (measured before those headers, a content doubled once a client fetched them)."""
    content = content_of_bytes(data, opaque)
    for part in content.walk():
        for name in _TYPED_HEADERS:
            getattr(part.header.parsed, name)
    return content, memory_of(content)


def render_and_parse(
    loaded: dict[int, bytes | RenderInputs],
    marks: dict[int, bool | None],
    kept: dict[int, bytes],
    backend: Backend,
) -> dict[int, tuple[MessageContent, int, bytes]]:
    """The loaded mails rendered, and they and the `kept` ones parsed."""
    raw = {**kept, **render_loaded(loaded, backend.blobs, backend.domain)} if loaded else kept
    return {seq: (*_measured(data, marks.get(seq)), data) for seq, data in raw.items()}
