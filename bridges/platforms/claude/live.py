"""One Claude Code session at work on a turn: a Claude Code process, owned by one task.

claude-agent-sdk's client must be used inside the task that connected it (it holds
an anyio task group from `connect` to `disconnect`), while the runtime calls
`run_turn` once per step of a turn from different tasks: the first call, then one
per decision. So a `Live` runs the whole conversation with Claude Code in a task of
its own and talks to `run_turn` through a queue: it puts each `Ask`, `Question` or
`Final` there, and a prompt waits in `can_use_tool` on a future that `answer`
resolves. Between the two the turn is parked: the Claude Code process waits, but
no `run_turn` call (and no worker slot) does.

`stop` cancels through an anyio cancel scope, not a bare `Task.cancel()`: the SDK
shields its clean-up from anyio cancellation only, and that clean-up is what
closes, terminates and at last kills the Claude Code process.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from claude_agent_sdk import (
    AssistantMessage,
    CanUseTool,
    ClaudeAgentOptions,
    ClaudeSDKClient,
    HookCallback,
    HookContext,
    HookInput,
    HookJSONOutput,
    PermissionResult,
    PermissionResultAllow,
    PermissionResultDeny,
    ResultMessage,
    SystemMessage,
    TextBlock,
    ToolPermissionContext,
)

from bridges.platforms.claude.decisions import ALLOWING, Presets, permission_result
from bridges.platforms.claude.prompts import (
    ASK_USER,
    action_of,
    answered,
    question_of,
    questions_of,
)
from bridges.runtime.platform import ANSWER, Ask, Final, Question, Resume, TurnResult

_log = logging.getLogger("agentmail.bridge.claude")
Options = Callable[[CanUseTool, HookCallback], ClaudeAgentOptions]
OnSession = Callable[[str], Awaitable[None]]
AfterResult = Callable[[ClaudeSDKClient, str], Awaitable[None]]


class Live:
    def __init__(
        self,
        options: Options,
        prompt: str,
        *,
        grants: set[str],
        presets: Presets,
        on_session: OnSession,
        after_result: AfterResult | None = None,
    ) -> None:
        self._options = options
        self._prompt = prompt
        self._grants = grants  # actions allowed without asking (and "always" given here)
        self._presets = presets
        self._on_session = on_session
        self._after_result = after_result
        self._results: asyncio.Queue[TurnResult | BaseException] = asyncio.Queue()
        self._waiting: dict[str, asyncio.Future[Resume]] = {}
        # Each prompt's words for a restart: the action, or the question as asked.
        self.asked: dict[str, str] = {}
        self._notes: dict[str, str] = {}  # tool call → the note its approval came with
        self._scope: anyio.CancelScope | None = None
        self._task = asyncio.create_task(self._drive(), name="claude code session")

    # -- for run_turn ---------------------------------------------------------------

    async def next_result(self) -> TurnResult:
        """The next step's end: a prompt for the human, or the turn's final answer."""
        item = await self._results.get()
        if isinstance(item, BaseException):
            raise item
        return item

    def waiting_for(self, request_id: str) -> bool:
        """True while this session's prompt `request_id` can still be answered here."""
        return not self._task.done() and request_id in self._waiting

    def answer(self, resume: Resume) -> None:
        future = self._waiting.pop(resume.request_id)
        if not future.done():
            future.set_result(resume)

    async def stop(self) -> None:
        """End the session and its Claude Code process (the turn is over or killed)."""
        if self._scope is not None:
            self._scope.cancel()
        else:
            self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._task

    # -- the session's own task -------------------------------------------------------

    async def _drive(self) -> None:
        try:
            with anyio.CancelScope() as scope:
                self._scope = scope
                final = await self._converse()
            if not scope.cancel_called:
                self._results.put_nowait(final)
        except Exception as error:  # reported to run_turn, which answers the human
            self._results.put_nowait(error)

    async def _converse(self) -> Final:
        session_id = ""
        last_text = ""
        result: ResultMessage | None = None
        async with ClaudeSDKClient(self._options(self._can_use_tool, self._after_tool)) as client:
            await client.query(self._prompt)
            async for message in client.receive_response():
                if isinstance(message, SystemMessage) and message.subtype == "init":
                    session_id = str(message.data.get("session_id") or "")
                    if session_id:
                        await self._on_session(session_id)
                elif isinstance(message, AssistantMessage):
                    text = "".join(b.text for b in message.content if isinstance(b, TextBlock))
                    last_text = text or last_text
                elif isinstance(message, ResultMessage):
                    result = message
                    session_id = message.session_id or session_id
            if self._after_result is not None and session_id and result and not result.is_error:
                try:
                    await self._after_result(client, session_id)
                except Exception:  # naming is a courtesy: never fail the turn for it
                    _log.exception("syncing the title of Claude Code session %s", session_id)
        return Final(_final_body(result, last_text))

    async def _can_use_tool(
        self, tool: str, arguments: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResult:
        call_id = context.tool_use_id or uuid.uuid4().hex
        if tool == ASK_USER:
            return await self._questions(call_id, arguments)
        action = action_of(tool, arguments)
        if action in self._grants:
            return PermissionResultAllow()
        preset = self._presets.actions.pop(action, None)
        if preset is not None:
            return preset
        ask = Ask(call_id, action, question_of(tool, arguments, context.title))
        resume = await self._wait(ask, action)
        if resume.decision in ALLOWING and resume.decision != "approve":
            self._grants.add(action)  # "always allow": not asked again in this session
        if resume.decision in ALLOWING and resume.note:
            self._notes[call_id] = resume.note
        return permission_result(resume)

    async def _after_tool(
        self, hook_input: HookInput, tool_use_id: str | None, context: HookContext
    ) -> HookJSONOutput:
        """An approval's note, beside the tool's result (Claude Code's "allow" carries no
        message, a PostToolUse hook's `additionalContext` does)."""
        note = self._notes.pop(tool_use_id or "", None)
        if note is None:
            return {}
        return {
            "hookSpecificOutput": {
                "hookEventName": "PostToolUse",
                "additionalContext": f'The human approved this call with a note: "{note}"',
            }
        }

    async def _questions(self, call_id: str, arguments: dict[str, Any]) -> PermissionResult:
        """Each question of one AskUserQuestion call, one mail after the other."""
        answers: dict[str, str] = {}
        for index, asked in enumerate(questions_of(arguments)):
            preset = self._presets.answers.pop(asked.text, None)
            if preset is not None:
                answers[asked.text] = preset
                continue
            question = Question(f"{call_id}.{index}", asked.body, asked.options)
            resume = await self._wait(question, asked.text)
            if resume.decision != ANSWER:
                return PermissionResultDeny(message="The human did not answer.", interrupt=False)
            answers[asked.text] = resume.note or ""
        return PermissionResultAllow(updated_input=answered(arguments, answers))

    async def _wait(self, prompt: Ask | Question, words: str) -> Resume:
        future: asyncio.Future[Resume] = asyncio.get_running_loop().create_future()
        self._waiting[prompt.request_id] = future
        self.asked[prompt.request_id] = words
        self._results.put_nowait(prompt)
        try:
            return await future
        finally:
            self._waiting.pop(prompt.request_id, None)


def _final_body(result: ResultMessage | None, last_text: str) -> str:
    if result is None:
        return "Claude Code ended the turn without a result."
    if result.is_error:
        detail = "; ".join(result.errors or []) or result.result or result.subtype
        return f"Claude Code stopped with an error: {detail}"
    return (result.result or last_text).strip() or "(Claude Code finished without a word.)"
