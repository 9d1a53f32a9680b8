"""`agentmail doctor`'s check of the object store, when attachments live there.

It does what the gateway will: puts a small object under the configured prefix,
reads it back and deletes it (core/store/s3_blobs.py), so wrong credentials, a
missing bucket or an unreachable endpoint show before the first mail is refused.
"""

from __future__ import annotations

from core.errors import StorageUnavailable
from core.settings import Settings
from core.store.s3_blobs import S3Blobs
from core.store.s3_client import S3Location, make_client
from gateway.doctor import Finding

__all__ = ["check_object_store"]


def check_object_store(settings: Settings) -> list[Finding]:
    if not settings.blob_url:
        return []
    where = f"{settings.blob_url} at {settings.s3_endpoint or 'AWS S3'}"
    try:
        location = S3Location.parse(settings.blob_url)
        client = make_client(
            settings.s3_endpoint,
            settings.s3_access_key,
            settings.s3_secret_key.get_secret_value(),
            settings.s3_region,
        )
        S3Blobs(client, location).probe()
    except (StorageUnavailable, ValueError, OSError) as error:
        cause = error.__cause__ or error
        return [
            Finding(
                "fail",
                "object store",
                f"{where}: {type(cause).__name__}: {cause}",
                "check AGENTMAIL_S3_ENDPOINT, the bucket and the access key (put, get, delete)",
            )
        ]
    return [Finding("ok", "object store", f"{where}: put, read and deleted a probe object")]
