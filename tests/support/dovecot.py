"""A private Dovecot (Debian's `/usr/sbin/dovecot`) for tests and benchmarks.

Started on a free high port with implicit TLS (`ssl = required`, a `trustme`
certificate), one passwd-file user and Maildir storage, and stopped afterwards.
With `plaintext=True` (bench/imap_fetch.py, beside the gateway's plain port on
loopback) it listens for plain IMAP instead and allows LOGIN without TLS.
Dovecot never runs a login process or a mail session as root, so when the tests
run as root the login processes use Debian's `dovenull`, the internal ones
`dovecot`, and the mail user's files belong to `dovecot`; the working directory is
then a fresh directory under the system temp dir that those users can enter.
As another user, everything runs as that user inside the given directory.
"""

from __future__ import annotations

import asyncio
import grp
import os
import pwd
import shutil
import signal
import socket
import ssl
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import trustme

DOVECOT = Path("/usr/sbin/dovecot")


@dataclass(frozen=True, slots=True)
class Dovecot:
    host: str
    port: int
    user: str
    password: str
    ca_file: Path
    root: Path
    mail_uid: int
    mail_gid: int
    plaintext: bool = False

    @property
    def maildir(self) -> Path:
        """The user's INBOX (a Maildir: cur/, new/, tmp/)."""
        return self.root / "mail" / self.user

    def ssl_context(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=str(self.ca_file))

    def url(self, mailbox: str = "INBOX") -> str:
        scheme = "imap" if self.plaintext else "imaps"
        return f"{scheme}://{self.user}@{self.host}:{self.port}/{mailbox}"

    def place(self, name: str, raw: bytes) -> None:
        """Put a message straight into the INBOX Maildir (`new/`), owned by the mail user."""
        for sub in ("cur", "new", "tmp"):
            (self.maildir / sub).mkdir(parents=True, exist_ok=True)
        temp = self.maildir / "tmp" / name
        temp.write_bytes(raw)
        os.replace(temp, self.maildir / "new" / name)
        for path in (self.maildir, *self.maildir.iterdir(), self.maildir / "new" / name):
            os.chown(path, self.mail_uid, self.mail_gid)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _config(root: Path, port: int, users: tuple[str, str, int, int], plaintext: bool) -> str:
    login, internal, uid, gid = users
    plain_port, tls_port = (port, 0) if plaintext else (0, port)
    return f"""
base_dir = {root}/run
state_dir = {root}/state
log_path = {root}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = {"yes" if plaintext else "required"}
disable_plaintext_auth = {"no" if plaintext else "yes"}
ssl_cert = <{root}/cert.pem
ssl_key = <{root}/key.pem
default_login_user = {login}
default_internal_user = {internal}
default_internal_group = {grp.getgrgid(pwd.getpwnam(internal).pw_gid).gr_name}
first_valid_uid = 1
auth_mechanisms = plain
auth_failure_delay = 0
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {root}/passwd
}}
userdb {{
  driver = static
  args = uid={uid} gid={gid} home={root}/home/%u
}}
mail_location = maildir:{root}/mail/%u
service imap-login {{
  inet_listener imap {{
    port = {plain_port}
  }}
  inet_listener imaps {{
    port = {tls_port}
    ssl = yes
  }}
}}
"""


async def _wait_listening(port: int) -> None:
    for _ in range(100):
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.05)
            continue
        writer.close()
        await writer.wait_closed()
        return
    raise RuntimeError(f"Dovecot did not listen on port {port}")


def _prepare(
    workdir: Path, user: str, password: str, plaintext: bool = False
) -> tuple[Dovecot, Path]:
    """Certificate, passwd file, directories and configuration; returns it and the config."""
    if os.geteuid() == 0:
        root = Path(tempfile.mkdtemp(prefix="agentmail-dovecot-"))
        root.chmod(0o755)
        mail = pwd.getpwnam("dovecot")
        users = ("dovenull", "dovecot", mail.pw_uid, mail.pw_gid)
    else:
        root = workdir / "dovecot"
        root.mkdir(parents=True)
        me = pwd.getpwuid(os.geteuid())
        users = (me.pw_name, me.pw_name, me.pw_uid, me.pw_gid)
    ca = trustme.CA()
    cert = ca.issue_cert("127.0.0.1", "localhost")
    cert.private_key_pem.write_to_path(str(root / "key.pem"))
    (root / "cert.pem").write_bytes(b"".join(blob.bytes() for blob in cert.cert_chain_pems))
    ca.cert_pem.write_to_path(str(root / "ca.pem"))
    (root / "passwd").write_text(f"{user}:{{PLAIN}}{password}::::::\n")
    for sub in ("mail", "home"):
        (root / sub).mkdir()
        os.chown(root / sub, users[2], users[3])
    port = _free_port()
    config = root / "dovecot.conf"
    config.write_text(_config(root, port, users, plaintext))
    server = Dovecot(
        "127.0.0.1", port, user, password, root / "ca.pem", root, users[2], users[3], plaintext
    )
    return server, config


def _log(server: Dovecot) -> str:
    log = server.root / "dovecot.log"
    return log.read_text() if log.exists() else ""


@asynccontextmanager
async def running_dovecot(
    workdir: Path,
    user: str = "alice",
    password: str = "secret-password",
    *,
    plaintext: bool = False,
) -> AsyncIterator[Dovecot]:
    """Start Dovecot for `user`; stop it and remove what it left on exit."""
    server, config = await asyncio.to_thread(_prepare, workdir, user, password, plaintext)
    started = await asyncio.create_subprocess_exec(str(DOVECOT), "-c", str(config))
    if await started.wait() != 0:
        raise RuntimeError(
            f"dovecot -c {config} failed to start: {await asyncio.to_thread(_log, server)}"
        )
    pid_file = server.root / "run" / "master.pid"
    try:
        await _wait_listening(server.port)
        yield server
    finally:
        await _stop(await _master_pid(pid_file))
        if os.geteuid() == 0:
            await asyncio.to_thread(shutil.rmtree, server.root, True)


async def _master_pid(pid_file: Path) -> int:
    """The master's pid; the file appears a moment after the port opens."""
    for _ in range(250):
        text = await asyncio.to_thread(lambda: pid_file.read_text() if pid_file.exists() else "")
        if text.strip():
            return int(text)
        await asyncio.sleep(0.02)
    raise RuntimeError(f"no {pid_file}: is Dovecot running?")


async def _stop(master: int) -> None:
    """SIGTERM to the master (what `dovecot stop` sends), then wait until it has gone."""
    os.kill(master, signal.SIGTERM)
    for _ in range(500):
        try:
            os.kill(master, 0)
        except ProcessLookupError:
            return
        await asyncio.sleep(0.02)
    raise RuntimeError(f"Dovecot (pid {master}) did not stop")
