"""The peers a user would compare the gateway with, installed by the bench itself.

- **maildev 3.0.0** (Node): a mail catcher that takes SMTP and keeps each message in
  a file, unsynced. `smtp_ingest.py` sends it the same client load as the gateway.
- **agent-inbox 0.34.0** (PyPI): a SQLite (WAL) mailbox for agents over HTTP.
  `rest_loop.py` drives its send endpoint, `POST /actors/{name}/outbox`, with the
  same load generator as the gateway. No release installs on Python 3.11 (0.34.0
  and older need 3.12, newer ones 3.14), so it gets a virtualenv of its own made
  with a Python >= 3.12 found on the machine.

Both go into `bench/.peers/` (git-ignored), once; later runs reuse them. Every
install step prints what it does, since the first one takes a minute.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
from pathlib import Path

from _report import console

BENCH_DIR = Path(__file__).resolve().parent
PEERS_DIR = BENCH_DIR / ".peers"
MAILDEV_VERSION = "3.0.0"
AGENT_INBOX_VERSION = "0.34.0"


def _run(step: str, argv: list[str]) -> None:
    console.print(f"peer install: {step} …")
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{step} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")


def maildev_command() -> list[str] | None:
    """`node …/maildev.js`, installed from npm on first use; None (with the reason
    printed) when node or npm is missing or the install failed."""
    prefix = PEERS_DIR / f"maildev-{MAILDEV_VERSION}"
    script = prefix / "node_modules" / "maildev" / "dist" / "bin" / "maildev.js"
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        console.print("peer skipped: maildev needs node and npm on PATH")
        return None
    if not script.exists():
        prefix.mkdir(parents=True, exist_ok=True)
        install = [npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund"]
        try:
            _run(
                f"npm install maildev@{MAILDEV_VERSION} into {prefix}",
                [*install, f"maildev@{MAILDEV_VERSION}"],
            )
        except RuntimeError as error:
            console.print(f"peer skipped: {error}")
            return None
        console.print(f"peer install: maildev {MAILDEV_VERSION} ready")
    return [node, str(script)]


def python_312_or_newer() -> str | None:
    """A Python >= 3.12 on this machine: this one, one on PATH, or one pyenv installed."""
    if sys.version_info >= (3, 12):
        return sys.executable
    candidates = [shutil.which(f"python3.{minor}") for minor in range(12, 20)]
    pyenv = os.environ.get("PYENV_ROOT", str(Path.home() / ".pyenv"))
    candidates += sorted(glob.glob(f"{pyenv}/versions/3.1[2-9]*/bin/python3"), reverse=True)
    for candidate in candidates:
        if not candidate:
            continue
        probe = [candidate, "-c", "import sys; sys.exit(sys.version_info < (3, 12))"]
        if subprocess.run(probe, capture_output=True, check=False).returncode == 0:
            return candidate
    return None


def agent_inbox_python() -> str | None:
    """The Python of agent-inbox's own virtualenv, made on first use; None (with the
    reason printed) when there is no Python >= 3.12 or the install failed."""
    venv = PEERS_DIR / f"agent-inbox-{AGENT_INBOX_VERSION}"
    python = venv / "bin" / "python"
    ready = venv / ".installed"
    if ready.exists():
        return str(python)
    base = python_312_or_newer()
    if base is None:
        console.print("peer skipped: no Python ≥ 3.12")
        return None
    try:
        _run(f"virtualenv {venv} with {base}", [base, "-m", "venv", "--clear", str(venv)])
        pip = [str(python), "-m", "pip", "install", "-q", f"agent-inbox=={AGENT_INBOX_VERSION}"]
        _run(f"pip install agent-inbox=={AGENT_INBOX_VERSION} (its own venv)", pip)
    except RuntimeError as error:
        console.print(f"peer skipped: {error}")
        return None
    ready.touch()
    console.print(f"peer install: agent-inbox {AGENT_INBOX_VERSION} ready")
    return str(python)
