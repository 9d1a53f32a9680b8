"""The installed wheel on Debian 12's own Python, the oldest the gateway claims.

`/usr/bin/python3` of Debian 12 is 3.11.2: the interpreter `deploy/install.sh`
makes the service's virtualenv from, and the floor of `requires-python`. Some
faults live only there (CPython fixes of 3.11.4 the newer test environment has
already), so the wheel is installed into a virtualenv made from it and used as
an operator would: one gateway, a mail submitted by SMTP, read by IMAP and seen
by REST, `agentmail doctor` run against it, a backup taken while it runs and
restored into an empty data dir. The dependencies are this run's own, linked in
(tests/support/packaging.py): the same minor version shares compiled modules.
"""

from __future__ import annotations

import asyncio
import imaplib
import os
import smtplib
import sqlite3
import subprocess
import sys
from contextlib import closing
from email.message import EmailMessage
from pathlib import Path

import httpx
import pytest

from tests.support.http import ok
from tests.support.packaging import clean_env, fresh_venv, pip_install
from tests.support.serve_process import ADMIN_PASSWORD, serve

pytestmark = pytest.mark.packaging

DEBIAN_PYTHON = Path("/usr/bin/python3")
DOMAIN = "agentmail.localhost"
READER = ("reader", "reader-password")
SUBJECT = "sent on Debian's Python"


def _debian_python() -> Path:
    """Debian's interpreter, of this run's minor version; else skipped (failed on CI)."""
    reason = ""
    if not DEBIAN_PYTHON.is_file():
        reason = f"{DEBIAN_PYTHON} is missing (install Debian's python3 and python3-venv)"
    else:
        version = subprocess.run(
            [DEBIAN_PYTHON, "-c", "import sys; print(*sys.version_info[:3], sep='.')"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        if version.split(".")[:2] != [str(part) for part in sys.version_info[:2]]:
            reason = f"{DEBIAN_PYTHON} is {version}: this run's dependencies are for another"
    if reason:
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return DEBIAN_PYTHON


def _install(wheel: Path, dependencies: Path, where: Path) -> Path:
    """The wheel in a virtualenv of Debian's Python; its `bin` directory."""
    python = fresh_venv(where, dependencies, base=_debian_python())
    pip_install(python, wheel)
    found = subprocess.run(
        [python, "-c", "import sys, smtp_in; print(sys.version_info[:2], smtp_in.__file__)"],
        env=clean_env(),
        cwd=where,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert str(where) in found, found  # the wheel's code, not the checkout's
    return python.parent


def _agentmail(bin_dir: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [bin_dir / "agentmail", *args],
        env=env,
        cwd=bin_dir.parent,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _submit(port: int) -> None:
    message = EmailMessage()
    message["From"] = f"admin@{DOMAIN}"
    message["To"] = f"{READER[0]}@{DOMAIN}"
    message["Subject"] = SUBJECT
    message.set_content("Submitted over SMTP.")
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
        smtp.login("admin", ADMIN_PASSWORD)
        smtp.send_message(message)


def _read(port: int) -> bytes:
    with imaplib.IMAP4("127.0.0.1", port, timeout=30) as imap:
        imap.login(*READER)
        imap.select("INBOX")
        _, found = imap.uid("SEARCH", "ALL")
        (uid,) = found[0].split()
        _, fetched = imap.uid("FETCH", uid, "(BODY.PEEK[HEADER.FIELDS (SUBJECT)])")
        header = fetched[0]
        assert isinstance(header, tuple)
        return header[1]


def _subjects(database: Path) -> set[str]:
    with closing(sqlite3.connect(database)) as connection:
        return {subject for (subject,) in connection.execute("SELECT subject FROM mails")}


async def test_the_wheel_on_debians_python(wheel: Path, dependencies: Path, tmp_path: Path) -> None:
    bin_dir = await asyncio.to_thread(_install, wheel, dependencies, tmp_path / "venv")
    env = clean_env(
        PATH=f"{bin_dir}:/usr/bin:/bin",
        DATABASE_URL=f"sqlite:///{tmp_path / 'data' / 'agentmail.db'}",
        AGENTMAIL_DATA_DIR=str(tmp_path / "data"),
        AGENTMAIL_HTTP_PORT="0",
        AGENTMAIL_SMTP_PORT="0",
        AGENTMAIL_IMAP_PORT="0",
        AGENTMAIL_BCRYPT_ROUNDS="4",
        ADMIN_PASSWORD=ADMIN_PASSWORD,
    )
    (tmp_path / "data").mkdir()
    log = tmp_path / "serve.log"
    served = await serve(env, log=log, program=[bin_dir / "agentmail"], cwd=tmp_path)
    archive = tmp_path / "backup.tar"
    try:
        base = served.base_url
        async with httpx.AsyncClient(base_url=base, headers={"Origin": base}) as http:
            ready = await http.get("/readyz")
            assert ready.status_code == 200, ready.text
            admin = {"username": "admin", "password": ADMIN_PASSWORD}
            ok(await http.post("/api/v1/auth/login", json=admin))
            user = {"name": READER[0], "password": READER[1], "is_admin": False}
            created = await http.post("/api/v1/admin/users", json=user)
            assert created.status_code == 201, created.text

        await asyncio.to_thread(_submit, served.smtp_port)
        assert SUBJECT.encode() in await asyncio.to_thread(_read, served.imap_port)
        async with httpx.AsyncClient(base_url=base, headers={"Origin": base}) as http:
            reader = {"username": READER[0], "password": READER[1]}
            ok(await http.post("/api/v1/auth/login", json=reader))
            inbox = ok(await http.get("/api/v1/me/mail/inbox"))
            assert [mail["subject"] for mail in inbox["mails"]] == [SUBJECT]

        ports = {
            "AGENTMAIL_HTTP_PORT": str(served.http_port),
            "AGENTMAIL_SMTP_PORT": str(served.smtp_port),
            "AGENTMAIL_IMAP_PORT": str(served.imap_port),
        }
        doctor = await asyncio.to_thread(_agentmail, bin_dir, {**env, **ports}, "doctor")
        assert doctor.returncode == 0, doctor.stdout + doctor.stderr
        backup = await asyncio.to_thread(_agentmail, bin_dir, env, "backup", str(archive))
        assert backup.returncode == 0, backup.stdout + backup.stderr
    finally:
        assert await served.stop() == 0, log.read_text()

    restored = tmp_path / "restored"
    restored.mkdir()
    into = {
        **env,
        "DATABASE_URL": f"sqlite:///{restored / 'agentmail.db'}",
        "AGENTMAIL_DATA_DIR": str(restored),
    }
    restore = await asyncio.to_thread(_agentmail, bin_dir, into, "restore", str(archive))
    assert restore.returncode == 0, restore.stdout + restore.stderr
    assert SUBJECT in _subjects(restored / "agentmail.db")
    assert " ERROR " not in log.read_text(), log.read_text()
