"""`agentmail backup` and `agentmail restore`: one archive with the database and the files.

The archive is an uncompressed tar (attachments are mostly compressed already):

    manifest.json           format, gateway version, schema revision, the database
                            kind, and every other member's size and SHA-256
    database.sqlite         SQLite: a copy made with SQLite's online backup API, which
                            is a consistent snapshot while the gateway goes on writing
    database.pgdump         PostgreSQL: `pg_dump --format=custom` (one snapshot too)
    attachments/ab/cd/<sha256>   the attachment files (core/store/blobs.py)
    secret.key              the data dir's key file, when no AGENTMAIL_SECRET_KEY is set: the
                            key the database's secrets are sealed with (core/secrets/)

Order matters while the gateway runs: the database is copied first, then the files.
Files are never changed once written and only unsent uploads are ever removed, so
every file a row of the snapshot names is on disk by then, except one whose upload
was committed a moment before the snapshot and is still being renamed into place
(blobs.py commits the row first): those are looked for again, and named if missing.

Restore checks every checksum before it writes anything, and refuses a target that
holds data (a database with tables, an attachments directory with files) unless
`force` is given. A restored database at an older revision is migrated when the
gateway starts, as after any upgrade.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import io
import json
import os
import sqlite3
import subprocess
import tarfile
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO

from sqlalchemy import create_engine, select
from sqlalchemy.engine import make_url

from core.secrets.box import KEY_FILE_NAME
from core.settings import Settings
from core.store.engine import Store, database_url
from core.store.migrate import head_revisions
from core.store.models import Attachment
from core.version import VERSION

FORMAT = 1
MANIFEST = "manifest.json"
SQLITE_MEMBER = "database.sqlite"
PG_MEMBER = "database.pgdump"
ATTACHMENTS = "attachments"
_CHUNK = 1 << 20


class BackupError(Exception):
    """Something the operator must fix; the message says what."""


@dataclass
class Summary:
    database: str
    files: int = 0
    bytes: int = 0
    missing: list[str] = field(default_factory=list)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while chunk := file.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _libpq(url: str) -> str:
    """The URL as pg_dump and pg_restore take it (no SQLAlchemy driver name)."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def _store_url(settings: Settings) -> str:
    return database_url(settings.database_url, settings.sqlite_path)


def _run(command: list[str]) -> None:
    try:
        subprocess.run(command, check=True, capture_output=True, text=True)
    except FileNotFoundError as error:
        raise BackupError(f"{command[0]} not found: install the PostgreSQL client") from error
    except subprocess.CalledProcessError as error:
        raise BackupError(f"{command[0]} failed: {error.stderr.strip()}") from error


def _snapshot_database(url: str, work: Path) -> tuple[str, Path]:
    if make_url(url).get_backend_name() == "sqlite":
        target = work / SQLITE_MEMBER
        source = sqlite3.connect(make_url(url).database or "")
        copy = sqlite3.connect(target)
        try:
            source.backup(copy)  # the online backup API: a consistent copy, writers go on
        finally:
            copy.close()
            source.close()
        return "sqlite", target
    target = work / PG_MEMBER
    _run(["pg_dump", "--format=custom", "--no-owner", f"--file={target}", _libpq(url)])
    return "postgresql", target


def _attachment_hashes(kind: str, snapshot: Path, url: str, before: datetime) -> set[str]:
    """The sha256 of every attachment row the database copy holds: read from the SQLite
    copy itself; for PostgreSQL, the live rows created before the dump began (a dump's
    snapshot holds every row committed by then)."""
    if kind == "sqlite":
        engine = create_engine(f"sqlite:///{snapshot}")
        try:
            with engine.connect() as connection:
                return set(connection.scalars(select(Attachment.sha256).distinct()))
        finally:
            engine.dispose()
    query = select(Attachment.sha256).where(Attachment.created_at <= before).distinct()

    async def read() -> set[str]:
        store = Store(url)
        try:
            return await store.read(lambda session: set(session.scalars(query)))
        finally:
            await store.close()

    return asyncio.run(read())


@contextlib.contextmanager
def _private_file(path: Path) -> Iterator[BinaryIO]:
    """A new file only its owner can read or write (0600, whatever the umask): an
    archive holds password and key hashes and all mail. Removed again if the backup
    fails half-way, so a broken archive is never left to be mistaken for one."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.fchmod(descriptor, 0o600)
        with os.fdopen(descriptor, "wb") as file:
            yield file
    except BaseException:
        path.unlink(missing_ok=True)
        raise


def backup(settings: Settings, archive: Path) -> Summary:
    if settings.blob_url:  # the archive would hold the rows without the bytes they name
        raise BackupError(
            "the attachments are in the object store (AGENTMAIL_BLOB_URL): `agentmail backup` "
            "cannot copy them yet; back up the database and the bucket with their own tools "
            "(docs/deploy.md, Attachments in object storage)"
        )
    if archive.exists():
        raise BackupError(f"{archive} exists: a backup never overwrites a file")
    url = _store_url(settings)
    blobs = settings.attachments_dir
    with tempfile.TemporaryDirectory(prefix="agentmail-backup-") as scratch:
        began = datetime.now(UTC)
        kind, snapshot = _snapshot_database(url, Path(scratch))
        files: dict[str, dict[str, Any]] = {}
        summary = Summary(database=kind)
        with _private_file(archive) as file, tarfile.open(fileobj=file, mode="w") as tar:
            members = [(snapshot, snapshot.name)]
            key_file = settings.data_dir / KEY_FILE_NAME
            if settings.secret_key is None and key_file.is_file():
                members.append((key_file, KEY_FILE_NAME))  # without it, no secret opens
            if blobs.is_dir():
                members += [
                    (path, f"{ATTACHMENTS}/{path.relative_to(blobs).as_posix()}")
                    for path in sorted(blobs.rglob("*"))
                    if path.is_file() and not path.name.startswith(".")
                ]
            for path, name in members:
                files[name] = {"sha256": _sha256(path), "size": path.stat().st_size}
                tar.add(path, arcname=name, recursive=False)
            copied = {Path(name).name for name in files if name.startswith(f"{ATTACHMENTS}/")}
            for sha in sorted(_attachment_hashes(kind, snapshot, url, began) - copied):
                late = blobs / sha[:2] / sha[2:4] / sha
                if late.is_file():  # renamed into place since the listing
                    name = f"{ATTACHMENTS}/{sha[:2]}/{sha[2:4]}/{sha}"
                    files[name] = {"sha256": _sha256(late), "size": late.stat().st_size}
                    tar.add(late, arcname=name, recursive=False)
                else:
                    summary.missing.append(sha)
            manifest = {
                "format": FORMAT,
                "gateway_version": VERSION,
                "schema": sorted(head_revisions()),
                "database": kind,
                "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
                "files": files,
            }
            data = json.dumps(manifest, indent=2, sort_keys=True).encode()
            info = tarfile.TarInfo(MANIFEST)
            info.size = len(data)
            info.mtime = int(datetime.now(UTC).timestamp())
            tar.addfile(info, io.BytesIO(data))
    summary.files = sum(1 for name in files if name.startswith(f"{ATTACHMENTS}/"))
    summary.bytes = archive.stat().st_size
    return summary
