"""`agentmail restore`: an archive of `agentmail backup` into an empty data dir or database.

Every member's SHA-256 is checked against the manifest before anything is written;
a target that holds data is refused unless `force` (then the database is replaced
and the attachment files are added to what is there: they are named by content).
See gateway/backup.py for the archive's layout.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sqlite3
import subprocess
import tarfile
import tempfile
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, inspect
from sqlalchemy.engine import make_url

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


def _manifest(tar: tarfile.TarFile) -> dict[str, Any]:
    try:
        member = tar.extractfile(MANIFEST)
    except KeyError as error:
        raise BackupError("not an AgentMail backup: no manifest.json") from error
    assert member is not None
    manifest: dict[str, Any] = json.load(member)
    if manifest.get("format") != FORMAT:
        raise BackupError(f"backup format {manifest.get('format')!r}: this version reads {FORMAT}")
    return manifest


def _verify(tar: tarfile.TarFile, manifest: dict[str, Any]) -> None:
    """Every listed member present, of its size and checksum; nothing unlisted."""
    names = {m.name for m in tar.getmembers() if m.isfile()} - {MANIFEST}
    listed = set(manifest["files"])
    strange = [n for n in listed if n not in (SQLITE_MEMBER, PG_MEMBER) and not _BLOB.match(n)]
    if strange:  # never a path outside the attachments directory (`../`, absolute)
        raise BackupError(f"the manifest names unexpected files: {sorted(strange)[:5]}")
    if names != listed:
        raise BackupError(f"the archive does not match its manifest: {sorted(names ^ listed)}")
    for name, expected in manifest["files"].items():
        member = tar.extractfile(name)
        assert member is not None
        digest = hashlib.sha256()
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
    url = database_url(settings.database_url, settings.sqlite_path)
    blobs = settings.attachments_dir
    with tarfile.open(archive, "r") as tar:
        manifest = _manifest(tar)
        kind = manifest["database"]
        target_kind = "sqlite" if make_url(url).get_backend_name() == "sqlite" else "postgresql"
        if kind != target_kind:
            raise BackupError(f"a {kind} backup cannot be restored into {target_kind}")
        _verify(tar, manifest)
        occupied = _has_tables(url) or (blobs.is_dir() and any(blobs.rglob("*")))
        if occupied and not force:
            raise BackupError(
                "the target holds data (a database with tables or attachment files): "
                "restore into an empty data dir and database, or give --force to replace it"
            )
        summary = Summary(database=kind)
        with tempfile.TemporaryDirectory(prefix="agentmail-restore-") as scratch:
            member = SQLITE_MEMBER if kind == "sqlite" else PG_MEMBER
            tar.extract(member, scratch, filter="data")
            if kind == "sqlite":
                _restore_sqlite(Path(scratch) / member, Path(make_url(url).database or ""))
            else:
                _restore_postgres(Path(scratch) / member, url, force)
        for name in manifest["files"]:
            if not name.startswith(f"{ATTACHMENTS}/"):
                continue
            target = blobs / Path(name).relative_to(ATTACHMENTS)
            target.parent.mkdir(parents=True, exist_ok=True)
            source = tar.extractfile(name)
            assert source is not None
            with target.open("wb") as out:
                shutil.copyfileobj(source, out, _CHUNK)
            summary.files += 1
    return summary
