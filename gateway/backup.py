"""`agentmail backup`: one archive with the database and the attachments it names.

The archive is an uncompressed tar (attachments are mostly compressed already):

    manifest.json           format, gateway version, schema revision, the database
                            kind, and every other member's size and SHA-256
    database.sqlite         SQLite: a copy made with SQLite's online backup API
    database.pgdump         PostgreSQL: `pg_dump --format=custom` of an exported snapshot
    attachments/ab/cd/<sha256>   the content of every attachment those rows name, read
                            from the blob store: files or the object store (core/store/blobs.py)
    secret.key              the data dir's key file, when no AGENTMAIL_SECRET_KEY is set: the
                            key the database's secrets are sealed with (core/secrets/)

Why the point is consistent while the gateway runs: the rows are copied first, as
one snapshot, with the sha256 of every attachment they name (gateway/backup_snapshot.py);
then exactly those blobs are read. A blob is stored durably before the row naming it
commits, and never changes (its key is its sha256), so each named blob is in the store
when the snapshot is taken, with the bytes the rows mean. Only the collector removes
content (core/mail/attachments.py), and only when no live row names it: it checks the
rows after setting the content aside, and puts it back when one does, and in the object
store it never touches an object younger than the grace period. So a named blob can go
missing during the backup only when its last row was deleted after the snapshot, which
happens to unsent uploads past their time alone; the restored gateway's collector
deletes those rows too. The file backend renames content into place just after its row
commits, so a blob that is missing is looked for once more at the end.

A named blob still missing then, while a live row names it, is a loss in the store
itself: the backup says which and exits 1 (the archive holds everything else). Blobs
whose rows were collected meanwhile are only counted.

gateway/restore.py checks every checksum before it writes anything, and puts the
blobs into the configured store, which need not be the one they came from.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import io
import json
import os
import tarfile
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO

from core.secrets.box import KEY_FILE_NAME
from core.settings import Settings
from core.store.blob_choice import open_blobs
from core.store.engine import database_url
from core.store.migrate import head_revisions
from core.version import VERSION
from gateway import backup_snapshot
from gateway.backup_blobs import ATTACHMENTS, Copied, Progress, copy_out
from gateway.backup_snapshot import PG_MEMBER, SQLITE_MEMBER, BackupError

__all__ = [
    "ATTACHMENTS",
    "FORMAT",
    "MANIFEST",
    "PG_MEMBER",
    "SQLITE_MEMBER",
    "BackupError",
    "Summary",
    "backup",
]

FORMAT = 1
MANIFEST = "manifest.json"
_CHUNK = 1 << 20


@dataclass
class Summary:
    database: str
    files: int = 0
    bytes: int = 0
    missing: list[str] = field(default_factory=list)  # named by live rows, not in the store
    collected: int = 0  # named by the snapshot only: collected during the backup


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while chunk := file.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


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


def _manifest(kind: str, files: dict[str, dict[str, Any]]) -> tuple[tarfile.TarInfo, io.BytesIO]:
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
    return info, io.BytesIO(data)


async def _attachments(
    settings: Settings, named: frozenset[str], tar: tarfile.TarFile, progress: Progress | None
) -> Copied:
    """The named blobs into `tar`; those missing are looked for once more at the end
    (the file backend renames content into place just after its row commits)."""
    blobs = open_blobs(settings)
    copied = await copy_out(blobs, named, tar, progress)
    if copied.missing:
        again = await copy_out(blobs, copied.missing, tar, None)
        copied.files.update(again.files)
        copied.missing = again.missing
    return copied


def backup(settings: Settings, archive: Path, progress: Progress | None = None) -> Summary:
    """Write `archive`; `progress` is told how far the long parts got."""
    if archive.exists():
        raise BackupError(f"{archive} exists: a backup never overwrites a file")
    url = database_url(settings.database_url, settings.sqlite_path)
    say = progress or (lambda _line: None)
    with tempfile.TemporaryDirectory(prefix="agentmail-backup-") as scratch:
        snapshot = backup_snapshot.take(url, Path(scratch))
        say(f"database copied ({snapshot.path.stat().st_size} bytes, {snapshot.kind}); "
            f"{len(snapshot.named)} attachments to read")  # fmt: skip
        files: dict[str, dict[str, Any]] = {}
        with _private_file(archive) as file, tarfile.open(fileobj=file, mode="w") as tar:
            members = [(snapshot.path, snapshot.path.name)]
            key_file = settings.data_dir / KEY_FILE_NAME
            if settings.secret_key is None and key_file.is_file():
                members.append((key_file, KEY_FILE_NAME))  # without it, no secret opens
            for path, name in members:
                files[name] = {"sha256": _sha256(path), "size": path.stat().st_size}
                tar.add(path, arcname=name, recursive=False)
            copied = asyncio.run(_attachments(settings, snapshot.named, tar, progress))
            files.update(copied.files)
            tar.addfile(*_manifest(snapshot.kind, files))
    live = backup_snapshot.still_named(url, copied.missing)
    return Summary(
        database=snapshot.kind,
        files=len(copied.files),
        bytes=archive.stat().st_size,
        missing=[sha for sha in copied.missing if sha in live],
        collected=len(copied.missing) - len(live),
    )
