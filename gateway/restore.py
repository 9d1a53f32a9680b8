"""`agentmail restore`: an archive of `agentmail backup` into an empty data dir or database.

Every member's SHA-256 is checked against the manifest before anything is written;
a target that holds data is refused unless `force` (then the database is replaced
and the attachment files are added to what is there: they are named by content).
See gateway/backup.py for the archive's layout.

Nothing is extracted by the archive's own word: a backup holds regular files only,
so any other member (link, device, directory, fifo) or a name given twice refuses
the archive, and each file's bytes are copied into a file this process creates, at
a path it chose (a listed name checked against the layout), with its own owner and
mode. That is at least what tarfile's "data" filter guarantees, on every Python the
gateway runs on (the filter itself is 3.11.4+).
"""

from __future__ import annotations

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
        ["psql", "-XAtq", "-c", query, _libpq(url)], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise BackupError(f"cannot reach the target database: {done.stderr.strip()}")
    return int(done.stdout.strip() or 0) > 0


def _libpq(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


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
    command = ["pg_restore", "--no-owner", "--exit-on-error", f"--dbname={_libpq(url)}"]
    if force:
        command += ["--clean", "--if-exists"]
    done = subprocess.run([*command, str(dump)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise BackupError(f"pg_restore failed: {done.stderr.strip()}")


def restore(settings: Settings, archive: Path, *, force: bool = False) -> Summary:
    if settings.blob_url:  # the attachments would land in a directory nothing reads
        raise BackupError(
            "the attachments are in the object store (AGENTMAIL_BLOB_URL): `agentmail restore` "
            "cannot put them there yet; restore with the object store unset"
        )
    url = database_url(settings.database_url, settings.sqlite_path)
    blobs = settings.attachments_dir
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
        occupied = _has_tables(url) or (blobs.is_dir() and any(blobs.rglob("*")))
        if occupied and not force:
            raise BackupError(
                "the target holds data (a database with tables or attachment files): "
                "restore into an empty data dir and database, or give --force to replace it"
            )
        summary = Summary(database=kind)
        with tempfile.TemporaryDirectory(prefix="agentmail-restore-") as scratch:
            copy = Path(scratch) / database
            _copy(tar, members[database], copy)
            if kind == "sqlite":
                _restore_sqlite(copy, Path(make_url(url).database or ""))
            else:
                _restore_postgres(copy, url, force)
        if KEY_FILE_NAME in members:  # the key the backed-up secrets were sealed with
            key_file = settings.data_dir / KEY_FILE_NAME
            settings.data_dir.mkdir(parents=True, exist_ok=True)
            key_file.unlink(missing_ok=True)
            with (
                os.fdopen(os.open(key_file, os.O_WRONLY | os.O_CREAT, 0o600), "wb") as out,
                _open(tar, members[KEY_FILE_NAME]) as member,
            ):
                shutil.copyfileobj(member, out)
        for name in manifest["files"]:
            if not name.startswith(f"{ATTACHMENTS}/"):
                continue
            target = blobs / Path(name).relative_to(ATTACHMENTS)
            target.parent.mkdir(parents=True, exist_ok=True)
            _copy(tar, members[name], target)
            summary.files += 1
    return summary
