"""The blob port: attachment content, stored once per sha256, never reached by a path.

Two backends implement it: files in the data dir (core/store/file_blobs.py) and an
S3-compatible object store (core/store/s3_blobs.py); core/store/blob_choice.py picks
one from the settings. Callers write a stream (hashed as it goes, bounded, finished
into a `Blob`), stage bytes held in memory, read content back as a stream of chunks
or, for the already bounded MIME rendering, whole.

The content of every committed row must be there. Writers and the collector of
unsent attachments (core/mail/attachments.py) race, on several replicas too, so
both backends keep this order:

* a writer stores its content durably *before* the row that names it commits, and
  after the commit `place`s it: it makes sure the content is at its key (the file
  backend renames its own copy there; the object store puts it again if a collector
  took it meanwhile);
* the collector first sets the content aside (a rename; a copy then a delete), then
  checks that no row names its sha256, and only then drops it; otherwise it puts it
  back.

A row committed before that check finds the content put back; a row committed after
it brings its own copy. What a crash leaves (partial uploads, content set aside,
objects whose row never committed) is found by `leftovers` once it is older than a
grace period far longer than any transaction, and settled the same way.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from types import TracebackType
from typing import Protocol, Self

__all__ = [
    "GRACE_SECONDS",
    "Aside",
    "Blob",
    "BlobReader",
    "BlobStore",
    "BlobWriter",
    "Leftovers",
    "Staged",
    "content_key",
]

# Content younger than this is never collected: an upload's transaction (its bytes
# stored, its row not yet committed) lasts seconds; an hour leaves room for a stalled
# database, a paused process and clocks an hour apart.
GRACE_SECONDS = 3600.0
_SHA256 = re.compile(r"[0-9a-f]{64}")


def content_key(sha256: str) -> str:
    """`ab/cd/<sha256>`: where content lives below the store's root (or prefix)."""
    if not _SHA256.fullmatch(sha256):
        raise ValueError(f"not a sha256: {sha256!r}")
    return f"{sha256[:2]}/{sha256[2:4]}/{sha256}"


def is_sha256(text: str) -> bool:
    return _SHA256.fullmatch(text) is not None


@dataclass(frozen=True, slots=True)
class Blob:
    sha256: str
    size: int


@dataclass(frozen=True, slots=True)
class Staged:
    """Content `stage`d before its row commits; `place` or `discard` it after."""

    blob: Blob
    token: object  # the backend's own: a temporary file, the bytes to put again


@dataclass(frozen=True, slots=True)
class Aside:
    """Content the collector took away from its key, to drop or put back."""

    sha256: str
    token: object


@dataclass(slots=True)
class Leftovers:
    """What a crash may have left, older than the grace period asked for."""

    candidates: list[str] = field(default_factory=list)  # content perhaps named by no row
    asides: list[Aside] = field(default_factory=list)  # content set aside, not settled


class BlobWriter(Protocol):
    """One upload of at most `limit` bytes, used with `async with`: unless placed,
    leaving the block removes what it wrote that no row can name yet."""

    limit: int
    size: int

    async def __aenter__(self) -> Self: ...

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None: ...

    async def write(self, chunk: bytes) -> None:
        """`PayloadTooLarge` beyond the limit, `StorageFull` when there is no room."""

    async def finish(self) -> Blob:
        """Store the content durably (before the row that names it commits)."""

    async def place(self) -> None:
        """After the row committed: make sure the content is at its key."""


class BlobReader(Protocol):
    size: int  # the whole content's, also when the reader gives only a range of it

    def chunks(self) -> AsyncIterator[bytes]:
        """The content, a chunk at a time (released at the end or when closed)."""

    async def close(self) -> None: ...


class BlobStore(Protocol):
    def writer(self, limit: int) -> BlobWriter: ...

    def stage(self, data: bytes) -> Staged:
        """Store content held in memory (an imported or filed attachment) as `finish`
        does. Sync: for code already in a worker thread, like `place` and `discard`."""

    def place(self, staged: Staged) -> None:
        """After its row committed: make sure staged content is at its key."""

    def discard(self, staged: Staged) -> None:
        """Its row did not commit: let go of what only it held."""

    async def exists(self, sha256: str) -> bool: ...

    async def holds_content(self) -> bool:
        """Whether anything at all is stored (a restore refuses to mix into a store in use)."""

    async def size(self, sha256: str) -> int | None:
        """The content's size in bytes; None when it is not there."""

    async def open(
        self, sha256: str, offset: int = 0, length: int | None = None
    ) -> BlobReader | None:
        """A reader of the content, or of `length` bytes of it from `offset` (within the
        content: a download's byte range); None when it is not there."""

    async def read_all(self, sha256: str) -> bytes:
        """The whole content (bounded by the attachment limit); `FileNotFoundError` if missing."""

    def load(self, sha256: str) -> bytes:
        """`read_all`, for code already in a worker thread (MIME rendering)."""

    async def set_aside(self, sha256: str) -> Aside | None:
        """Take the content away from its key; None when it is not there (or, in the
        object store, younger than the grace period: left alone)."""

    async def put_back(self, aside: Aside) -> None: ...

    async def drop(self, aside: Aside) -> None: ...

    async def leftovers(self, older_than_seconds: float) -> Leftovers:
        """What crashes left, older than `older_than_seconds`; partial uploads that old
        are removed on the way (nothing can finish them)."""
