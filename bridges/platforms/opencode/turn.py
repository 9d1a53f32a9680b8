"""One turn on opencode: prompt the conversation's session, follow its events until it
ends (`Final`), asks permission (`Ask`) or asks the human (`Question`).

The turn subscribes to the directory's events before it prompts, so nothing it
causes is missed. A resumed turn answers the prompt opencode still holds
(`GET /permission`, `GET /question` list what is pending) and follows the session
on; if opencode no longer holds it (it restarted meanwhile), the turn is run again
with the decision said in words and an approved action answered when asked.
If opencode itself dies in the middle of a turn (the bridge lives on), it is
started again and the turn's prompt sent again once, with the interruption note.
A cancelled turn (the runtime's hard timeout) aborts the session in opencode.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import httpx

from bridges.platforms.opencode import prompts
from bridges.platforms.opencode.events import RECONNECTED, EventHub
from bridges.platforms.opencode.server import OpencodeServer
from bridges.platforms.opencode.settings import OpencodeSettings
from bridges.platforms.opencode.store import OpencodeStore, Prompt
from bridges.runtime.platform import ANSWER, Ask, Final, Question, Turn, TurnResult
from bridges.runtime.prompt import INTERRUPTED_NOTE

_log = logging.getLogger("agentmail.bridge.opencode")
CHECK_SECONDS = 30.0  # without events for this long, ask opencode for the state


class TurnRunner:
    def __init__(
        self,
        server: OpencodeServer,
        hub: EventHub,
        store: OpencodeStore,
        settings: OpencodeSettings,
    ) -> None:
        self.server, self.hub, self.store, self.settings = server, hub, store, settings

    async def run(self, turn: Turn, http: httpx.AsyncClient, session: str) -> TurnResult:
        approved = set(turn.grants)
        generation = self.server.generation
        async with self.hub.watch(turn.cwd) as events:
            text: str | None = turn.prompt
            if turn.resume is not None:
                text = await self._resume(http, turn, approved)
            if text is not None:
                await self.prompt(http, turn.cwd, session, text)
            follow = _Follow(self, http, turn, session, approved, events, generation)
            try:
                return await follow.run()
            except asyncio.CancelledError:
                abort = _call(follow.http, "POST", f"/session/{session}/abort", turn.cwd)
                with contextlib.suppress(httpx.HTTPError, RuntimeError):
                    await asyncio.shield(abort)
                raise

    async def prompt(self, http: httpx.AsyncClient, cwd: str, session: str, text: str) -> None:
        body: dict[str, Any] = {"parts": [{"type": "text", "text": text}]}
        if self.settings.model_ref is not None:
            body["model"] = self.settings.model_ref
        if self.settings.agent is not None:
            body["agent"] = self.settings.agent
        await _call(http, "POST", f"/session/{session}/prompt_async", cwd, json=body)

    async def _resume(self, http: httpx.AsyncClient, turn: Turn, approved: set[str]) -> str | None:
        """Answer the prompt opencode holds (None: nothing to send), or the re-run's prompt."""
        resume = turn.resume
        assert resume is not None
        asked = self.store.prompts.get(resume.request_id)
        pending = await pending_prompts(http, turn.cwd)
        if resume.request_id in pending:
            if resume.decision == ANSWER:
                count = max(1, len(pending[resume.request_id].get("questions") or []))
                answers = [[resume.note or ""] for _ in range(count)]
                path = f"/question/{resume.request_id}/reply"
                await _call(http, "POST", path, turn.cwd, json={"answers": answers})
            elif prompts.approves(resume):
                path = f"/permission/{resume.request_id}/reply"
                await _call(http, "POST", path, turn.cwd, json={"reply": "once"})
            else:
                reply = {"reply": "reject", "message": prompts.rejection_message(resume)}
                path = f"/permission/{resume.request_id}/reply"
                await _call(http, "POST", path, turn.cwd, json=reply)
            return None
        _log.info(
            "opencode no longer holds %s: the turn runs again with the decision", resume.request_id
        )
        if asked is not None and asked.kind == "permission" and prompts.approves(resume):
            approved.add(asked.text)
        note = prompts.decision_note(
            resume, asked.kind if asked else None, asked.text if asked else None
        )
        return f"{turn.prompt}\n\n{note}"


class _Follow:
    """The events of one turn, until it ends or asks."""

    def __init__(
        self,
        runner: TurnRunner,
        http: httpx.AsyncClient,
        turn: Turn,
        session: str,
        approved: set[str],
        events: asyncio.Queue[dict[str, Any]],
        generation: int,
    ) -> None:
        self.runner, self.http, self.turn, self.session = runner, http, turn, session
        self.approved, self.events, self.generation = approved, events, generation
        self.restarted = False
        self.family = {session}  # and its subagents' sessions (opencode's task tool)
        self.busy = False
        self.error: Any = None

    async def run(self) -> TurnResult:
        while True:
            try:
                async with asyncio.timeout(CHECK_SECONDS):
                    event = await self.events.get()
            except TimeoutError:
                event = RECONNECTED
            result = await self._on(event)
            if result is not None:
                return result

    async def _on(self, event: dict[str, Any]) -> TurnResult | None:
        kind = event.get("type")
        props = event.get("properties") or {}
        if kind == RECONNECTED["type"]:
            return await self._state()
        if kind in ("session.created", "session.updated"):
            info = props.get("info") or {}
            if info.get("parentID") in self.family:
                self.family.add(str(info.get("id")))
            return None
        if props.get("sessionID") not in self.family:
            return None
        if kind == "permission.asked":
            return await self._permission(props)
        if kind == "question.asked":
            return await self._question(props)
        if props.get("sessionID") != self.session:
            return None
        if kind == "session.status":
            self.busy = (props.get("status") or {}).get("type") != "idle"
        elif kind == "session.error":
            self.error = props.get("error")
        elif kind == "session.idle":
            return Final(await self._answer())
        return None

    async def _permission(self, request: dict[str, Any]) -> Ask | None:
        action = prompts.action_of(request)
        request_id = str(request["id"])
        if action in self.approved:  # granted ("always allow"), or approved before a restart
            path = f"/permission/{request_id}/reply"
            await _call(self.http, "POST", path, self.turn.cwd, json={"reply": "once"})
            return None
        prompt = Prompt(request_id, str(request.get("sessionID")), "permission", action)
        await self.runner.store.remember(prompt)
        return Ask(request_id, action, prompts.question_of(request))

    async def _question(self, request: dict[str, Any]) -> Question:
        text, options = prompts.questions_of(request)
        request_id = str(request["id"])
        prompt = Prompt(request_id, str(request.get("sessionID")), "question", text)
        await self.runner.store.remember(prompt)
        return Question(request_id, text, options)

    async def _state(self) -> TurnResult | None:
        """After a gap in the events: what opencode holds now."""
        if self.runner.server.generation != self.generation:
            return await self._again()
        for request in (await pending_prompts(self.http, self.turn.cwd)).values():
            if request.get("sessionID") in self.family:
                if "questions" in request:
                    return await self._question(request)
                if (result := await self._permission(request)) is not None:
                    return result
        status = await _call(self.http, "GET", "/session/status", self.turn.cwd)
        now = (status.get(self.session) or {}).get("type", "idle")
        if self.busy and now == "idle":
            return Final(await self._answer())
        self.busy = self.busy or now != "idle"
        return None

    async def _again(self) -> Final | None:
        """opencode was started again under this turn: its work is gone; prompt again, once."""
        if self.restarted:
            return Final("opencode stopped twice during this turn; send the task again.")
        self.restarted, self.busy = True, False
        self.generation = self.runner.server.generation
        self.http = await self.runner.server.http()
        _log.warning("opencode restarted during a turn of %s: prompted again", self.session)
        text = f"{INTERRUPTED_NOTE}\n{self.turn.prompt}"
        await self.runner.prompt(self.http, self.turn.cwd, self.session, text)
        return None

    async def _answer(self) -> str:
        """The text of the session's last answer (and the error, if the turn failed)."""
        path = f"/session/{self.session}/message"
        messages = await _call(self.http, "GET", path, self.turn.cwd, params={"limit": 20})
        text = ""
        for message in reversed(messages or []):
            if (message.get("info") or {}).get("role") == "assistant":
                parts = message.get("parts") or []
                said = [
                    str(p.get("text", ""))
                    for p in parts
                    if p.get("type") == "text" and not p.get("synthetic") and not p.get("ignored")
                ]
                text = "\n\n".join(s for s in said if s.strip())
                if text:
                    break
        if self.error:
            data = self.error.get("data") if isinstance(self.error, dict) else None
            message = (data or {}).get("message") if isinstance(data, dict) else None
            name = self.error.get("name") if isinstance(self.error, dict) else None
            failed = f"opencode stopped with an error: {name or 'error'}: {message or self.error}"
            text = f"{text}\n\n{failed}" if text else failed
        return text or "(opencode ended the turn without a text answer)"


async def pending_prompts(http: httpx.AsyncClient, cwd: str) -> dict[str, dict[str, Any]]:
    """The permission and question prompts opencode holds now, by id."""
    found: dict[str, dict[str, Any]] = {}
    for path in ("/permission", "/question"):
        for request in await _call(http, "GET", path, cwd) or []:
            if isinstance(request, dict) and "id" in request:
                found[str(request["id"])] = request
    return found


async def _call(http: httpx.AsyncClient, method: str, path: str, cwd: str, **kwargs: Any) -> Any:
    params = {"directory": cwd, **kwargs.pop("params", {})}
    response = await http.request(method, path, params=params, **kwargs)
    response.raise_for_status()
    return response.json() if response.content else None
