"""The gateway as a real child process (`python -m gateway serve`), for tests that kill it.

An in-process gateway (tests/support/gateway.py) cannot be killed without killing
the test; a child process can be sent SIGKILL, so the writes in flight are cut
wherever they are, and restarted on the same data.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

ADMIN_PASSWORD = "admin-password"


def serve_env(database_url: str, data_dir: Path) -> dict[str, str]:
    """The environment of a gateway on `database_url` (SQLite file URL or PostgreSQL) with
    ports chosen by the OS, cheap bcrypt and a known admin password."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTMAIL_")}
    env.update(
        {
            "DATABASE_URL": database_url,
            "AGENTMAIL_DATA_DIR": str(data_dir),
            "AGENTMAIL_HTTP_PORT": "0",
            "AGENTMAIL_SMTP_PORT": "0",
            "AGENTMAIL_IMAP_PORT": "0",
            "AGENTMAIL_BCRYPT_ROUNDS": "4",
            "ADMIN_PASSWORD": ADMIN_PASSWORD,
        }
    )
    return env


@dataclass
class ServedGateway:
    process: asyncio.subprocess.Process
    http_port: int
    smtp_port: int
    imap_port: int
    host: str = "127.0.0.1"  # the address it binds (AGENTMAIL_HOST)
    _drain: asyncio.Task[None] | None = field(default=None, repr=False)

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.http_port}"

    http_url = base_url  # the name tests.support.gateway.Api reads, as on a Gateway

    async def kill(self) -> None:
        """SIGKILL: no shutdown, no flush — the machine "crashes"."""
        if self.process.returncode is None:
            self.process.kill()
        await self.process.wait()

    async def logged(self) -> None:
        """Wait until everything the process wrote is in its log (it has exited)."""
        await self.process.wait()
        if self._drain is not None:
            async with asyncio.timeout(30):
                await self._drain

    async def stop(self) -> int:
        """SIGTERM, the orderly shutdown; returns the exit status."""
        if self.process.returncode is None:
            self.process.terminate()
        async with asyncio.timeout(30):
            return await self.process.wait()


async def serve(
    env: dict[str, str],
    *args: str,
    log: Path | None = None,
    program: Sequence[str | Path] = (sys.executable, "-m", "gateway"),
    cwd: Path | None = None,
) -> ServedGateway:
    """Start `agentmail serve ARGS` and wait for its banner, which names the ports it
    bound (with `--workers`, the supervisor's); the output goes to `log` (else nowhere).
    `program` is the command before `serve` (an installed `agentmail`, say)."""
    process = await asyncio.create_subprocess_exec(
        *program,
        "serve",
        *args,
        env=env,
        cwd=cwd,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    assert process.stdout is not None
    try:
        text = await read_banner(process, "log in as")
    except BaseException:
        # Not started in time (or the test was cancelled): never leave it running, on
        # ports a later test or another run would find taken.
        if process.returncode is None:
            process.kill()
            await process.wait()
        raise
    http = re.search(r"http://([\d.]+):(\d+)/", text)
    smtp = re.search(r"SMTP\s+[\d.]+:(\d+)", text)
    imap = re.search(r"IMAP\s+[\d.]+:(\d+)", text)
    assert http and smtp and imap, text
    ports = int(http.group(2)), int(smtp.group(1)), int(imap.group(1))
    served = ServedGateway(process, *ports, host=http.group(1))
    # The banner is all we read; later output must not fill the pipe and block the child.
    served._drain = asyncio.create_task(_drain(process.stdout, log, text))
    return served


async def read_banner(process: asyncio.subprocess.Process, until: str) -> str:
    """`serve`'s output up to the line holding `until`: its banner, naming the ports."""
    assert process.stdout is not None
    text = ""
    async with asyncio.timeout(60):
        while until not in text:
            line = (await process.stdout.readline()).decode()
            assert line, f"serve ended early: {text}"
            text += line
    return text


async def _drain(stream: asyncio.StreamReader, log: Path | None, banner: str) -> None:
    if log is None:
        while await stream.read(65536):
            pass
        return
    with log.open("a", encoding="utf-8") as sink:
        sink.write(banner)
        while chunk := await stream.read(65536):
            sink.write(chunk.decode(errors="replace"))
            sink.flush()
