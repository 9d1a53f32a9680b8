"""The blob port (core/store/blobs.py) behaves the same on files and on the object store."""

from __future__ import annotations

import asyncio
import hashlib
import os
import uuid
from pathlib import Path

import pytest

from core.errors import PayloadTooLarge, StorageUnavailable
from core.store.blobs import BlobStore, Leftovers
from core.store.file_blobs import FileBlobs
from core.store.s3_blobs import S3Blobs
from core.store.s3_client import S3Location, make_client
from tests.support.seaweedfs import ACCESS_KEY, BUCKET, SECRET_KEY, SeaweedFS

DATA = os.urandom(3 * 1024 * 1024 + 17)  # over the spool's and the flush's MiB
SHA = hashlib.sha256(DATA).hexdigest()


def _s3(seaweedfs: SeaweedFS, grace_seconds: float = 0.0) -> S3Blobs:
    client = make_client(seaweedfs.endpoint, ACCESS_KEY, SECRET_KEY, "us-east-1")
    location = S3Location.parse(f"s3://{BUCKET}/port-{uuid.uuid4().hex}")
    return S3Blobs(client, location, grace_seconds=grace_seconds)


@pytest.fixture(params=["files", "s3"])
def blobs(request: pytest.FixtureRequest, tmp_path: Path) -> BlobStore:
    if request.param == "files":
        return FileBlobs(tmp_path / "blobs")
    return _s3(request.getfixturevalue("seaweedfs"))


async def _write(blobs: BlobStore, data: bytes) -> None:
    async with blobs.writer(len(data)) as writer:
        for start in range(0, len(data), 64 * 1024):
            await writer.write(data[start : start + 64 * 1024])
        blob = await writer.finish()
        assert (blob.sha256, blob.size) == (hashlib.sha256(data).hexdigest(), len(data))
        await writer.place()


async def _streamed(blobs: BlobStore, sha256: str) -> bytes:
    reader = await blobs.open(sha256)
    assert reader is not None
    chunks = [chunk async for chunk in reader.chunks()]
    assert reader.size == sum(map(len, chunks)) and len(chunks) > 1  # a chunk at a time
    return b"".join(chunks)


async def _all_leftovers(blobs: BlobStore, older_than: float) -> Leftovers:
    """Every shard's (the object store lists one sixteenth of the keys a call)."""
    found = Leftovers()
    for _ in range(16):
        part = await blobs.leftovers(older_than)
        found.candidates += part.candidates
        found.asides += [a for a in part.asides if a not in found.asides]
    return found


async def test_written_content_streams_back_and_is_read_whole(blobs: BlobStore) -> None:
    assert not await blobs.exists(SHA) and await blobs.open(SHA) is None
    await _write(blobs, DATA)
    assert await blobs.exists(SHA) and await blobs.size(SHA) == len(DATA)
    assert await _streamed(blobs, SHA) == DATA
    assert await blobs.read_all(SHA) == DATA == blobs.load(SHA)


async def test_an_upload_over_its_limit_is_refused(blobs: BlobStore) -> None:
    with pytest.raises(PayloadTooLarge):
        async with blobs.writer(10) as writer:
            await writer.write(b"x" * 11)
    assert await _all_leftovers(blobs, 0) == Leftovers()


async def test_staged_content_is_placed_after_its_row_commits(blobs: BlobStore) -> None:
    staged = blobs.stage(b"an imported attachment")
    blobs.place(staged)
    assert await blobs.read_all(staged.blob.sha256) == b"an imported attachment"


async def test_content_set_aside_is_put_back_or_dropped(blobs: BlobStore) -> None:
    await _write(blobs, DATA)
    aside = await blobs.set_aside(SHA)
    assert aside is not None and not await blobs.exists(SHA)
    assert await blobs.set_aside(SHA) is None  # not there any more
    await blobs.put_back(aside)
    assert await blobs.read_all(SHA) == DATA
    aside = await blobs.set_aside(SHA)
    assert aside is not None
    await blobs.drop(aside)
    assert not await blobs.exists(SHA) and await blobs.open(SHA) is None
    with pytest.raises(FileNotFoundError):
        blobs.load(SHA)


async def test_content_set_aside_by_a_crashed_collection_is_a_leftover(blobs: BlobStore) -> None:
    await _write(blobs, b"left aside")
    sha256 = hashlib.sha256(b"left aside").hexdigest()
    aside = await blobs.set_aside(sha256)
    assert aside is not None
    assert (await _all_leftovers(blobs, 3600)).asides == []  # younger than asked
    [found] = (await _all_leftovers(blobs, -1)).asides
    assert found.sha256 == sha256
    await blobs.put_back(found)
    assert await blobs.read_all(sha256) == b"left aside"


async def test_the_object_store_leaves_content_younger_than_the_grace_period(
    seaweedfs: SeaweedFS,
) -> None:
    young = _s3(seaweedfs, grace_seconds=3600)
    await _write(young, DATA)
    assert await young.set_aside(SHA) is None and await young.exists(SHA)
    assert (await _all_leftovers(young, 0)).candidates == []
    old = S3Blobs(young.client, S3Location(young.bucket, young.prefix), grace_seconds=0)
    assert (await _all_leftovers(old, 0)).candidates == [SHA]  # a crashed upload's object


async def test_an_upload_puts_again_what_a_collector_took_before_its_commit(
    seaweedfs: SeaweedFS,
) -> None:
    blobs = _s3(seaweedfs)
    async with blobs.writer(len(DATA)) as writer:
        await writer.write(DATA)
        await writer.finish()
        aside = await blobs.set_aside(SHA)  # a collector, before the row committed
        assert aside is not None
        await blobs.drop(aside)
        await writer.place()  # the row committed
    assert await blobs.read_all(SHA) == DATA


async def test_an_object_store_that_is_away_is_a_temporary_failure() -> None:
    client = make_client("http://127.0.0.1:9", ACCESS_KEY, SECRET_KEY, "us-east-1")
    blobs = S3Blobs(client, S3Location.parse(f"s3://{BUCKET}/away"))
    with pytest.raises(StorageUnavailable):
        async with blobs.writer(100) as writer:
            await writer.write(b"bytes")
            await writer.finish()
    with pytest.raises(StorageUnavailable):
        await blobs.open(SHA)


async def test_a_finished_upload_a_crash_left_out_of_place_is_put_in_place(
    tmp_path: Path,
) -> None:
    """Files: the row committed, the process killed before the rename into place."""
    blobs = FileBlobs(tmp_path / "blobs")
    writer = blobs.writer(len(DATA))
    await writer.__aenter__()
    await writer.write(DATA)
    assert (await writer.finish()).sha256 == SHA  # durable, not in place: then the kill
    assert not await blobs.exists(SHA)
    assert (await blobs.leftovers(3600)).candidates == []  # younger than asked: left
    found = await blobs.leftovers(-1)
    assert found.candidates == [SHA]  # in place now, and for the collector to judge
    assert await blobs.read_all(SHA) == DATA


async def test_a_finished_upload_whose_bytes_are_not_its_name_is_removed(
    tmp_path: Path,
) -> None:
    blobs = FileBlobs(tmp_path / "blobs")
    staged = await asyncio.to_thread(blobs.stage, b"the bytes")
    assert isinstance(staged.token, Path)
    staged.token.write_bytes(b"other bytes")  # a disk that lost them
    assert await blobs.leftovers(-1) == Leftovers()
    assert not staged.token.exists() and not await blobs.exists(staged.blob.sha256)
