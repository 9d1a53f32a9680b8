"""`agentmail restore`: an archive of `agentmail backup` into an empty database and store.

Every member's SHA-256 is checked against the manifest before anything is written;
a target that holds data (a database with tables, a blob store with content) is
refused unless `force` (then the database is replaced and the attachments are added
to what is there: they are named by content). The attachments go into the blob
store the settings name, files or the object store, whichever the backup came from
(gateway/backup_blobs.py). See gateway/backup.py for the archive's layout.

Nothing is extracted by the archive's own word: a backup holds regular files only,
so any other member (link, device, directory, fifo) or a name given twice refuses
the archive, and each file's bytes are copied into a file this process creates, at
a path it chose (a listed name checked against the layout), with its own owner and
mode. That is at least what tarfile's "data" filter guarantees, on every Python the
gateway runs on (the filter itself is 3.11.4+).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import tarfile
import tempfile
from pathlib import Path
from typing import IO, Any

from sqlalchemy import create_engine, inspect
from sqlalchemy.engine import make_url

from core.secrets.box import KEY_FILE_NAME
from core.settings import Settings
from core.store.blob_choice import open_blobs
from core.store.engine import database_url
from gateway.backup import (
    ATTACHMENTS,
    FORMAT,
    MANIFEST,
    PG_MEMBER,
    SQLITE_MEMBER,
    BackupError,
    Summary,
)
from gateway.backup_blobs import Progress, copy_in
from gateway.backup_snapshot import libpq

_CHUNK = 1 << 20
_BLOB = re.compile(rf"^{ATTACHMENTS}/[0-9a-f]{{2}}/[0-9a-f]{{2}}/[0-9a-f]{{64}}$")


def _members(tar: tarfile.TarFile) -> dict[str, tarfile.TarInfo]:
    """The archive's members by name: regular files, each named once, else refused."""
    members: dict[str, tarfile.TarInfo] = {}
    for member in tar.getmembers():
        if not member.isreg():
            raise BackupError(
                f"the archive holds {member.name!r}, which is not a regular file: "
                "a backup holds regular files only"
            )
        if member.name in members:
            raise BackupError(f"the archive holds {member.name!r} twice")
        members[member.name] = member
    return members


def _open(tar: tarfile.TarFile, member: tarfile.TarInfo) -> IO[bytes]:
    source = tar.extractfile(member)
    assert source is not None  # a regular file (checked by `_members`)
    return source


def _copy(tar: tarfile.TarFile, member: tarfile.TarInfo, target: Path) -> None:
    """A member's bytes into `target`, a file this process makes (its umask, its owner)."""
    with _open(tar, member) as source, target.open("wb") as out:
        shutil.copyfileobj(source, out, _CHUNK)


def _manifest(tar: tarfile.TarFile, members: dict[str, tarfile.TarInfo]) -> dict[str, Any]:
    if MANIFEST not in members:
        raise BackupError("not an AgentMail backup: no manifest.json")
    manifest: dict[str, Any] = json.load(_open(tar, members[MANIFEST]))
    if manifest.get("format") != FORMAT:
        raise BackupError(f"backup format {manifest.get('format')!r}: this version reads {FORMAT}")
    return manifest


def _verify(
    tar: tarfile.TarFile, members: dict[str, tarfile.TarInfo], manifest: dict[str, Any]
) -> None:
    """Every listed member present, of its size and checksum; nothing unlisted."""
    names = set(members) - {MANIFEST}
    listed = set(manifest["files"])
    known = (SQLITE_MEMBER, PG_MEMBER, KEY_FILE_NAME)
    strange = [n for n in listed if n not in known and not _BLOB.match(n)]
    if strange:  # never a path outside the attachments directory (`../`, absolute)
        raise BackupError(f"the manifest names unexpected files: {sorted(strange)[:5]}")
    if names != listed:
        raise BackupError(f"the archive does not match its manifest: {sorted(names ^ listed)}")
    for name, expected in manifest["files"].items():
        digest = hashlib.sha256()
        with _open(tar, members[name]) as member:
            while chunk := member.read(_CHUNK):
                digest.update(chunk)
        if digest.hexdigest() != expected["sha256"]:
            raise BackupError(f"{name}: checksum mismatch (the archive is damaged)")


def _has_tables(url: str) -> bool:
    sync = make_url(url)
    if sync.get_backend_name() == "postgresql":
        return _pg_has_tables(url)
    if not Path(sync.database or "").is_file():
        return False
    engine = create_engine(sync)
    try:
        with engine.connect() as connection:
            return bool(inspect(connection).get_table_names())
    finally:
        engine.dispose()


def _pg_has_tables(url: str) -> bool:
    query = "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"
    done = subprocess.run(
        ["psql", "-XAtq", "-c", query, libpq(url)], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise BackupError(f"cannot reach the target database: {done.stderr.strip()}")
    return int(done.stdout.strip() or 0) > 0


def _restore_sqlite(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{target}{suffix}").unlink(missing_ok=True)
    copy, into = sqlite3.connect(source), sqlite3.connect(target)
    try:
        copy.backup(into)
    finally:
        into.close()
        copy.close()


def _restore_postgres(dump: Path, url: str, force: bool) -> None:
    command = ["pg_restore", "--no-owner", "--exit-on-error", f"--dbname={libpq(url)}"]
    if force:
        command += ["--clean", "--if-exists"]
    done = subprocess.run([*command, str(dump)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise BackupError(f"pg_restore failed: {done.stderr.strip()}")


def _key_file(settings: Settings, tar: tarfile.TarFile, member: tarfile.TarInfo) -> None:
    """The key the backed-up secrets were sealed with, readable by this user alone."""
    key_file = settings.data_dir / KEY_FILE_NAME
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    key_file.unlink(missing_ok=True)
    with (
        os.fdopen(os.open(key_file, os.O_WRONLY | os.O_CREAT, 0o600), "wb") as out,
        _open(tar, member) as source,
    ):
        shutil.copyfileobj(source, out)


def restore(
    settings: Settings, archive: Path, *, force: bool = False, progress: Progress | None = None
) -> Summary:
    url = database_url(settings.database_url, settings.sqlite_path)
    blobs = open_blobs(settings)
    with tarfile.open(archive, "r") as tar:
        members = _members(tar)
        manifest = _manifest(tar, members)
        kind = manifest["database"]
        target_kind = "sqlite" if make_url(url).get_backend_name() == "sqlite" else "postgresql"
        if kind != target_kind:
            raise BackupError(f"a {kind} backup cannot be restored into {target_kind}")
        _verify(tar, members, manifest)
        database = SQLITE_MEMBER if kind == "sqlite" else PG_MEMBER
        if database not in members:
            raise BackupError(f"the archive holds no {database}")
        if not force and (_has_tables(url) or asyncio.run(blobs.holds_content())):
            raise BackupError(
                "the target holds data (a database with tables, or attachments in the store): "
                "restore into an empty database and store, or give --force to replace it"
            )
        with tempfile.TemporaryDirectory(prefix="agentmail-restore-") as scratch:
            copy = Path(scratch) / database
            _copy(tar, members[database], copy)
            if kind == "sqlite":
                _restore_sqlite(copy, Path(make_url(url).database or ""))
            else:
                _restore_postgres(copy, url, force)
        if progress is not None:
            progress(f"database restored ({kind})")
        if KEY_FILE_NAME in members:
            _key_file(settings, tar, members[KEY_FILE_NAME])
        blob_members = [members[n] for n in sorted(manifest["files"]) if _BLOB.match(n)]
        asyncio.run(copy_in(blobs, tar, blob_members, progress))
    return Summary(database=kind, files=len(blob_members))
