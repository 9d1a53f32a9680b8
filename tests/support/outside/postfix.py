"""Debian's Postfix as the outside world's MTA, inside the `mx` host's namespace.

It runs as its own instance (`master -c DIR`): main.cf, master.cf, the queue, the
maps and the log all live in a temp directory, and the machine's /etc/postfix is never
read (Debian's package is installed unconfigured: scripts/ensure-services.sh). It is
the MX of the outside domain, delivering its mailboxes over LMTP to the Dovecot host;
the smarthost of the gateway (it relays for the world's network, `mynetworks`); and
the backup MX of the gateway's domain: mail for it goes to that domain's MX host as the
DNS says, on the port the world gives (a transport map, `smtp:DOMAIN:PORT`, looks the
MX up and keeps the port). Port 25 takes mail from anyone, port 587 is where the
human's mail client submits.
"""

from __future__ import annotations

import asyncio
import contextlib
import grp
import json
import os
import pwd
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MASTER = "/usr/lib/postfix/sbin/master"
POSTQUEUE = "/usr/sbin/postqueue"
MASTER_CF = """\
25        inet  n - n - -  smtpd
587       inet  n - n - -  smtpd -o syslog_name=postfix/submission
pickup    unix  n - n 60 1 pickup
cleanup   unix  n - n - 0  cleanup
qmgr      unix  n - n 300 1 qmgr
rewrite   unix  - - n - -  trivial-rewrite
bounce    unix  - - n - 0  bounce
defer     unix  - - n - 0  bounce
trace     unix  - - n - 0  bounce
verify    unix  - - n - 1  verify
flush     unix  n - n 1000? 0 flush
proxymap  unix  - - n - -  proxymap
smtp      unix  - - n - -  smtp
relay     unix  - - n - -  smtp
showq     unix  n - n - -  showq
error     unix  - - n - -  error
retry     unix  - - n - -  error
discard   unix  - - n - -  discard
lmtp      unix  - - n - -  lmtp
anvil     unix  - - n - 1  anvil
scache    unix  - - n - 1  scache
postlog   unix-dgram n - n - 1 postlogd
"""


@dataclass(frozen=True, slots=True)
class PostfixSettings:
    hostname: str  # mx.outside.test
    domain: str  # outside.test: its mailboxes are delivered to `mailbox_host`
    mailboxes: tuple[str, ...]  # local parts that exist
    mailbox_host: str  # the Dovecot host's address (LMTP)
    lmtp_port: int
    network: str  # 10.28.N.0/24: who may relay (the gateway, using it as smarthost)
    gateway_domain: str  # agentmail.test: relayed to its MX
    gateway_port: int


def main_cf(root: Path, settings: PostfixSettings) -> str:
    return f"""\
compatibility_level = 3.6
queue_directory = {root}/queue
data_directory = {root}/data
maillog_file = {root}/postfix.log
maillog_file_prefixes = {root}
myhostname = {settings.hostname}
mydomain = {settings.domain}
myorigin = {settings.domain}
mydestination =
local_recipient_maps =
local_transport = error:no local delivery on this host
alias_maps =
alias_database =
inet_interfaces = all
inet_protocols = ipv4
mynetworks = 127.0.0.0/8 {settings.network}
smtpd_peername_lookup = no
smtpd_relay_restrictions = permit_mynetworks, reject_unauth_destination
virtual_mailbox_domains = {settings.domain}
virtual_mailbox_maps = texthash:{root}/mailboxes
virtual_transport = lmtp:inet:{settings.mailbox_host}:{settings.lmtp_port}
relay_domains = {settings.gateway_domain}
transport_maps = texthash:{root}/transport
smtp_tls_security_level = none
smtpd_tls_security_level = none
biff = no
append_dot_mydomain = no
queue_run_delay = 1s
minimal_backoff_time = 1s
maximal_backoff_time = 4s
delay_warning_time = 0
smtp_connect_timeout = 10s
"""


def _make_queue(root: Path) -> None:
    """The queue directories with the owners and modes Postfix's own post-install gives
    them (/etc/postfix/postfix-files)."""
    owner = pwd.getpwnam("postfix").pw_uid
    postdrop = grp.getgrnam("postdrop").gr_gid
    queue = root / "queue"
    for name, uid, gid, mode in (
        (".", 0, 0, 0o755),
        ("pid", 0, 0, 0o755),
        ("maildrop", owner, postdrop, 0o730),
        ("public", owner, postdrop, 0o710),
        *(
            (name, owner, -1, 0o700)
            for name in (
                "active",
                "bounce",
                "corrupt",
                "defer",
                "deferred",
                "flush",
                "hold",
                "incoming",
                "private",
                "saved",
                "trace",
            )
        ),
    ):
        path = queue / name
        path.mkdir(parents=True, exist_ok=True)
        os.chown(path, uid, gid)
        path.chmod(mode)
    (root / "data").mkdir(mode=0o700)
    os.chown(root / "data", owner, -1)


def write_instance(root: Path, settings: PostfixSettings) -> None:
    root.mkdir(mode=0o755)
    (root / "main.cf").write_text(main_cf(root, settings))
    (root / "master.cf").write_text(MASTER_CF)
    (root / "mailboxes").write_text(
        "".join(f"{name}@{settings.domain} OK\n" for name in settings.mailboxes)
    )
    (root / "transport").write_text(
        f"{settings.gateway_domain} smtp:{settings.gateway_domain}:{settings.gateway_port}\n"
    )
    _make_queue(root)
    # Postfix reads a file changed in the last second or two again and again until it is
    # older (dict_load_file: a writer may not be done): dated back, it is read at once.
    past = time.time() - 60
    for name in ("main.cf", "master.cf", "mailboxes", "transport"):
        os.utime(root / name, (past, past))


async def _run(*command: str) -> str:
    process = await asyncio.create_subprocess_exec(
        *command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
    )
    out, _ = await process.communicate()
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {process.returncode}: {out.decode()}")
    return out.decode()


@dataclass(frozen=True, slots=True)
class Postfix:
    root: Path
    namespace: str
    address: str

    @property
    def log_path(self) -> Path:
        return self.root / "postfix.log"

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    async def start(self) -> None:
        """The master in the namespace, as `postfix start` starts it (`master -w`: it
        returns once the master serves). Not `postfix start` itself: its script logs
        through postlogd before the master has started it, waiting two seconds for it."""
        try:
            await _run("ip", "netns", "exec", self.namespace, MASTER, "-c", str(self.root), "-w")
        except RuntimeError as exc:
            raise RuntimeError(f"{exc}\n{await asyncio.to_thread(self.log)}") from None

    def master_pid(self) -> int | None:
        pid_file = self.root / "queue" / "pid" / "master.pid"
        with contextlib.suppress(OSError, ValueError):
            return int(pid_file.read_text().split()[0])
        return None

    def stop(self) -> None:
        """SIGTERM to the master, as `postfix stop` sends (which then sleeps a second)."""
        pid = self.master_pid()
        if pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)

    async def queue(self) -> list[dict[str, Any]]:
        """The mail queue as `postqueue -j` shows it: one dict a message (queue_name,
        queue_id, sender, recipients with their delay_reason)."""
        out = await _run(POSTQUEUE, "-c", str(self.root), "-j")
        return [json.loads(line) for line in out.splitlines() if line.strip()]

    def queue_now(self) -> str:
        """`postqueue -j`'s output as it is, or why there is none (blocking)."""
        done = subprocess.run(
            [POSTQUEUE, "-c", str(self.root), "-j"], capture_output=True, text=True, timeout=30
        )
        return done.stdout + done.stderr

    async def flush(self) -> None:
        """`postqueue -f`: try every deferred mail again now."""
        await _run(POSTQUEUE, "-c", str(self.root), "-f")
