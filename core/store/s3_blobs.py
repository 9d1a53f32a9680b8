"""Attachment content in an S3-compatible object store: `<prefix>ab/cd/<sha256>`.

The object-store backend of the blob port (core/store/blobs.py explains the order
of writes and collection); core/store/s3_client.py says why boto3. An upload is
spooled to a temporary file (in memory up to 1 MiB), hashed as it goes, and put
with one request once finished: the key is the sha256, known only at the end, so
a multipart upload would need a second copy to its key, and one `PutObject`
takes far more than an attachment may be (AGENTMAIL_MAX_ATTACHMENT_BYTES). The
spool is an unnamed file, gone with the process; it stays until `place`, which
puts the object again when a collector took it between the put and the commit.

The collector sets an object aside by copying it to `<prefix>aside/<sha256>-<id>`
and deleting it, and leaves alone every object younger than the grace period
(`LastModified`, GRACE_SECONDS). An upload whose process died after the put
leaves an object no row names: `leftovers` lists content older than the grace
period, one sixteenth of the keys (by the sha256's first digit) per call, so a
collection's work stays bounded; the collector keeps those no row names.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
import uuid
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any

from botocore.exceptions import ClientError

from core.store.blobs import GRACE_SECONDS, Aside, Blob, Leftovers, Staged, content_key, is_sha256
from core.store.s3_client import S3Location, call, is_missing
from core.store.s3_writer import S3BlobWriter

__all__ = ["S3Blobs"]

READ_BYTES = 1 << 18  # one chunk of a download
_ASIDE = "aside/"
_SHARDS = "0123456789abcdef"


class S3Reader:
    def __init__(self, body: Any, size: int) -> None:
        self._body = body
        self.size = size

    async def chunks(self) -> AsyncIterator[bytes]:
        try:
            while chunk := await asyncio.to_thread(
                call, lambda: self._body.read(READ_BYTES), "read"
            ):
                yield chunk
        finally:  # at once, even when cancelled: closing does not wait on I/O
            self._body.close()

    async def close(self) -> None:
        await asyncio.to_thread(self._body.close)


class S3Blobs:
    def __init__(
        self, client: Any, location: S3Location, *, grace_seconds: float = GRACE_SECONDS
    ) -> None:
        self.client = client
        self.bucket = location.bucket
        self.prefix = location.prefix
        self.grace_seconds = grace_seconds
        self._shard = 0

    def key_of(self, sha256: str) -> str:
        return f"{self.prefix}{content_key(sha256)}"

    def writer(self, limit: int) -> S3BlobWriter:
        return S3BlobWriter(self, limit)

    def put(self, sha256: str, body: Any) -> None:
        """Store `body` (bytes or a file at its start) at the key of `sha256`. Sync."""
        key = self.key_of(sha256)
        call(lambda: self.client.put_object(Bucket=self.bucket, Key=key, Body=body), "store")

    def head(self, key: str) -> dict[str, Any] | None:
        try:
            found: dict[str, Any] = call(
                lambda: self.client.head_object(Bucket=self.bucket, Key=key), "look up"
            )
        except ClientError as error:
            if is_missing(error):
                return None
            raise
        return found

    def stage(self, data: bytes) -> Staged:
        blob = Blob(hashlib.sha256(data).hexdigest(), len(data))
        self.put(blob.sha256, data)
        return Staged(blob, data)

    def place(self, staged: Staged) -> None:
        assert isinstance(staged.token, bytes)
        if self.head(self.key_of(staged.blob.sha256)) is None:
            self.put(staged.blob.sha256, staged.token)

    def discard(self, staged: Staged) -> None:
        """Nothing: the object may be another row's content; the collector decides."""

    async def exists(self, sha256: str) -> bool:
        return await self.size(sha256) is not None

    async def holds_content(self) -> bool:
        def run() -> bool:
            listed = self.client.list_objects_v2(Bucket=self.bucket, Prefix=self.prefix, MaxKeys=1)
            return int(listed.get("KeyCount", 0)) > 0

        return await asyncio.to_thread(call, run, "list")

    async def size(self, sha256: str) -> int | None:
        found = await asyncio.to_thread(self.head, self.key_of(sha256))
        return None if found is None else int(found["ContentLength"])

    async def open(
        self, sha256: str, offset: int = 0, length: int | None = None
    ) -> S3Reader | None:
        asked: dict[str, str] = {"Bucket": self.bucket, "Key": self.key_of(sha256)}
        if offset or length is not None:  # a ranged GET: only those bytes travel
            last = "" if length is None else str(offset + length - 1)
            asked["Range"] = f"bytes={offset}-{last}"
        try:
            found = await asyncio.to_thread(call, lambda: self.client.get_object(**asked), "read")
        except ClientError as error:
            if is_missing(error):
                return None
            raise
        whole = found.get("ContentRange")  # `bytes a-b/size` when ranged
        size = int(whole.rsplit("/", 1)[1]) if whole else int(found["ContentLength"])
        return S3Reader(found["Body"], size)

    async def read_all(self, sha256: str) -> bytes:
        return await asyncio.to_thread(self.load, sha256)

    def load(self, sha256: str) -> bytes:
        key = self.key_of(sha256)

        def run() -> bytes:
            body = self.client.get_object(Bucket=self.bucket, Key=key)["Body"]
            with body:
                return bytes(body.read())

        try:
            return call(run, "read")
        except ClientError as error:
            raise FileNotFoundError(f"no content {sha256} in the object store") from error

    async def set_aside(self, sha256: str) -> Aside | None:
        return await asyncio.to_thread(self._set_aside, sha256)

    def _set_aside(self, sha256: str) -> Aside | None:
        key = self.key_of(sha256)
        found = self.head(key)
        if found is None or not self._old(found["LastModified"]):
            return None
        aside = f"{self.prefix}{_ASIDE}{sha256}-{uuid.uuid4().hex}"
        source = {"Bucket": self.bucket, "Key": key}
        try:
            call(
                lambda: self.client.copy_object(Bucket=self.bucket, Key=aside, CopySource=source),
                "set aside",
            )
        except ClientError as error:  # deleted by another collector meanwhile
            if is_missing(error):
                return None
            raise
        call(lambda: self.client.delete_object(Bucket=self.bucket, Key=key), "set aside")
        return Aside(sha256, aside)

    async def put_back(self, aside: Aside) -> None:
        token = aside.token
        assert isinstance(token, str)
        key, source = self.key_of(aside.sha256), {"Bucket": self.bucket, "Key": token}

        def run() -> None:
            try:
                call(
                    lambda: self.client.copy_object(Bucket=self.bucket, Key=key, CopySource=source),
                    "put back",
                )
            except ClientError as error:
                if not is_missing(error):  # settled by another collector meanwhile
                    raise
            self._delete(token)

        await asyncio.to_thread(run)

    async def drop(self, aside: Aside) -> None:
        assert isinstance(aside.token, str)
        await asyncio.to_thread(self._delete, aside.token)

    def _delete(self, key: str) -> None:
        call(lambda: self.client.delete_object(Bucket=self.bucket, Key=key), "delete")

    async def leftovers(self, older_than_seconds: float) -> Leftovers:
        """Content older than the grace period in this call's shard of the keys, and
        objects set aside older than `older_than_seconds`."""
        shard = _SHARDS[self._shard % len(_SHARDS)]
        self._shard += 1

        def run() -> Leftovers:
            found = Leftovers()
            for key, modified in self._listed(f"{self.prefix}{shard}"):
                name = key.rsplit("/", 1)[-1]
                if is_sha256(name) and self._old(modified):
                    found.candidates.append(name)
            cutoff = max(older_than_seconds, 0.0)
            for key, modified in self._listed(f"{self.prefix}{_ASIDE}"):
                sha256 = key[len(self.prefix) + len(_ASIDE) :].split("-", 1)[0]
                if is_sha256(sha256) and time.time() - modified.timestamp() > cutoff:
                    found.asides.append(Aside(sha256, key))
            return found

        return await asyncio.to_thread(run)

    def _listed(self, prefix: str) -> list[tuple[str, datetime]]:
        def run() -> list[tuple[str, datetime]]:
            pages = self.client.get_paginator("list_objects_v2").paginate(
                Bucket=self.bucket, Prefix=prefix
            )
            return [
                (o["Key"], o["LastModified"]) for page in pages for o in page.get("Contents", [])
            ]

        return call(run, "list")

    def _old(self, modified: datetime) -> bool:
        return time.time() - modified.timestamp() > self.grace_seconds

    def probe(self) -> None:
        """Put, read and delete an object (`agentmail doctor`); `StorageUnavailable` if not."""
        key, data = f"{self.prefix}probe/{uuid.uuid4().hex}", b"agentmail doctor"
        call(lambda: self.client.put_object(Bucket=self.bucket, Key=key, Body=data), "store")
        try:
            body = call(lambda: self.client.get_object(Bucket=self.bucket, Key=key), "read")
            with body["Body"] as stream:
                if bytes(stream.read()) != data:
                    raise OSError("the object store gave back other bytes than were put")
        finally:
            self._delete(key)
