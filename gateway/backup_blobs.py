"""The attachments half of a backup: content read from the blob store into the archive,
and from an archive into a blob store; either backend (core/store/blobs.py), either way.

Every blob is streamed, a chunk at a time: tarfile writes a member from a file it
reads, in a worker thread, while the blob's reader runs on the event loop; `_Pulled`
hands the reader's chunks across. Each blob's bytes are hashed on the way, in both
directions, and must hash to the name they are kept under.
"""

from __future__ import annotations

import asyncio
import hashlib
import tarfile
import time
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field
from typing import IO, Any

from core.store.blobs import BlobStore, content_key
from gateway.backup_snapshot import BackupError

__all__ = ["ATTACHMENTS", "Copied", "Progress", "copy_in", "copy_out", "member_name"]

ATTACHMENTS = "attachments"
PROGRESS_SECONDS = 5.0  # how often a long copy says how far it got
_CHUNK = 1 << 20

Progress = Callable[[str], None]


def member_name(sha256: str) -> str:
    """`attachments/ab/cd/<sha256>`: where a blob's bytes are in the archive."""
    return f"{ATTACHMENTS}/{content_key(sha256)}"


class _Ticker:
    """Says how far a long copy got: every PROGRESS_SECONDS, and once at the end."""

    def __init__(self, progress: Progress | None, what: str, total: int) -> None:
        self._progress, self._what, self._total = progress, what, total
        self._done = self._bytes = 0
        self._said = time.monotonic()

    def step(self, size: int) -> None:
        self._done += 1
        self._bytes += size
        if time.monotonic() - self._said >= PROGRESS_SECONDS:
            self.say()

    def say(self) -> None:
        self._said = time.monotonic()
        if self._progress is not None:
            mib = self._bytes / (1 << 20)
            self._progress(f"{self._what}: {self._done}/{self._total} ({mib:.1f} MiB)")


class _Pulled:
    """A blob reader's chunks as a file for a worker thread to read: each chunk is
    fetched on the event loop, and hashed as it is read."""

    def __init__(self, chunks: AsyncIterator[bytes], loop: asyncio.AbstractEventLoop) -> None:
        self._chunks, self._loop = chunks, loop
        self._held = bytearray()
        self._ended = False
        self.digest = hashlib.sha256()

    async def _next(self) -> bytes | None:
        return await anext(self._chunks, None)

    def read(self, size: int = -1) -> bytes:
        while not self._ended and (size < 0 or len(self._held) < size):
            chunk = asyncio.run_coroutine_threadsafe(self._next(), self._loop).result()
            if chunk is None:
                self._ended = True
            else:
                self._held += chunk
        count = len(self._held) if size < 0 else min(size, len(self._held))
        data = bytes(self._held[:count])
        del self._held[:count]
        self.digest.update(data)
        return data


@dataclass
class Copied:
    files: dict[str, dict[str, Any]] = field(default_factory=dict)  # the manifest's entries
    missing: list[str] = field(default_factory=list)  # named, but not in the store


async def copy_out(
    blobs: BlobStore, shas: Iterable[str], tar: tarfile.TarFile, progress: Progress | None
) -> Copied:
    """Each of `shas` from the store into `tar`; those not in the store are `missing`."""
    wanted = sorted(shas)
    ticker = _Ticker(progress, "attachments read", len(wanted))
    copied = Copied()
    for sha256 in wanted:
        size = await _copy_one(blobs, sha256, tar)
        if size is None:
            copied.missing.append(sha256)
            continue
        copied.files[member_name(sha256)] = {"sha256": sha256, "size": size}
        ticker.step(size)
    ticker.say()
    return copied


async def _copy_one(blobs: BlobStore, sha256: str, tar: tarfile.TarFile) -> int | None:
    reader = await blobs.open(sha256)
    if reader is None:
        return None
    chunks = reader.chunks()
    source = _Pulled(chunks, asyncio.get_running_loop())
    info = tarfile.TarInfo(member_name(sha256))
    info.size, info.mode, info.mtime = reader.size, 0o600, int(time.time())
    try:
        await asyncio.to_thread(tar.addfile, info, source)  # exactly `size` bytes, or OSError
        beyond = await asyncio.to_thread(source.read, 1)
    finally:
        await reader.close()  # its file or response, released at once
    if beyond or source.digest.hexdigest() != sha256:
        raise BackupError(
            f"attachment {sha256}: the store gave back other bytes than the ones named by "
            "that sha256 (its content is damaged); nothing was kept of this backup"
        )
    return reader.size


async def copy_in(
    blobs: BlobStore,
    tar: tarfile.TarFile,
    members: list[tarfile.TarInfo],
    progress: Progress | None,
) -> None:
    """Each member (`attachments/ab/cd/<sha256>`, its checksum checked) into the store."""
    ticker = _Ticker(progress, "attachments written", len(members))
    for member in members:
        sha256 = member.name.rsplit("/", 1)[-1]
        source: IO[bytes] | None = tar.extractfile(member)
        assert source is not None  # a regular file (gateway/restore.py checked)
        with source:
            async with blobs.writer(member.size) as writer:
                while chunk := await asyncio.to_thread(source.read, _CHUNK):
                    await writer.write(chunk)
                if (await writer.finish()).sha256 != sha256:
                    raise BackupError(f"{member.name}: its bytes do not hash to its name")
                await writer.place()
        ticker.step(member.size)
    ticker.say()
