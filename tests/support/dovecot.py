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

The outside world (tests/support/outside) runs one inside a network namespace, as the
mailbox host of an outside domain: `Listen(address, port, namespace, lmtp_port)` puts
IMAP on that address and port of the namespace and adds an LMTP listener there, which
Postfix delivers to (`user@domain` is the mailbox `user`).
"""

from __future__ import annotations

import asyncio
import contextlib
import grp
import os
import pwd
import shutil
import signal
import ssl
import tempfile
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import trustme

from tests.support.ports import steady_ports

DOVECOT = Path("/usr/sbin/dovecot")


@dataclass(frozen=True, slots=True)
class Listen:
    """Where a Dovecot listens: by default a free port of loopback, IMAP only."""

    address: str = "127.0.0.1"
    port: int | None = None
    namespace: str | None = None  # started by `ip netns exec NAMESPACE`
    lmtp_port: int | None = None


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


def _lmtp(listen: Listen) -> str:
    """LMTP on the listen address; `alice@outside.test` is delivered to `alice`."""
    if listen.lmtp_port is None:
        return ""
    return f"""
service lmtp {{
  inet_listener lmtp {{
    address = {listen.address}
    port = {listen.lmtp_port}
  }}
}}
protocol lmtp {{
  auth_username_format = %Ln
}}
"""


def _config(
    root: Path, listen: Listen, port: int, users: tuple[str, str, int, int], plaintext: bool
) -> str:
    login, internal, uid, gid = users
    plain_port, tls_port = (port, 0) if plaintext else (0, port)
    protocols = "imap lmtp" if listen.lmtp_port is not None else "imap"
    return f"""
base_dir = {root}/run
state_dir = {root}/state
log_path = {root}/dovecot.log
# No stats process: with it, the login processes wait 5 s for its handshake when stopped.
stats_writer_socket_path =
protocols = {protocols}
listen = {listen.address}
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
{_lmtp(listen)}"""


async def _wait_listening(address: str, port: int) -> None:
    for _ in range(100):
        try:
            _, writer = await asyncio.open_connection(address, port)
        except OSError:
            await asyncio.sleep(0.05)
            continue
        writer.close()
        await writer.wait_closed()
        return
    raise RuntimeError(f"Dovecot did not listen on port {port}")


def _prepare(
    workdir: Path, user: str, password: str, plaintext: bool = False, listen: Listen = Listen()
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
    port = listen.port or steady_ports(1)[0]
    config = root / "dovecot.conf"
    config.write_text(_config(root, listen, port, users, plaintext))
    server = Dovecot(
        listen.address, port, user, password, root / "ca.pem", root, users[2], users[3], plaintext
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
    listen: Listen = Listen(),
    keep: Callable[[], bool] | None = None,
) -> AsyncIterator[Dovecot]:
    """Start Dovecot for `user`; stop it and remove what it left on exit (the files
    stay with `keep`, for a look after a failure)."""
    server, config = await asyncio.to_thread(_prepare, workdir, user, password, plaintext, listen)
    netns = ("ip", "netns", "exec", listen.namespace) if listen.namespace else ()
    started = await asyncio.create_subprocess_exec(*netns, str(DOVECOT), "-c", str(config))
    if await started.wait() != 0:
        raise RuntimeError(
            f"dovecot -c {config} failed to start: {await asyncio.to_thread(_log, server)}"
        )
    pid_file = server.root / "run" / "master.pid"
    try:
        await _wait_listening(server.host, server.port)
        yield server
    finally:
        await _stop(await _master_pid(pid_file))
        if os.geteuid() == 0 and not (keep and keep()):
            await asyncio.to_thread(shutil.rmtree, server.root, True)


async def _master_pid(pid_file: Path) -> int:
    """The master's pid; the file appears a moment after the port opens."""
    for _ in range(250):
        text = await asyncio.to_thread(lambda: pid_file.read_text() if pid_file.exists() else "")
        if text.strip():
            return int(text)
        await asyncio.sleep(0.02)
    raise RuntimeError(f"no {pid_file}: is Dovecot running?")


def _running(pid: int) -> bool:
    """Whether `pid` still runs: a zombie has ended (the daemonized master's parent is
    init, which may reap it only some seconds later)."""
    return _stat(pid)[0] not in ("", "Z")


def _stat(pid: int) -> tuple[str, str, int]:
    """A process's state, name and process group ("" when it is gone)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return "", "", 0
    name = text[text.index("(") + 1 : text.rindex(")")]
    fields = text.rsplit(")", 1)[-1].split()
    return fields[0], name, int(fields[2])


def _group(master: int) -> set[str]:
    """The names of the live processes in the master's process group."""
    names = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            state, name, group = _stat(int(entry.name))
            if group == master and state not in ("", "Z"):
                names.add(name)
    return names


# What is left of a stopping Dovecot once its services have ended: the master waits
# some five seconds more for anvil and log, which nothing needs any longer.
_LAST = {"dovecot", "anvil", "log"}


async def _stop(master: int) -> None:
    """SIGTERM to the master (what `dovecot stop` sends); once only the master, anvil and
    log are left, SIGKILL to them; then wait until it has gone."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(master, signal.SIGTERM)
    for _ in range(500):
        if not _running(master):
            return
        if await asyncio.to_thread(_group, master) <= _LAST:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(master, signal.SIGKILL)
        await asyncio.sleep(0.02)
    raise RuntimeError(f"Dovecot (pid {master}) did not stop")
