"""One turn of pi, read from its event stream until it ends or waits for a human.

The driver answers pi's dialogs as they come: a gated tool call that the
conversation's grants (or a decision taken before a restart) cover is allowed at
once; one that is not parks the turn (`Ask`), with pi still running and its dialog
open, until `resume` answers it. Mail tool calls run beside the stream (each in its
own task, so a slow one, or `request_permission` waiting for a human, never stops
the reading). `agent_end` ends the turn with its last assistant text.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from bridges.platforms.pi.dialogs import (
    ALWAYS_DECISIONS,
    APPROVING,
    DIALOGS,
    NOTE,
    PERMISSION,
    TOOL,
    action_of,
    answer_fields,
    final_text,
    question_for,
    question_text,
    refusal,
)
from bridges.platforms.pi.rpc import Message, PiProcess
from bridges.platforms.pi.sessions import OpenPrompt
from bridges.runtime.platform import Ask, Final, Question, Resume, TurnResult
from bridges.tools.catalog import call_tool
from bridges.tools.definition import ToolContext, ToolError

_log = logging.getLogger("agentmail.bridge.pi")


@dataclass
class Decided:
    """A decision taken while pi was down: applied when pi asks for that action again."""

    action: str
    resume: Resume


@dataclass
class _Waiting:
    prompt: OpenPrompt
    dialog: str  # pi's id of the open dialog
    method: str
    call_id: str = ""


@dataclass
class TurnDriver:
    pi: PiProcess
    tools: ToolContext
    cwd: str
    grants: set[str]  # allowed without asking: the conversation's grants, and "always" here
    decided: list[Decided] = field(default_factory=list)
    waiting: _Waiting | None = None
    _notes: dict[str, str] = field(default_factory=dict)  # toolCallId → why it was refused
    _asked: Counter[str] = field(default_factory=Counter)
    _calls: set[asyncio.Task[None]] = field(default_factory=set)

    async def drive(self) -> TurnResult:
        while True:
            event = await self.pi.next_event()
            kind = event.get("type")
            if kind == "extension_ui_request" and event.get("method") in DIALOGS:
                parked = self._dialog(event)
                if parked is not None:
                    return parked
            elif kind == "agent_end":
                return Final(final_text(event.get("messages")))
            elif kind == "extension_error":
                _log.warning(
                    "pi's extension failed in %s: %s", event.get("event"), event.get("error")
                )

    def resume(self, resume: Resume) -> None:
        """The human answered the dialog this turn waits on: pass it to pi."""
        waiting, self.waiting = self.waiting, None
        assert waiting is not None
        if waiting.prompt.kind == "question":
            self.pi.answer(waiting.dialog, **answer_fields(waiting.method, resume.note or ""))
            return
        self._permit(waiting.dialog, waiting.call_id, waiting.prompt.text, resume)

    def cancel(self) -> None:
        """The turn is over without an answer (killed): its mail tool calls stop too."""
        for task in self._calls:
            task.cancel()

    # -- dialogs ------------------------------------------------------------------

    def _dialog(self, request: Message) -> Ask | Question | None:
        request_id, method, title = str(request["id"]), str(request["method"]), request.get("title")
        if title == PERMISSION:
            return self._permission(request_id, str(request.get("message") or "{}"))
        if title == NOTE:
            asked = _json(request.get("prefill"))
            note = self._notes.pop(str(asked.get("toolCallId", "")), "")
            self.pi.answer(request_id, value=note)
            return None
        if title == TOOL:
            task = asyncio.create_task(self._tool(request_id, _json(request.get("prefill"))))
            self._calls.add(task)
            task.add_done_callback(self._calls.discard)
            return None
        text = question_text(request)
        options = [str(option) for option in request.get("options") or []]
        prompt = OpenPrompt(self._request_id("question", text), "question", text)
        self.waiting = _Waiting(prompt, request_id, method)
        return Question(prompt.request_id, text, options)

    def _permission(self, request_id: str, message: str) -> Ask | None:
        asked = _json(message)
        tool, call_id = str(asked.get("tool", "")), str(asked.get("toolCallId", ""))
        action = action_of(tool, asked.get("input"))
        if action in self.grants:
            self.pi.answer(request_id, confirmed=True)
            return None
        for decided in self.decided:
            if decided.action == action:
                self.decided.remove(decided)
                self._permit(request_id, call_id, action, decided.resume)
                return None
        prompt = OpenPrompt(self._request_id("permission", action), "permission", action)
        self.waiting = _Waiting(prompt, request_id, "confirm", call_id)
        return Ask(prompt.request_id, action, question_for(tool, action))

    def _request_id(self, kind: str, text: str) -> str:
        """The same for the same prompt in a run of the turn again: the runtime's
        idempotency key (`ask:<mail>:<request>`) then finds the mail the first run sent
        — and the human's decision on it — instead of asking twice. (pi's dialog ids are
        random: a restarted pi would ask anew.)"""
        digest = hashlib.sha256(f"{kind}\n{text}".encode()).hexdigest()[:16]
        self._asked[digest] += 1
        return f"{digest}-{self._asked[digest]}"

    def _permit(self, request_id: str, call_id: str, action: str, resume: Resume) -> None:
        allowed = resume.decision in APPROVING
        if resume.decision in ALWAYS_DECISIONS:
            self.grants.add(action)
        if not allowed:
            self._notes[call_id] = refusal(action, resume)
        self.pi.answer(request_id, confirmed=allowed)

    async def _tool(self, request_id: str, asked: dict[str, Any]) -> None:
        name = str(asked.get("name", ""))
        arguments = asked.get("arguments")
        try:
            result = await call_tool(
                self.tools, name, arguments if isinstance(arguments, dict) else {}
            )
            answer = {"ok": True, "text": json.dumps(result, ensure_ascii=False, indent=1)}
        except ToolError as refused:
            answer = {"ok": False, "error": str(refused)}
        except Exception:
            _log.exception("mail tool %s failed", name)
            answer = {
                "ok": False,
                "error": f"{name} failed with an internal error (see the bridge's log); the "
                "request may or may not have reached the gateway",
            }
        self.pi.answer(request_id, value=json.dumps(answer, ensure_ascii=False))


def _json(raw: Any) -> dict[str, Any]:
    try:
        value = json.loads(raw) if isinstance(raw, str) else None
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}
