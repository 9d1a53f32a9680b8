"""Starting pi for a turn: the command line, its environment, and the spare.

`pi --mode rpc` with the AgentMail extension, the model settings, and the session:
a conversation's own file (`--session FILE`), or, for a conversation pi has not seen
yet, a fresh session in the bridge's session dir (`--session-dir`), whose file pi
names. pi gets the bridge's environment without the agent's key (the model runs
commands; the mail tools run in the bridge), with start-up network calls off.

pi dies with its bridge: on Linux it is started under `setpriv --pdeathsig KILL`,
so a bridge killed by SIGKILL takes its pis along at once. Left alive, a pi would
go on with a turn nobody watches, and write an `EPIPE` stack trace into the
bridge's log when it answered on the closed pipe. The commands pi started detached
outlive it; the bridge's next start ends them (bridges/runtime/survivors.py).
"""

from __future__ import annotations

import logging
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path

from bridges.platforms.pi.rpc import PiEnded, PiProcess
from bridges.platforms.pi.settings import PiSettings
from bridges.platforms.pi.spares import Spares

EXTENSION = Path(__file__).with_name("extension") / "agentmail.ts"
_SECRETS = ("AGENTMAIL_AGENT_KEY", "AGENTMAIL_ENROLMENT_KEY")
_log = logging.getLogger("agentmail.bridge.pi")


class Launcher:
    def __init__(
        self, settings: PiSettings, environ: Mapping[str, str], tools: Path, sessions: Path
    ) -> None:
        self.settings = settings
        self.sessions = sessions
        self.environ = {k: v for k, v in environ.items() if k not in _SECRETS}
        self.environ["AGENTMAIL_PI_TOOLS"] = str(tools)
        self.environ["AGENTMAIL_PI_GATED"] = ",".join(settings.gated)
        # A process per turn must not check for updates or report installs each time.
        self.environ.setdefault("PI_OFFLINE", "1")
        self.spares = Spares(self._fresh, settings.spare)

    async def open(self, cwd: str, file: str | None) -> PiProcess:
        """A pi for one turn in `cwd`, on the conversation's session `file` (None: new)."""
        pi = await self.spares.take(cwd)
        if pi is None:
            return await self._fresh(cwd, file)
        if file is None:
            return pi
        try:
            switched = await pi.command("switch_session", sessionPath=file)
        except BaseException:
            await pi.stop()
            raise
        if not switched.get("success") or (switched.get("data") or {}).get("cancelled"):
            await pi.stop()
            _log.warning("the spare pi could not switch to %s: %s", file, switched.get("error"))
            return await self._fresh(cwd, file)
        return pi

    async def _fresh(self, cwd: str, file: str | None = None) -> PiProcess:
        session = ["--session", file] if file else ["--session-dir", str(self.sessions)]
        pi = await PiProcess.spawn(self._argv(session), cwd, self.environ)
        try:
            started = await pi.command("get_state")  # answers once pi has started
        except BaseException:
            await pi.stop()
            raise
        if not started.get("success"):
            await pi.stop()
            raise PiEnded(f"pi did not start: {started.get('error')}")
        return pi

    def _argv(self, session: list[str]) -> list[str]:
        argv = [self.settings.binary, "--mode", "rpc", *session, "--extension", str(EXTENSION)]
        if self.settings.provider:
            argv += ["--provider", self.settings.provider]
        if self.settings.model:
            argv += ["--model", self.settings.model]
        argv += list(self.settings.arguments)
        # (A missing binary is left to fail as itself: a clear "could not be started".)
        if (
            sys.platform == "linux"
            and shutil.which(argv[0])
            and (setpriv := shutil.which("setpriv"))
        ):
            argv = [setpriv, "--pdeathsig", "KILL", "--", *argv]
        return argv

    async def close(self) -> None:
        await self.spares.close()
