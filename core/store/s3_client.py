"""The S3 client of the object-store backend, and its failures turned into domain errors.

boto3, each call in a worker thread: boto3's clients are thread-safe, and MIME
rendering reads attachment bytes inside worker threads already (core/rendering),
where a synchronous call is what it needs; an asyncio client (aiobotocore) would
have to be called back onto the loop from there. Its requests are signed with
SigV4 and addressed by path (`endpoint/bucket/key`), which every S3-compatible
store (SeaweedFS, MinIO, Ceph, Garage) answers. Checksums are sent only where
the API requires them: several of those stores refuse the newer trailing ones.

Any failure but "no such key" — unreachable, a timeout, a `5xx`, refused
credentials — is `StorageUnavailable`: nothing was stored, and the client is
told to try again (SMTP `451`, REST `503`), never that its mail was kept.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from core.errors import StorageUnavailable

__all__ = ["S3Location", "call", "is_missing", "make_client"]

T = TypeVar("T")
_MISSING = frozenset({"404", "NoSuchKey", "NotFound"})


@dataclass(frozen=True, slots=True)
class S3Location:
    bucket: str
    prefix: str  # "" or "some/prefix/" (always ending with a slash)

    @classmethod
    def parse(cls, url: str) -> S3Location:
        """`s3://bucket/prefix` (the prefix may be empty)."""
        parts = urlsplit(url)
        if parts.scheme != "s3" or not parts.netloc:
            raise ValueError(f"not an s3://bucket/prefix URL: {url!r}")
        prefix = parts.path.strip("/")
        return cls(parts.netloc, f"{prefix}/" if prefix else "")


def make_client(endpoint: str, access_key: str, secret_key: str, region: str) -> Any:
    config = Config(
        s3={"addressing_style": "path"},
        request_checksum_calculation="when_required",
        response_checksum_validation="when_required",
        # A store that is away fails a call within seconds (then `StorageUnavailable`),
        # rather than holding an SMTP session until the client gives up.
        connect_timeout=3,
        read_timeout=30,
        retries={"max_attempts": 2, "mode": "standard"},
        max_pool_connections=32,
    )
    return boto3.client(
        "s3",
        endpoint_url=endpoint or None,
        aws_access_key_id=access_key or None,
        aws_secret_access_key=secret_key or None,
        region_name=region,
        config=config,
    )


def is_missing(error: ClientError) -> bool:
    return str(error.response.get("Error", {}).get("Code")) in _MISSING


def call(work: Callable[[], T], what: str) -> T:
    """`work()`, its failure (but a missing key, raised as is) as `StorageUnavailable`."""
    try:
        return work()
    except ClientError as error:
        if is_missing(error):
            raise
        raise _unavailable(what, error) from error
    except BotoCoreError as error:
        raise _unavailable(what, error) from error


def _unavailable(what: str, error: Exception) -> StorageUnavailable:
    return StorageUnavailable(
        f"the object store failed to {what} ({type(error).__name__}): nothing of this "
        "request was kept; try again later"
    )
