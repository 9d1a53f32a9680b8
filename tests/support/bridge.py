"""A bridge as a real child process — on the stub platform (`python -m bridges.runtime`)
or a real one (`python -m gateway bridge PLATFORM`) — so tests can SIGKILL it mid-turn
and start it again on the same data dir."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from pathlib import Path


class BridgeProcess:
    def __init__(
        self,
        url: str,
        key: str,
        data_dir: Path,
        workspace: Path,
        *,
        platform: str = "stub",
        name: str = "builder",
        **env: str,
    ) -> None:
        self.platform, self.name = platform, name
        self.ready = f"bridge {name} ready".encode()
        self.env = {
            **os.environ,
            "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
            "AGENTMAIL_URL": url,
            "AGENTMAIL_AGENT_KEY": key,
            "AGENTMAIL_BRIDGE_DATA_DIR": str(data_dir),
            **env,
        }
        self.workspace = workspace
        # Seconds `start` waits for `ready`: a bound for a real platform starting on a
        # busy machine (a bridge that ends meanwhile fails at once).
        self.ready_timeout = 120.0
        self.process: asyncio.subprocess.Process | None = None
        self.log_path = data_dir.parent / "bridge.log"
        self._offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        self._launched = self._offset

    async def start(self) -> None:
        """Start and wait until it is subscribed and caught up (its log says `ready`)."""
        await self.launch()
        await self.wait_ready()

    async def launch(self) -> None:
        """Start the process, not waiting for it (a gateway that is down, say).

        Its log goes to a file, not a pipe: the platform's workers inherit it, and a
        pipe held open by a worker would keep `wait()` from returning after a kill.
        """
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._launched = self.log_path.stat().st_size if self.log_path.exists() else 0
        runner = (
            ["bridges.runtime"] if self.platform == "stub" else ["gateway", "bridge", self.platform]
        )
        with self.log_path.open("ab") as log:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                *runner,
                "--name",
                self.name,
                "--workspace",
                f"root={self.workspace}",
                stderr=log,
                env=self.env,
            )

    def log(self) -> str:
        """What the process has logged since its last launch."""
        return self.log_path.read_bytes()[self._launched :].decode(errors="replace")

    async def wait_ready(self, timeout: float | None = None) -> None:
        assert self.process is not None
        async with asyncio.timeout(timeout or self.ready_timeout):
            while self.ready not in self.log_path.read_bytes()[self._offset :]:
                if self.process.returncode is not None:
                    raise AssertionError(f"the bridge ended: {self.log_path.read_text()}")
                await asyncio.sleep(0.05)
        self._offset = self.log_path.stat().st_size

    async def kill(self) -> None:
        """SIGKILL: no clean-up, as when a host dies."""
        assert self.process is not None
        with contextlib.suppress(ProcessLookupError):
            self.process.send_signal(signal.SIGKILL)
        await self.process.wait()

    async def stop(self) -> None:
        if self.process is not None and self.process.returncode is None:
            self.process.terminate()
            try:
                async with asyncio.timeout(15):
                    await self.process.wait()
            except TimeoutError:
                await self.kill()


async def held(until: asyncio.Event) -> None:
    """Hold a model request until `until` (at most a minute: a bridge that never gets
    there fails the test's assertions, not its timeout)."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(60):
            await until.wait()


def file_text(path: Path) -> str:
    """The file's text, or "" while it does not exist."""
    return path.read_text() if path.exists() else ""


async def appears(path: Path) -> str:
    """The file's text once a worker has written it (a few bytes: read on the loop)."""
    async with asyncio.timeout(60):
        while not (text := file_text(path)):
            await asyncio.sleep(0.02)
    return text
