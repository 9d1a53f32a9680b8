"""`agentmail restore` takes nothing from an archive but the bytes of its regular files.

A backup holds regular files only (gateway/backup.py), so any other member — a
link to a file outside, a device, a fifo, a directory — or a name given twice
refuses the whole archive before anything is written, and restored files get this
process's owner and mode, never the archive's (setuid bits included): what
tarfile's "data" filter would guarantee, without the filter (absent before 3.11.4).
"""

from __future__ import annotations

import hashlib
import io
import json
import sqlite3
import stat
import tarfile
from pathlib import Path

import pytest

from core.settings import Settings
from gateway.backup import BackupError
from gateway.restore import restore

ATTACHMENT = b"attachment bytes"
SHA = hashlib.sha256(ATTACHMENT).hexdigest()
BLOB = f"attachments/{SHA[:2]}/{SHA[2:4]}/{SHA}"


def _file(name: str, data: bytes, mode: int = 0o644) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.size, info.mode = len(data), mode
    return info, data


def _special(name: str, kind: bytes, target: str = "") -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    return info, b""


def _archive(path: Path, *extra: tuple[tarfile.TarInfo, bytes], mode: int = 0o644) -> Path:
    """A backup of an empty SQLite database and one attachment, then `extra` members."""
    database = path.parent / "source.sqlite"
    with sqlite3.connect(database) as connection:
        connection.execute("CREATE TABLE kept (id INTEGER)")
    connection.close()
    content = database.read_bytes()
    files = {
        "database.sqlite": {"sha256": hashlib.sha256(content).hexdigest(), "size": len(content)},
        BLOB: {"sha256": SHA, "size": len(ATTACHMENT)},
    }
    manifest = {"format": 1, "database": "sqlite", "schema": [], "files": files}
    members = [
        _file("manifest.json", json.dumps(manifest).encode()),
        _file("database.sqlite", content),
        _file(BLOB, ATTACHMENT, mode),
        *extra,
    ]
    with tarfile.open(path, "w") as tar:
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return path


def _settings(where: Path) -> Settings:
    return Settings(data_dir=where, database_url=f"sqlite:///{where / 'agentmail.db'}")  # type: ignore[call-arg]


@pytest.mark.parametrize(
    "member",
    [
        _special("attachments/ab/cd/passwd", tarfile.SYMTYPE, "/etc/passwd"),
        _special("attachments/ab/cd/shadow", tarfile.LNKTYPE, "database.sqlite"),
        _special("dev/null", tarfile.CHRTYPE),
        _special("queue", tarfile.FIFOTYPE),
        _special("attachments/ab", tarfile.DIRTYPE),
        _file("database.sqlite", b"a second copy"),
    ],
    ids=["symlink", "hard link", "device", "fifo", "directory", "name twice"],
)
def test_an_archive_with_more_than_regular_files_is_refused(
    tmp_path: Path, member: tuple[tarfile.TarInfo, bytes]
) -> None:
    archive = _archive(tmp_path / "backup.tar", member)
    target = tmp_path / "target"
    with pytest.raises(BackupError, match=r"not a regular file|twice"):
        restore(_settings(target), archive)
    assert not target.exists()


def test_restored_files_have_this_process_mode_not_the_archives(tmp_path: Path) -> None:
    archive = _archive(tmp_path / "backup.tar", mode=0o6777)
    target = tmp_path / "target"
    summary = restore(_settings(target), archive)
    assert summary.files == 1
    restored = target / "attachments" / SHA[:2] / SHA[2:4] / SHA
    assert restored.read_bytes() == ATTACHMENT
    mode = stat.S_IMODE(restored.stat().st_mode)
    assert not mode & (stat.S_ISUID | stat.S_ISGID | stat.S_IXUSR), oct(mode)
    with sqlite3.connect(target / "agentmail.db") as connection:
        assert connection.execute("SELECT count(*) FROM kept").fetchone() == (0,)
    connection.close()
