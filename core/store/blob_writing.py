"""What both blob backends' writers share: an upload's bytes counted against its limit,
gathered a MiB at a time, and hashed and stored in one worker-thread hand-off.

A backend's writer (core/store/file_blobs.py, core/store/s3_writer.py) says where
the bytes go (`_store`, called in a worker thread) and what to let go of when an
upload is refused (`_abandon`); the sha256 and the size come from here.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable

from core.errors import FieldProblem, PayloadTooLarge
from core.store.blobs import Blob
from core.store.disk_full import is_disk_full, storage_full

__all__ = ["FLUSH_BYTES", "BufferedBlobWriter"]

FLUSH_BYTES = 1 << 20  # bytes gathered before one thread hand-off writes them


class BufferedBlobWriter:
    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.size = 0
        self._hash = hashlib.sha256()
        self._buffer: list[bytes] = []
        self._buffered = 0

    def _store(self, data: bytes) -> None:
        """Write `data` where the backend keeps the upload (in a worker thread)."""
        raise NotImplementedError

    async def _abandon(self) -> None:
        """The upload is refused: let go of what it wrote (nothing, unless overridden)."""

    async def write(self, chunk: bytes) -> None:
        if self.size + len(chunk) > self.limit:
            await self._abandon()
            raise PayloadTooLarge(
                f"an attachment is at most {self.limit} bytes",
                FieldProblem("file", "too_long", self.limit),
            )
        self.size += len(chunk)
        self._buffer.append(chunk)
        self._buffered += len(chunk)
        if self._buffered >= FLUSH_BYTES:
            await self._flush()

    async def _flush(self) -> None:
        if not self._buffer:
            return
        data = b"".join(self._buffer)
        self._buffer.clear()
        self._buffered = 0

        def run() -> None:
            self._hash.update(data)  # hashlib releases the GIL on large inputs
            self._store(data)

        await self._in_thread(run)

    def _written(self) -> Blob:
        """The content written so far (all of it, after the last `_flush`)."""
        return Blob(self._hash.hexdigest(), self.size)

    async def _in_thread(self, work: Callable[[], None]) -> None:
        """`work` in a worker thread; a full disk abandons the upload: `StorageFull`."""
        try:
            await asyncio.to_thread(work)
        except OSError as error:
            if not is_disk_full(error):
                raise
            await self._abandon()
            raise storage_full() from error
