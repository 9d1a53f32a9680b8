"""The blob store the settings name: the object store for `AGENTMAIL_BLOB_URL=s3://…`,
else files in the attachments directory (core/store/blobs.py, the port)."""

from __future__ import annotations

from core.settings import Settings
from core.store.blobs import BlobStore
from core.store.file_blobs import FileBlobs

__all__ = ["open_blobs"]


def open_blobs(settings: Settings) -> BlobStore:
    if not settings.blob_url:
        return FileBlobs(settings.attachments_dir)
    from core.store.s3_blobs import S3Blobs  # boto3 is imported only when it is used
    from core.store.s3_client import S3Location, make_client

    client = make_client(
        settings.s3_endpoint,
        settings.s3_access_key,
        settings.s3_secret_key.get_secret_value(),
        settings.s3_region,
    )
    return S3Blobs(client, S3Location.parse(settings.blob_url))
