"""Where an agent's key comes from, without the key ever leaving the agent's host.

In order (docs/bridges.md):

1. `AGENTMAIL_AGENT_KEY`: a key given to this process (it is not written anywhere);
2. the key file, `agent.key` in `AGENTMAIL_KEY_DIR` (default `~/.agentmail`), mode 0600;
3. `AGENTMAIL_ENROLMENT_KEY`: a one-time key an admin issued; registering with it
   returns the agent's permanent key, which is stored in the key file (2.) for
   every later start, and the one-time key is dead;
4. otherwise a new key is generated into the key file, and the log shows only its
   SHA-256 for an admin to register (`POST /api/v1/admin/agent-keys {key_sha256}`):
   the secret itself is never printed, sent to an admin or logged.

The file functions are synchronous (a few bytes, at start-up); the async client
runs them in a thread.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import secrets
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

KEY_ENV = "AGENTMAIL_AGENT_KEY"
ENROLMENT_ENV = "AGENTMAIL_ENROLMENT_KEY"
KEY_DIR_ENV = "AGENTMAIL_KEY_DIR"
KEY_FILE = "agent.key"
KEY_PREFIX = "amk_"  # the gateway's own agent keys look the same
_log = logging.getLogger("agentmail.bridge.keys")

Source = Literal["environment", "file", "generated", "enrolment"]


@dataclass(frozen=True, slots=True)
class AgentKey:
    secret: str
    source: Source
    path: Path  # the key file: where an enrolment's permanent key goes

    @property
    def sha256(self) -> str:
        """What an admin registers (`key_sha256`); safe to log."""
        return hashlib.sha256(self.secret.encode("utf-8")).hexdigest()

    def __repr__(self) -> str:  # never the secret, even in a traceback
        return f"AgentKey(source={self.source!r}, sha256={self.sha256[:12]}…, path={self.path})"


def key_directory(environ: Mapping[str, str] = os.environ) -> Path:
    configured = environ.get(KEY_DIR_ENV, "").strip()
    return Path(configured).expanduser() if configured else Path.home() / ".agentmail"


def load_key(environ: Mapping[str, str] = os.environ) -> AgentKey:
    """The key this agent uses now (see the module docstring for the order)."""
    path = key_directory(environ) / KEY_FILE
    given = environ.get(KEY_ENV, "").strip()
    if given:
        return AgentKey(given, "environment", path)
    if path.exists():
        return AgentKey(_read_key_file(path), "file", path)
    enrolment = environ.get(ENROLMENT_ENV, "").strip()
    if enrolment:
        return AgentKey(enrolment, "enrolment", path)
    secret = KEY_PREFIX + secrets.token_urlsafe(32)
    try:
        _write_key_file(path, secret, exclusive=True)
    except FileExistsError:  # another process of this agent generated one just now
        return AgentKey(_read_key_file(path), "file", path)
    key = AgentKey(secret, "generated", path)
    _log.warning(
        "generated a new agent key in %s; an admin registers it by its SHA-256 "
        "(the key itself never leaves this host): key_sha256=%s",
        path,
        key.sha256,
    )
    return key


def store_permanent_key(enrolment: AgentKey, permanent: str) -> AgentKey:
    """Keep the permanent key an enrolment returned; later starts read it from the file."""
    _write_key_file(enrolment.path, permanent, exclusive=False)
    _log.info("enrolled: the permanent agent key is stored in %s", enrolment.path)
    return AgentKey(permanent, "file", enrolment.path)


def _read_key_file(path: Path) -> str:
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        _log.warning("%s is readable by others (mode %o): setting it to 0600", path, mode)
        path.chmod(0o600)
    secret = path.read_text(encoding="utf-8").strip()
    if not secret:
        raise ValueError(f"the key file {path} is empty: remove it to generate a new key")
    return secret


def _write_key_file(path: Path, secret: str, *, exclusive: bool) -> None:
    """Written 0600 from the first byte (no window where it is world-readable), then
    fsync'd and renamed into place, so a crash leaves the old key or the new one."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(descriptor, (secret + "\n").encode("utf-8"))
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
    try:
        if exclusive:
            os.link(temporary, path)  # fails if another process made one meanwhile
        else:
            os.replace(temporary, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()
