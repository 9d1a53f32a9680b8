"""`opencode serve` as the bridge's child: started once, restarted if it died.

One server serves every workspace (each request names its `directory`). It listens
on loopback behind HTTP basic auth (`OPENCODE_SERVER_PASSWORD`): whoever can drive
it can run shell commands, so no other local process may. It never outlives the
bridge: on Linux it is started under `setpriv --pdeathsig KILL`, so when the bridge
dies, even by SIGKILL, the kernel kills opencode too, and no orphan goes on working
on a turn nobody is watching (or holding a permission prompt nobody will answer).
Its pending prompts die with it; the platform finds that out (`generation` changed,
the request is not in `GET /permission`) and runs the turn again with the decision.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path

import httpx

from bridges.platforms.opencode.config import SECRET_ENV
from bridges.platforms.opencode.settings import OpencodeSettings

_log = logging.getLogger("agentmail.bridge.opencode")
_LISTENING = re.compile(rb"listening on (http://\S+)")


class OpencodeServer:
    def __init__(
        self,
        settings: OpencodeSettings,
        config_path: Path,
        log_path: Path,
        environ: Mapping[str, str],
    ) -> None:
        self.settings = settings
        self.config_path = config_path
        self.log_path = log_path
        self._environ = environ
        self._process: asyncio.subprocess.Process | None = None
        self._drain: asyncio.Task[None] | None = None
        self._http: httpx.AsyncClient | None = None
        self._lock = asyncio.Lock()
        self.generation = 0  # +1 at every start: prompts of an older generation are gone
        self.url = ""

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.returncode is None

    async def http(self) -> httpx.AsyncClient:
        """The client of a running server (started, or started again, if need be)."""
        async with self._lock:
            if not self.running or self._http is None:
                await self._start()
            assert self._http is not None
            return self._http

    async def _start(self) -> None:
        await self._stop()
        env = {k: v for k, v in self._environ.items() if k not in SECRET_ENV}
        env.update(
            OPENCODE_CONFIG=str(self.config_path),
            OPENCODE_SERVER_PASSWORD=self.settings.password,
            OPENCODE_DISABLE_AUTOUPDATE="1",
            OPENCODE_DISABLE_SHARE="1",
        )
        argv = [self.settings.binary, "serve", "--hostname", "127.0.0.1"]
        argv += ["--port", str(self.settings.port)]
        if sys.platform == "linux" and (setpriv := shutil.which("setpriv")):
            argv = [setpriv, "--pdeathsig", "KILL", "--", *argv]
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("ab") as log:
            self._process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=log,
                env=env,
                cwd=self.config_path.parent,
            )
        assert self._process.stdout is not None
        try:
            async with asyncio.timeout(self.settings.start_timeout):
                self.url = await _listening(self._process.stdout)
        except (TimeoutError, EOFError) as error:
            await self._stop()
            raise RuntimeError(
                f"opencode serve did not start ({type(error).__name__}); see {self.log_path}"
            ) from error
        self._drain = asyncio.create_task(_drain(self._process.stdout))
        self._http = httpx.AsyncClient(
            base_url=self.url,
            auth=("opencode", self.settings.password),
            timeout=httpx.Timeout(30.0),
        )
        self.generation += 1
        _log.info("opencode serve on %s (pid %s)", self.url, self._process.pid)

    async def _stop(self) -> None:
        if self._http is not None:
            await self._http.aclose()
            self._http = None
        if self._drain is not None:
            self._drain.cancel()
            self._drain = None
        process, self._process = self._process, None
        if process is None or process.returncode is not None:
            return
        process.terminate()
        try:
            async with asyncio.timeout(10):
                await process.wait()
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()

    async def close(self) -> None:
        async with self._lock:
            await self._stop()


async def _listening(stdout: asyncio.StreamReader) -> str:
    while True:
        line = await stdout.readline()
        if not line:
            raise EOFError("opencode ended before it listened")
        if match := _LISTENING.search(line):
            return match.group(1).decode().rstrip("/")


async def _drain(stdout: asyncio.StreamReader) -> None:
    """opencode says little on stdout; read it so a full pipe never blocks it."""
    while line := await stdout.readline():
        _log.debug("opencode: %s", line.decode(errors="replace").rstrip())
