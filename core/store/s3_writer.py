"""One upload to the object store: spooled and hashed as it arrives, put when finished.

core/store/s3_blobs.py says why a spool and one put rather than a multipart upload.
The spool keeps the first MiB in memory and the rest in an unnamed temporary file,
so an upload holds at most that much of itself in memory whatever its size.
"""

from __future__ import annotations

import asyncio
import hashlib
import tempfile
from types import TracebackType
from typing import TYPE_CHECKING

from core.errors import FieldProblem, PayloadTooLarge
from core.store.blobs import Blob
from core.store.disk_full import is_disk_full, storage_full

if TYPE_CHECKING:
    from core.store.s3_blobs import S3Blobs

__all__ = ["SPOOL_IN_MEMORY", "S3BlobWriter"]

SPOOL_IN_MEMORY = 1 << 20
FLUSH_BYTES = 1 << 20  # bytes gathered before one thread hand-off writes them


class S3BlobWriter:
    def __init__(self, blobs: S3Blobs, limit: int) -> None:
        self._blobs = blobs
        self.limit = limit
        self.size = 0
        self._hash = hashlib.sha256()
        self._buffer: list[bytes] = []
        self._buffered = 0
        self._spool: tempfile.SpooledTemporaryFile[bytes] | None = None
        self._blob: Blob | None = None

    async def __aenter__(self) -> S3BlobWriter:
        self._spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY)  # noqa: SIM115
        return self

    async def __aexit__(
        self,
        _type: type[BaseException] | None,
        _error: BaseException | None,
        _traceback: TracebackType | None,
    ) -> None:
        # An object already put stays: another row may name the same content, and
        # the collector removes it after the grace period when none does.
        if self._spool is not None:
            await asyncio.to_thread(self._spool.close)
            self._spool = None

    async def write(self, chunk: bytes) -> None:
        if self.size + len(chunk) > self.limit:
            raise PayloadTooLarge(
                f"an attachment is at most {self.limit} bytes",
                FieldProblem("file", "too_long", self.limit),
            )
        self.size += len(chunk)
        self._buffer.append(chunk)
        self._buffered += len(chunk)
        if self._buffered >= FLUSH_BYTES:
            await self._flush()

    async def finish(self) -> Blob:
        """Put the content at its key, before the row that names it commits."""
        await self._flush()
        blob = Blob(self._hash.hexdigest(), self.size)
        await asyncio.to_thread(self._put, blob.sha256)
        self._blob = blob
        return blob

    async def place(self) -> None:
        """After the row committed: put the content again if a collector took it."""
        assert self._blob is not None
        sha256 = self._blob.sha256
        if await asyncio.to_thread(self._blobs.head, self._blobs.key_of(sha256)) is None:
            await asyncio.to_thread(self._put, sha256)

    def _put(self, sha256: str) -> None:
        assert self._spool is not None
        self._spool.seek(0)
        self._blobs.put(sha256, self._spool)

    async def _flush(self) -> None:
        if not self._buffer:
            return
        data = b"".join(self._buffer)
        self._buffer.clear()
        self._buffered = 0

        def run() -> None:
            assert self._spool is not None
            self._hash.update(data)  # hashlib releases the GIL on large inputs
            self._spool.write(data)

        try:
            await asyncio.to_thread(run)
        except OSError as error:  # the spool's file: a full temporary directory
            if is_disk_full(error):
                raise storage_full() from error
            raise
