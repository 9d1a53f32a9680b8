"""The settings of the attachment store (files in the data dir, or an S3-compatible
object store), a part of `Settings`; README.md documents each one, docs/deploy.md
("Attachments in object storage") explains them together."""

from __future__ import annotations

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings

__all__ = ["BlobSettings"]


class BlobSettings(BaseSettings):
    blob_url: str = Field(
        "",
        description="s3://bucket/prefix keeps attachment content in an S3-compatible object"
        " store; empty = files in `attachments_dir`.",
    )
    s3_endpoint: str = Field(
        "", description="The object store's URL (http://host:port); empty = AWS S3."
    )
    s3_access_key: str = Field("", description="The object store's access key id.")
    s3_secret_key: SecretStr = Field(
        SecretStr(""), description="The object store's secret access key."
    )
    s3_region: str = Field("us-east-1", description="The region the requests are signed for.")

    @field_validator("blob_url")
    @classmethod
    def _s3_url(cls, value: str) -> str:
        value = value.strip()
        if value and not (value.startswith("s3://") and len(value) > len("s3://")):
            raise ValueError("AGENTMAIL_BLOB_URL is s3://bucket/prefix, or empty for files")
        return value
