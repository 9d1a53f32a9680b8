"""The pi platform: one `pi --mode rpc` process per conversation's turn.

A turn takes a pi in the addressed workspace (launcher.py: the spare started ahead,
or a new one) on the conversation's session file, prompts it with the runtime's
notification and reads its events (turn.py). pi stays alive while the turn is
parked for a human (its dialog open, the worker slot free) and ends with the turn:
its exit is the conversation's release (seeds 003: one conversation, one owner of
its session file; a crash or OOM of one pi never takes the bridge or another
conversation with it). At the hard timeout the runtime cancels `run_turn`, and pi
is killed with everything it started.

If the bridge restarted while a human decided, pi's dialog is gone with the old
process: the turn runs again on the same session file with the decision in its
prompt and applied when pi asks for that action again.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path

from bridges.platforms.pi.dialogs import restarted_note
from bridges.platforms.pi.launcher import Launcher
from bridges.platforms.pi.naming import sync_title
from bridges.platforms.pi.rpc import PiEnded, PiProcess
from bridges.platforms.pi.sessions import SessionMap
from bridges.platforms.pi.settings import PiSettings
from bridges.platforms.pi.turn import Decided, TurnDriver
from bridges.runtime.platform import Final, PlatformContext, Turn, TurnResult
from bridges.tools.catalog import TOOLS
from bridges.tools.definition import AgentIdentity, ToolContext

_log = logging.getLogger("agentmail.bridge.pi")


@dataclass
class _Live:
    pi: PiProcess
    driver: TurnDriver


class PiPlatform:
    name = "pi"

    def __init__(self, context: PlatformContext, settings: PiSettings) -> None:
        self.context = context
        self.settings = settings
        self.directory = context.data_dir / "pi"
        identity = AgentIdentity(context.agent_name, tuple(context.workspaces), "pi")
        roots = tuple(Path(path) for _, path in context.workspaces)
        self.tools = ToolContext(context.client, roots, identity)
        self.sessions: SessionMap
        self.launcher: Launcher
        self._live: dict[str, _Live] = {}  # conversation → its pi, while a turn is parked

    async def start(self) -> None:
        self.sessions = await SessionMap.open(self.directory)
        catalog = [
            {"name": tool.name, "description": tool.description, "input_schema": tool.input_schema}
            for tool in TOOLS
        ]
        tools = self.directory / "tools.json"
        tools.write_text(json.dumps(catalog, ensure_ascii=False))
        environ = self.context.environ
        self.launcher = Launcher(self.settings, environ, tools, self.sessions.files)
        for _, path in self.context.workspaces:
            self.launcher.spares.prepare(path)

    async def close(self) -> None:
        for live in self._live.values():
            live.driver.cancel()
            await live.pi.stop()
        self._live.clear()
        await self.launcher.close()

    async def run_turn(self, turn: Turn) -> TurnResult:
        live = self._live.pop(turn.session_id, None)
        waiting = live.driver.waiting if live else None
        try:
            if (
                live
                and turn.resume
                and waiting
                and waiting.prompt.request_id == turn.resume.request_id
            ):
                live.driver.resume(turn.resume)
            else:
                if live is not None:  # a parked pi whose prompt is not the one answered
                    await live.pi.stop()
                live = await self._begin(turn)
            result = await live.driver.drive()
        except PiEnded as ended:
            _log.error("the turn for %s failed: %s", turn.mail_id, ended)
            if live is not None:
                await live.pi.stop()
            self.sessions.state(turn.session_id).open = None
            await self.sessions.save()
            return Final(f"pi could not finish this turn: {ended}. See the bridge's log.")
        except BaseException:  # the hard timeout (cancelled), or a bug: nothing may keep running
            if live is not None:
                live.driver.cancel()
                await live.pi.stop()
            raise
        state = self.sessions.state(turn.session_id)
        if isinstance(result, Final):
            state.open = None
            await sync_title(self.context.client, live.pi, turn.session_id, state)
            await live.pi.close()
        else:
            state.open = live.driver.waiting.prompt if live.driver.waiting else None
            self._live[turn.session_id] = live
        await self.sessions.save()
        return result

    async def _begin(self, turn: Turn) -> _Live:
        state = self.sessions.state(turn.session_id)
        prompt, decided = turn.prompt, []
        if turn.resume is not None and state.open is not None:
            opened = state.open
            if opened.request_id == turn.resume.request_id:
                prompt = f"{restarted_note(opened.kind, opened.text, turn.resume)}\n\n{prompt}"
                if opened.kind == "permission":
                    decided.append(Decided(opened.text, turn.resume))
        pi = await self.launcher.open(turn.cwd, state.file)
        try:
            if state.file is None:  # a new conversation: the file pi named for it
                got = await pi.command("get_state")
                state.file = (got.get("data") or {}).get("sessionFile")
                await self.sessions.save()
            answer = await pi.command("prompt", message=prompt)
        except BaseException:
            await pi.stop()
            raise
        if not answer.get("success"):
            await pi.stop()
            raise PiEnded(f"pi refused the prompt: {answer.get('error')}")
        return _Live(pi, TurnDriver(pi, self.tools, turn.cwd, set(turn.grants), decided))


def create(context: PlatformContext) -> PiPlatform:
    return PiPlatform(context, PiSettings.from_environment(context.environ))
