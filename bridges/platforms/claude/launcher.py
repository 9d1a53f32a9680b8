"""Claude Code's CLI, started so that it ends with its bridge.

Claude Code ends when its stdin closes — but only between steps: a CLI waiting for the
model's answer outlives a bridge killed under it, and when the answer comes it goes on
with the turn on its own (tools it may use, writes to the session's transcript) while
the restarted bridge resumes the same session in a new process: two owners of one
session (seeds 003: a worker's exit must be its release). So the CLI is started
through a launcher that asks the kernel to send it SIGTERM when its parent dies
(prctl PR_SET_PDEATHSIG, Linux), then becomes the CLI (exec keeps that setting).
SIGTERM, not SIGKILL: Claude Code then ends the commands it runs, too. A launcher
whose bridge died before the prctl took effect (its parent is no longer the bridge)
exits at once. Elsewhere than Linux the CLI is started as it is.

claude-agent-sdk starts `cli_path` with no hook into the child, so the launcher is a
small script of its own, written into the bridge's data dir at start.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import claude_agent_sdk

_SCRIPT = """#!{python} -IS
import ctypes, os, signal, sys
PR_SET_PDEATHSIG = 1
ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
if os.getppid() != {bridge}:  # the bridge died before the prctl: end with it
    sys.exit(1)
os.execv({cli!r}, [{cli!r}, *sys.argv[1:]])
"""


def claude_cli(configured: str | None) -> str | None:
    """The CLI the SDK would run: the configured one, the bundled one, `claude` on PATH."""
    if configured:
        return configured
    bundled = Path(claude_agent_sdk.__file__).parent / "_bundled" / "claude"
    return str(bundled) if bundled.is_file() else shutil.which("claude")


def launcher(directory: Path, configured: str | None) -> str | None:
    """The path to start Claude Code with (the launcher on Linux), or None: the SDK's own."""
    cli = claude_cli(configured)
    if cli is None or not sys.platform.startswith("linux"):
        return configured
    script = _SCRIPT.format(python=sys.executable, bridge=os.getpid(), cli=cli)
    path = directory / "claude-launcher"
    directory.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".new")
    temporary.write_text(script, encoding="utf-8")
    temporary.chmod(0o700)
    os.replace(temporary, path)
    return str(path)
