"""Claude Code as an AgentMail platform, through claude-agent-sdk.

A turn is a Claude Code session (`Live`: one CLI process) started for the mail in
the addressed workspace. Conversations map to Claude Code sessions (`Memory`), so
the next mail of a conversation resumes the same session (`resume=`) and the model
sees the whole conversation so far. Claude Code's own permission prompts and its
AskUserQuestion reach `can_use_tool`, and come out of `run_turn` as `Ask` and
`Question`; the session waits in that call while the turn is parked, and the
decision, when `run_turn` is called again with it, is that call's answer.

After a restart no session waits any more: the decision is given to the resumed
session in words, and the same tool call is answered from it when the model makes
it again (decisions.py). A re-run after an interruption resumes the session too,
with the runtime's note that the previous turn was cut short.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from functools import partial
from pathlib import Path

from claude_agent_sdk import (
    CanUseTool,
    ClaudeAgentOptions,
    ClaudeSDKClient,
    HookCallback,
    get_session_info,
)

from bridges.platforms.claude import naming
from bridges.platforms.claude.decisions import Presets, after_restart
from bridges.platforms.claude.launcher import launcher
from bridges.platforms.claude.live import Live
from bridges.platforms.claude.memory import Memory, PromptRecord, SessionRecord
from bridges.platforms.claude.options import mail_tools, options_for
from bridges.platforms.claude.settings import ClaudeSettings
from bridges.runtime.platform import Ask, Final, PlatformContext, Turn, TurnResult
from bridges.tools.definition import AgentIdentity, ToolContext

_log = logging.getLogger("agentmail.bridge.claude")


class ClaudePlatform:
    name = "claude"

    def __init__(self, context: PlatformContext, settings: ClaudeSettings) -> None:
        self.context = context
        self.settings = settings
        self._live: dict[str, Live] = {}  # conversation → its session at work
        self._titles: dict[str, str] = {}  # conversation → alias settled in this turn
        self._tools = ToolContext(
            context.client,
            tuple(Path(path) for _, path in context.workspaces),
            AgentIdentity(context.agent_name, tuple(context.workspaces), "claude"),
        )
        self.memory: Memory
        self._cli: str | None = None

    async def start(self) -> None:
        self.memory = await Memory.open(self.context.data_dir)
        await self.memory.compact()
        self._cli = launcher(self.context.data_dir, self.settings.cli_path)

    async def close(self) -> None:
        await asyncio.gather(*(live.stop() for live in self._live.values()))
        self._live.clear()

    async def run_turn(self, turn: Turn) -> TurnResult:
        live = self._live.get(turn.session_id)
        resume = turn.resume
        if resume is not None and live is not None and live.waiting_for(resume.request_id):
            live.answer(resume)
        else:
            if live is not None:  # ended underneath its prompt: start over from the transcript
                await live.stop()
            live = self._live[turn.session_id] = self._begin(turn)
        try:
            result = await live.next_result()
        except asyncio.CancelledError:  # the runtime's hard timeout: the work stops too
            await self._end(turn.session_id, live)
            raise
        except Exception as error:
            _log.exception("Claude Code failed on mail %s", turn.mail_id)
            await self._end(turn.session_id, live)
            return Final(f"Claude Code failed on this task: {error}")
        if isinstance(result, Final):
            await self._finished(turn, live)
        else:
            kind = "ask" if isinstance(result, Ask) else "question"
            text = live.asked[result.request_id]
            await self.memory.remember_prompt(
                PromptRecord(result.request_id, turn.session_id, kind, text)
            )
        return result

    def _begin(self, turn: Turn) -> Live:
        record = self.memory.session(turn.session_id)
        resumable = record is not None and record.cwd == turn.cwd and _exists(record)
        prompt, presets = turn.prompt, Presets()
        if turn.resume is not None:  # decided while no session waited (a restart)
            words, presets = after_restart(turn.resume, self.memory.prompt(turn.resume.request_id))
            prompt = words if resumable else f"{turn.prompt}\n\n{words}"
        resume = record.session if resumable and record is not None else None

        def options(can_use_tool: CanUseTool, after_tool: HookCallback) -> ClaudeAgentOptions:
            return options_for(
                self.settings,
                cwd=turn.cwd,
                resume=resume,
                can_use_tool=can_use_tool,
                after_tool=after_tool,
                tools=mail_tools(self._tools),
                cli_path=self._cli,
            )

        untitled = self.settings.titles and (record is None or record.alias is None)
        return Live(
            options,
            prompt,
            grants=set(turn.grants),
            presets=presets,
            on_session=partial(self._session_started, turn),
            after_result=partial(self._title, turn) if untitled else None,
        )

    async def _session_started(self, turn: Turn, session_id: str) -> None:
        known = self.memory.session(turn.session_id)
        alias = known.alias if known is not None and known.session == session_id else None
        await self.memory.remember_session(
            SessionRecord(turn.session_id, session_id, turn.cwd, alias)
        )

    async def _title(self, turn: Turn, sdk: ClaudeSDKClient, session_id: str) -> None:
        """After the first turn: Claude Code's title, offered to the gateway (naming.py)."""
        mail = await self.context.client.read(turn.mail_id)
        title = await naming.generate_title(sdk, f"{mail.subject}\n\n{mail.body or ''}")
        if title is not None:
            alias = await naming.sync_title(self.context.client, turn.session_id, title)
            if alias:
                self._titles[turn.session_id] = alias

    async def _finished(self, turn: Turn, live: Live) -> None:
        await self._end(turn.session_id, live)
        if turn.resume is not None:
            await self.memory.forget_prompt(turn.resume.request_id)
        alias = self._titles.pop(turn.session_id, None)
        record = self.memory.session(turn.session_id)
        if alias and record is not None:  # the CLI has exited: its transcript is ours
            await asyncio.to_thread(naming.write_back, record.session, record.cwd, alias)
            await self.memory.remember_session(
                SessionRecord(record.conversation, record.session, record.cwd, alias)
            )

    async def _end(self, conversation: str, live: Live) -> None:
        if self._live.get(conversation) is live:
            del self._live[conversation]
        with contextlib.suppress(Exception):
            await live.stop()


def _exists(record: SessionRecord) -> bool:
    """Claude Code has the session's transcript (a process killed early may have none)."""
    return get_session_info(record.session, directory=record.cwd) is not None


def create(context: PlatformContext) -> ClaudePlatform:
    return ClaudePlatform(context, ClaudeSettings.from_environment(context.environ))
