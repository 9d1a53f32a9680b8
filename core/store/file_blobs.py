"""Attachment content on disk, stored once per sha256: `<data dir>/attachments/ab/cd/<sha256>`.

The file backend of the blob port (core/store/blobs.py, which explains the order of
writes and collection). An upload streams into a temporary file in the attachments
directory (`.upload-<id>.part`), hashed as it goes; finished, it is fsynced and
renamed to a name that carries its sha256 (`.upload-<sha256>-<id>.done`, the
directory fsynced) before its row commits, and renamed into place atomically after;
identical bytes land on the same path, so they take the space once. A crash between
the commit and that last rename leaves a `.done` file: the collector's look for
leftovers checks its bytes against its name and moves it into place (and, named by no
row, it is collected as any content is). The collector sets a file aside by renaming
it. Every file operation runs in a worker thread: none blocks the event loop.

A full disk (`ENOSPC`) refuses the upload with `StorageFull` and removes its
partial file. Everything that needs space — the bytes, their fsync, the content
path's directories — is done before the row is committed; afterwards only a
rename is left, so a committed row never lacks its content for want of space.

Replicas on one database share this directory (AGENTMAIL_ATTACHMENTS_DIR): the
order holds across processes because it relies only on atomic renames and the
database.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

from core.store.blob_writing import BufferedBlobWriter
from core.store.blobs import Aside, Blob, Leftovers, Staged, content_key, is_sha256
from core.store.disk_full import is_disk_full, storage_full

__all__ = ["FileBlobWriter", "FileBlobs"]

_UPLOAD_PREFIX = ".upload-"
_PART, _DONE = ".part", ".done"  # an upload being written; finished, durable, named
_ASIDE_PREFIX = ".aside-"
READ_BYTES = 1 << 18  # one chunk of a download


def _fsync_dir(path: Path) -> None:
    """Make a rename in `path` durable (POSIX: the directory entry needs its own fsync)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class FileReader:
    def __init__(self, file: BinaryIO, size: int, length: int) -> None:
        self._file = file
        self.size = size
        self._left = length  # from the file's position

    async def chunks(self) -> AsyncIterator[bytes]:
        try:
            while self._left > 0:
                chunk = await asyncio.to_thread(self._file.read, min(READ_BYTES, self._left))
                if not chunk:
                    return
                self._left -= len(chunk)
                yield chunk
        finally:  # at once, even when cancelled: closing does not wait on I/O
            self._file.close()

    async def close(self) -> None:
        await asyncio.to_thread(self._file.close)


class FileBlobs:
    def __init__(self, root: Path) -> None:
        self.root = root

    def path_of(self, sha256: str) -> Path:
        """Where content lives on disk (this backend's own; callers use the port)."""
        return self.root / content_key(sha256)

    def writer(self, limit: int) -> FileBlobWriter:
        """A new upload of at most `limit` bytes (use it with `async with`)."""
        return FileBlobWriter(self, limit)

    async def exists(self, sha256: str) -> bool:
        return await asyncio.to_thread(self.path_of(sha256).is_file)

    async def holds_content(self) -> bool:
        return await asyncio.to_thread(lambda: self.root.is_dir() and any(self.root.rglob("*")))

    async def size(self, sha256: str) -> int | None:
        try:
            return (await asyncio.to_thread(self.path_of(sha256).stat)).st_size
        except FileNotFoundError:
            return None

    async def open(
        self, sha256: str, offset: int = 0, length: int | None = None
    ) -> FileReader | None:
        def run() -> FileReader | None:
            try:
                file = open(self.path_of(sha256), "rb")  # noqa: SIM115 - the reader closes it
            except FileNotFoundError:
                return None
            size = os.fstat(file.fileno()).st_size
            file.seek(offset)
            return FileReader(file, size, size - offset if length is None else length)

        return await asyncio.to_thread(run)

    async def read_all(self, sha256: str) -> bytes:
        return await asyncio.to_thread(self.load, sha256)

    def load(self, sha256: str) -> bytes:
        return self.path_of(sha256).read_bytes()

    async def set_aside(self, sha256: str) -> Aside | None:
        """Move the content out of its path; None when it is not there."""
        aside = self.root / f"{_ASIDE_PREFIX}{sha256}-{uuid.uuid4().hex}"
        try:
            await asyncio.to_thread(os.rename, self.path_of(sha256), aside)
        except FileNotFoundError:
            return None
        return Aside(sha256, aside)

    async def put_back(self, aside: Aside) -> None:
        assert isinstance(aside.token, Path)
        await asyncio.to_thread(self.move_into_place, aside.token, aside.sha256)

    async def drop(self, aside: Aside) -> None:
        assert isinstance(aside.token, Path)
        await asyncio.to_thread(aside.token.unlink, missing_ok=True)

    def move_into_place(self, source: Path, sha256: str) -> None:
        """Rename `source` (an upload, or a file set aside) to the content path of
        `sha256`. Sync: for code already in a worker thread."""
        target = self.path_of(sha256)
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.replace(source, target)
        except FileNotFoundError:
            return  # a file set aside and settled by another collector meanwhile
        _fsync_dir(target.parent)

    def stage(self, data: bytes) -> Staged:
        """Write content held in memory as a finished upload would be: durable, not yet
        in place. Sync: call it in a worker thread. `StorageFull` when the disk is full."""
        temp = self.root / f"{_UPLOAD_PREFIX}{uuid.uuid4().hex}{_PART}"
        blob = Blob(hashlib.sha256(data).hexdigest(), len(data))
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            with open(temp, "xb") as file:
                file.write(data)
                file.flush()
                os.fsync(file.fileno())
            self.prepare(blob.sha256)
            done = self.finished(temp, blob.sha256)
        except OSError as error:
            temp.unlink(missing_ok=True)
            if is_disk_full(error):
                raise storage_full() from error
            raise
        return Staged(blob, done)

    def finished(self, temp: Path, sha256: str) -> Path:
        """An upload made durable under a name that says its content (sync): a crash
        after its row commits leaves what `leftovers` moves into place."""
        done = self.root / f"{_UPLOAD_PREFIX}{sha256}-{uuid.uuid4().hex}{_DONE}"
        os.rename(temp, done)
        _fsync_dir(self.root)
        return done

    def place(self, staged: Staged) -> None:
        assert isinstance(staged.token, Path)
        self.move_into_place(staged.token, staged.blob.sha256)

    def discard(self, staged: Staged) -> None:
        assert isinstance(staged.token, Path)
        staged.token.unlink(missing_ok=True)

    def prepare(self, sha256: str) -> None:
        """The directories of the content path, made before the row is committed: a
        full disk refuses the upload then, not the rename after the commit."""
        self.path_of(sha256).parent.mkdir(parents=True, exist_ok=True)

    async def leftovers(self, older_than_seconds: float) -> Leftovers:
        """Old set-aside files with their sha256 (after a crash); old partial uploads
        are removed; old finished ones are moved into place (their row may have
        committed) and given as candidates: content perhaps named by no row."""

        def run() -> Leftovers:
            found = Leftovers()
            cutoff = time.time() - older_than_seconds
            try:
                entries = list(os.scandir(self.root))
            except FileNotFoundError:
                return found
            for entry in entries:
                try:
                    if not entry.is_file() or entry.stat().st_mtime >= cutoff:
                        continue
                except FileNotFoundError:
                    continue
                if entry.name.startswith(_UPLOAD_PREFIX) and entry.name.endswith(_DONE):
                    sha256 = self._settle_finished(Path(entry.path))
                    if sha256 is not None:
                        found.candidates.append(sha256)
                elif entry.name.startswith(_UPLOAD_PREFIX):
                    Path(entry.path).unlink(missing_ok=True)
                elif entry.name.startswith(_ASIDE_PREFIX):
                    sha256 = entry.name[len(_ASIDE_PREFIX) :].split("-", 1)[0]
                    if is_sha256(sha256):
                        found.asides.append(Aside(sha256, Path(entry.path)))
            return found

        return await asyncio.to_thread(run)

    def _settle_finished(self, path: Path) -> str | None:
        """A finished upload a crash left (sync): into place if its bytes are what its
        name says, and the sha256; else removed, and None."""
        sha256 = path.name[len(_UPLOAD_PREFIX) :].split("-", 1)[0]
        digest = hashlib.sha256()
        try:
            with open(path, "rb") as file:
                while chunk := file.read(READ_BYTES):
                    digest.update(chunk)
        except FileNotFoundError:
            return None  # settled by another collector meanwhile
        if not is_sha256(sha256) or digest.hexdigest() != sha256:
            path.unlink(missing_ok=True)
            return None
        self.move_into_place(path, sha256)
        return sha256


class FileBlobWriter(BufferedBlobWriter):
    """Streams one upload to a temporary file, hashing it; removes it unless placed."""

    def __init__(self, blobs: FileBlobs, limit: int) -> None:
        super().__init__(limit)
        self._blobs = blobs
        self._file: BinaryIO | None = None
        self._temp: Path | None = None
        self._blob: Blob | None = None

    async def __aenter__(self) -> FileBlobWriter:
        def open_temp() -> None:
            self._blobs.root.mkdir(parents=True, exist_ok=True)
            self._temp = self._blobs.root / f"{_UPLOAD_PREFIX}{uuid.uuid4().hex}{_PART}"
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

    async def finish(self) -> Blob:
        """Write the rest and make it durable; the content is not in place yet."""
        await self._flush()
        blob = self._written()

        def close() -> None:
            assert self._file is not None
            self._file.flush()
            os.fsync(self._file.fileno())  # ENOSPC may come only here (delayed allocation)
            self._file.close()
            self._file = None
            self._blobs.prepare(blob.sha256)
            assert self._temp is not None
            self._temp = self._blobs.finished(self._temp, blob.sha256)

        await self._in_thread(close)
        self._blob = blob
        return blob

    async def place(self) -> None:
        """Rename the finished upload to its content path (after its row is committed)."""
        assert self._blob is not None and self._temp is not None
        await asyncio.to_thread(self._blobs.move_into_place, self._temp, self._blob.sha256)
        self._temp = None

    def _store(self, data: bytes) -> None:
        assert self._file is not None
        self._file.write(data)

    async def _abandon(self) -> None:
        await asyncio.to_thread(self._discard)

    def _discard(self) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):  # flushing what is buffered: no room for it
                self._file.close()
            self._file = None
        if self._temp is not None:
            self._temp.unlink(missing_ok=True)
            self._temp = None
