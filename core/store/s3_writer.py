"""One upload to the object store: spooled and hashed as it arrives, put when finished.

core/store/s3_blobs.py says why a spool and one put rather than a multipart upload.
The spool keeps the first MiB in memory and the rest in an unnamed temporary file,
so an upload holds at most that much of itself in memory whatever its size.
"""

from __future__ import annotations

import asyncio
import tempfile
from types import TracebackType
from typing import TYPE_CHECKING

from core.store.blob_writing import BufferedBlobWriter
from core.store.blobs import Blob

if TYPE_CHECKING:
    from core.store.s3_blobs import S3Blobs

__all__ = ["SPOOL_IN_MEMORY", "S3BlobWriter"]

SPOOL_IN_MEMORY = 1 << 20


class S3BlobWriter(BufferedBlobWriter):
    def __init__(self, blobs: S3Blobs, limit: int) -> None:
        super().__init__(limit)
        self._blobs = blobs
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

    async def finish(self) -> Blob:
        """Put the content at its key, before the row that names it commits."""
        await self._flush()
        blob = self._written()
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

    def _store(self, data: bytes) -> None:
        """Into the spool; its file is on the temporary directory's disk (which may be full)."""
        assert self._spool is not None
        self._spool.write(data)
