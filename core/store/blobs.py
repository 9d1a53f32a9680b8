"""Attachment content on disk, stored once per sha256: `<data dir>/attachments/ab/cd/<sha256>`.

An upload streams into a temporary file in the attachments directory, hashed as
it goes, and is renamed into place atomically; identical bytes land on the same
path, so they take the space once. Every file operation runs in a worker thread:
none blocks the event loop.

Uploads and the collector of unsent attachments race (and, on PostgreSQL, run on
several replicas). This order keeps the content of every committed row on disk:

* an upload commits its row first, then always renames its own copy into place
  (replacing a file with the same bytes is harmless);
* the collector first sets the file aside, then checks that no row names its
  sha256, and only then deletes it; otherwise it puts it back.

A row committed before that check finds the file put back; a row committed
after it brings its own copy. Files left aside by a crash are settled the same
way by a later collection.

A full disk (`ENOSPC`) refuses the upload with `StorageFull` and removes its
partial file. Everything that needs space — the bytes, their fsync, the content
path's directories — is done before the row is committed; afterwards only a
rename is left, so a committed row never lacks its content for want of space.

Replicas on one database share this directory (AGENTMAIL_ATTACHMENTS_DIR): the
order above holds across processes because it relies only on atomic renames
and the database. Another store (S3-compatible) would provide the same
operations — `writer` (stream, hash, finish, place), `stage`/`place`, `exists`,
reading by sha256, `set_aside`/`move_into_place`/`delete` and `leftovers` for the
collector — with a conditional put in place of the rename.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

from core.errors import FieldProblem, PayloadTooLarge
from core.store.disk_full import is_disk_full, storage_full

_UPLOAD_PREFIX = ".upload-"
_ASIDE_PREFIX = ".aside-"
_SHA256 = re.compile(r"[0-9a-f]{64}")
FLUSH_BYTES = 1 << 20  # bytes gathered before one thread hand-off writes them
Leftovers = tuple[list[Path], list[tuple[str, Path]]]


@dataclass(frozen=True, slots=True)
class Blob:
    sha256: str
    size: int


def _fsync_dir(path: Path) -> None:
    """Make a rename in `path` durable (POSIX: the directory entry needs its own fsync)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class BlobStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    def path_of(self, sha256: str) -> Path:
        if not _SHA256.fullmatch(sha256):
            raise ValueError(f"not a sha256: {sha256!r}")
        return self.root / sha256[:2] / sha256[2:4] / sha256

    def writer(self, limit: int) -> BlobWriter:
        """A new upload of at most `limit` bytes (use it with `async with`)."""
        return BlobWriter(self, limit)

    async def exists(self, sha256: str) -> bool:
        return await asyncio.to_thread(self.path_of(sha256).is_file)

    async def set_aside(self, sha256: str) -> Path | None:
        """Move the content out of its path; None when it is not there."""
        aside = self.root / f"{_ASIDE_PREFIX}{sha256}-{uuid.uuid4().hex}"
        try:
            await asyncio.to_thread(os.rename, self.path_of(sha256), aside)
        except FileNotFoundError:
            return None
        return aside

    async def move_into_place(self, source: Path, sha256: str) -> None:
        """Rename `source` (an upload, or a file set aside) to the content path of `sha256`."""
        await asyncio.to_thread(self.place, source, sha256)

    def place(self, source: Path, sha256: str) -> None:
        """`move_into_place`, for code already in a worker thread."""
        target = self.path_of(sha256)
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.replace(source, target)
        except FileNotFoundError:
            return  # a file set aside and settled by another collector meanwhile
        _fsync_dir(target.parent)

    def stage(self, data: bytes) -> tuple[Blob, Path]:
        """Write content held in memory (an imported attachment) as a finished upload
        would be: durable, not yet in place; `place` it once its row is committed.
        Sync: call it in a worker thread. `StorageFull` when the disk is full."""
        temp = self.root / f"{_UPLOAD_PREFIX}{uuid.uuid4().hex}.part"
        blob = Blob(hashlib.sha256(data).hexdigest(), len(data))
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            with open(temp, "xb") as file:
                file.write(data)
                file.flush()
                os.fsync(file.fileno())
            self.prepare(blob.sha256)
        except OSError as error:
            temp.unlink(missing_ok=True)
            if is_disk_full(error):
                raise storage_full() from error
            raise
        return blob, temp

    def prepare(self, sha256: str) -> None:
        """The directories of the content path, made before the row is committed: a
        full disk refuses the upload then, not the rename after the commit."""
        self.path_of(sha256).parent.mkdir(parents=True, exist_ok=True)

    async def delete(self, path: Path) -> None:
        await asyncio.to_thread(path.unlink, missing_ok=True)

    async def leftovers(self, older_than_seconds: float) -> Leftovers:
        """Old partial uploads, and old set-aside files with their sha256 (after a crash)."""

        def run() -> Leftovers:
            uploads: list[Path] = []
            asides: list[tuple[str, Path]] = []
            cutoff = time.time() - older_than_seconds
            try:
                entries = list(os.scandir(self.root))
            except FileNotFoundError:
                return uploads, asides
            for entry in entries:
                try:
                    if not entry.is_file() or entry.stat().st_mtime >= cutoff:
                        continue
                except FileNotFoundError:
                    continue
                if entry.name.startswith(_UPLOAD_PREFIX):
                    uploads.append(Path(entry.path))
                elif entry.name.startswith(_ASIDE_PREFIX):
                    sha256 = entry.name[len(_ASIDE_PREFIX) :].split("-", 1)[0]
                    if _SHA256.fullmatch(sha256):
                        asides.append((sha256, Path(entry.path)))
            return uploads, asides

        return await asyncio.to_thread(run)


class BlobWriter:
    """Streams one upload to a temporary file, hashing it; removes it unless placed."""

    def __init__(self, blobs: BlobStore, limit: int) -> None:
        self._blobs = blobs
        self.limit = limit
        self.size = 0
        self._hash = hashlib.sha256()
        self._buffer: list[bytes] = []
        self._buffered = 0
        self._file: BinaryIO | None = None
        self._temp: Path | None = None
        self._blob: Blob | None = None

    async def __aenter__(self) -> BlobWriter:
        def open_temp() -> None:
            self._blobs.root.mkdir(parents=True, exist_ok=True)
            self._temp = self._blobs.root / f"{_UPLOAD_PREFIX}{uuid.uuid4().hex}.part"
            self._file = open(self._temp, "xb")  # noqa: SIM115 - closed in finish/__aexit__

        await self._in_thread(open_temp)
        return self

    async def __aexit__(
        self,
        _type: type[BaseException] | None,
        _error: BaseException | None,
        _traceback: TracebackType | None,
    ) -> None:
        if self._file is not None or self._temp is not None:
            await asyncio.to_thread(self._discard)

    async def write(self, chunk: bytes) -> None:
        if self.size + len(chunk) > self.limit:
            await asyncio.to_thread(self._discard)
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
        """Write the rest and make it durable; the content is not in place yet."""
        await self._flush()

        blob = Blob(self._hash.hexdigest(), self.size)

        def close() -> None:
            assert self._file is not None
            self._file.flush()
            os.fsync(self._file.fileno())  # ENOSPC may come only here (delayed allocation)
            self._file.close()
            self._file = None
            self._blobs.prepare(blob.sha256)

        await self._in_thread(close)
        self._blob = blob
        return blob

    async def place(self) -> None:
        """Rename the finished upload to its content path (after its row is committed)."""
        assert self._blob is not None and self._temp is not None
        await self._blobs.move_into_place(self._temp, self._blob.sha256)
        self._temp = None

    async def _flush(self) -> None:
        if not self._buffer:
            return
        data = b"".join(self._buffer)
        self._buffer.clear()
        self._buffered = 0

        def run() -> None:
            assert self._file is not None
            self._hash.update(data)  # hashlib releases the GIL on large inputs
            self._file.write(data)

        await self._in_thread(run)

    async def _in_thread(self, work: Callable[[], None]) -> None:
        """`work` in a worker thread; a full disk discards the upload: `StorageFull`."""
        try:
            await asyncio.to_thread(work)
        except OSError as error:
            if not is_disk_full(error):
                raise
            await asyncio.to_thread(self._discard)
            raise storage_full() from error

    def _discard(self) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):  # flushing what is buffered: no room for it
                self._file.close()
            self._file = None
        if self._temp is not None:
            self._temp.unlink(missing_ok=True)
            self._temp = None
