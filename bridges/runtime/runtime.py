"""The bridge runtime: I/O and scheduling only; the platform does the work elsewhere.

The main loop reads the event stream, sends heartbeats, keeps the ledger and
dispatches turns to the worker pool (seeds 003: "index.mjs only does I/O and
scheduling"). A mail reaches `_offer` from SSE (`new_mail`) or from catch-up
(unread inbox mail at start and after `resync`); both decide under one lock, with
the ledger, and use one prompt template, so a mail is never run twice by the two
paths, and never lost between them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import TypeVar

from bridges.client import AgentClient, GatewayError, Mail, SendResult
from bridges.client.models import Event
from bridges.client.sse import EventStream
from bridges.runtime.grants import ALWAYS, Grants
from bridges.runtime.ledger import Claim, Ledger
from bridges.runtime.pending import ASKING, PendingPermission, PendingPermissions
from bridges.runtime.platform import ANSWER, Ask, Platform, Question, Resume, Turn
from bridges.runtime.pool import Outcome, WorkerPool
from bridges.runtime.prompt import MailNotice, notification
from bridges.runtime.questions import answer_of, question_body

OPTIONS = ["approve", ALWAYS, "reject"]
_Sent = TypeVar("_Sent")
_log = logging.getLogger("agentmail.bridge")


class Runtime:
    def __init__(
        self,
        client: AgentClient,
        platform: Platform,
        data_dir: Path,
        *,
        agent_name: str,
        workers: int = 3,
        turn_timeout: float = 600.0,
        permission_expires: str = "1d",
        heartbeat_seconds: float = 30.0,
    ) -> None:
        self.client = client
        self.platform = platform
        self.data_dir = data_dir
        self.agent_name = agent_name
        self.turn_timeout = turn_timeout
        self.permission_expires = permission_expires
        self.heartbeat_seconds = heartbeat_seconds
        self.pool = WorkerPool(workers)
        self._lock = asyncio.Lock()  # the one place a mail is decided on
        self._active: set[str] = set()  # mails queued, running or parked in this process
        self._tasks: list[asyncio.Task[None]] = []
        self._settling: set[str] = set()  # permission mails whose decision is being applied
        self._notices: dict[str, tuple[MailNotice, str]] = {}
        self._waiting: dict[str, Mail] = {}  # claimed and queued, its turn not started
        self._answers: set[str] = set()  # queued mails found to answer a question since
        self.ledger: Ledger
        self.pending: PendingPermissions
        self.grants: Grants

    async def start(self) -> None:
        """Open the data dir, subscribe, resume what waited, catch up; then run."""
        self.ledger = await Ledger.open(self.data_dir)
        self.pending = await PendingPermissions.open(self.data_dir)
        self.grants = await Grants.open(self.data_dir)
        await self.ledger.compact()
        stream = self.client.events()
        self._tasks.append(asyncio.create_task(self._read_events(stream), name="events"))
        self._tasks.append(asyncio.create_task(self._heartbeats(), name="heartbeat"))
        await stream.connected.wait()  # from here on nothing committed is missed
        await self._recover_permissions()
        await self.catch_up()

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    # -- arriving mail ----------------------------------------------------------

    async def catch_up(self) -> None:
        """Unread inbox mail, oldest first, offered as SSE would offer it."""
        offset = 0
        while True:
            page = await self.client.inbox("unread", limit=100, offset=offset, order="oldest")
            for mail in page.mails:
                await self._offer(mail)
            offset += len(page.mails)
            if not page.mails or offset >= page.total:
                return

    async def _read_events(self, stream: EventStream) -> None:
        async for event in stream:
            try:
                await self._on_event(event)
            except Exception:
                _log.exception("handling %s failed", event.type)

    async def _on_event(self, event: Event) -> None:
        if event.type == "new_mail":
            await self._offer(await self.client.read(str(event.data["mail_id"])))
        elif event.type == "permission_decision":
            item = self.pending.get(str(event.data.get("mail_id")))
            if item is not None and item.open and item.kind == "permission":
                state = str(event.data.get("state"))
                decision = (
                    str(event.data.get("decision") or "") if state == "decided" else "expired"
                )
                await self._decided(item, decision, event.data.get("note"))
        elif event.type == "resync":
            await self.catch_up()

    async def _offer(self, mail: Mail) -> None:
        if mail.mail_type == "permission_request":  # addressed to humans only
            return
        async with self._lock:
            if mail.mail_id in self._active:
                return
            question = self.pending.question_answered_by(
                mail.parent_mail_id, mail.session_id, mail.from_
            )
            claim = None
            if question is not None or await self._carries_a_decision(mail):
                await self.ledger.consume(mail.mail_id, mail.session_id)
            elif (claim := await self._claim(mail)) is None:
                return
            self._active.add(mail.mail_id)
        if question is not None:
            await self._answered(question, mail)
            return
        if claim is None:  # a decision by mail: it reaches the turn as the decision
            await self.client.mark_read(mail.mail_id)
            self._active.discard(mail.mail_id)
            return
        notice = MailNotice(
            mail.mail_id, mail.session_id, mail.session_alias, mail.from_, mail.subject
        )
        workspace = mail.to_workspace
        name = workspace.name if workspace else ""
        cwd = (workspace.path if workspace else None) or "."
        self._waiting[mail.mail_id] = mail
        self.pool.submit(mail.session_id, lambda: self._turn(claim, notice, name, cwd, None))

    async def _carries_a_decision(self, mail: Mail) -> bool:
        """A reply to one of our permission requests that is no longer open: the human
        decided by mail (docs/deciding-by-mail.md), and the gateway delivers the reply
        as well as the decision. The decision, with the reply's note, goes to the
        parked turn; the reply is not a task of its own. (A reply that decided nothing
        leaves the request open, and is an ordinary mail.)"""
        item = self.pending.get(mail.parent_mail_id or "")
        if item is None or item.kind != "permission":
            return False
        return (await self.client.read(item.permission_mail_id)).permission_state != "open"

    async def _claim(self, mail: Mail) -> Claim | None:
        """The ledger's word on a mail (under the lock): run it (which run), or not."""
        run = self.ledger.decide(mail.mail_id)
        if run is None:
            entry = self.ledger.get(mail.mail_id)
            if entry is not None and entry.state == "delivered":
                _log.error(
                    "mail %s was interrupted %d times: not run again", mail.mail_id, entry.runs
                )
            return None
        return await self.ledger.deliver(mail.mail_id, mail.session_id, run)

    # -- one turn -----------------------------------------------------------------

    async def _turn(
        self, claim: Claim, notice: MailNotice, workspace: str, cwd: str, resume: Resume | None
    ) -> Outcome:
        self._waiting.pop(claim.mail_id, None)
        if claim.mail_id in self._answers:  # it answered a question while it waited
            self._answers.discard(claim.mail_id)
            return "done"
        turn = Turn(
            mail_id=claim.mail_id,
            session_id=claim.session_id,
            workspace=workspace,
            cwd=cwd,
            prompt=notification(notice, interrupted=claim.interrupted),
            run=claim.run,
            grants=self.grants.of(claim.session_id, workspace),
            resume=resume,
        )
        try:
            return await self._run(claim, notice, turn)
        except Exception:
            # The ledger keeps it `delivered`: the next catch-up runs it again (once).
            self._active.discard(claim.mail_id)
            raise

    async def _run(self, claim: Claim, notice: MailNotice, turn: Turn) -> Outcome:
        try:
            async with asyncio.timeout(self.turn_timeout):
                result = await self.platform.run_turn(turn)
        except TimeoutError:
            _log.warning("turn for %s stopped at the %ss timeout", claim.mail_id, self.turn_timeout)
            body = (
                f"This turn was stopped: it ran longer than {self.turn_timeout:g} s "
                "(the bridge's hard timeout). Send the task again, or split it."
            )
            await self._final(claim, notice, body)
            return "done"
        if isinstance(result, Ask):
            return await self._ask(claim, notice, turn, result)
        if isinstance(result, Question):
            return await self._question(claim, notice, turn, result)
        await self._final(claim, notice, result.body)
        return "done"

    async def _final(self, claim: Claim, notice: MailNotice, body: str) -> None:
        try:
            await self._to_sender(
                claim,
                notice,
                lambda to: self.client.send(
                    to,
                    body,
                    reply_to=claim.mail_id,
                    mail_type="final_summary",
                    auto=True,
                    idempotency_key=f"final:{claim.mail_id}",
                ),
            )
        except GatewayError as error:
            # The first run's reply is there already (its body said other things).
            if error.code != "idempotency_key_reused":
                raise
        await self.ledger.complete(claim.mail_id)
        await self.client.mark_read(claim.mail_id)
        self._active.discard(claim.mail_id)

    async def _ask(self, claim: Claim, notice: MailNotice, turn: Turn, ask: Ask) -> Outcome:
        key = f"ask:{claim.mail_id}:{ask.request_id}"
        intent = PendingPermission(
            ASKING + key,
            claim.mail_id,
            claim.session_id,
            turn.workspace,
            ask.request_id,
            ask.action,
            claim.run,
            question=ask.question,
        )

        async def ask_to(to: str) -> SendResult:
            # On disk before the request can reach a human (pending.py).
            await self.pending.add(replace(intent, to=to))
            return await self._request(replace(intent, to=to))

        sent = await self._to_sender(claim, notice, ask_to)
        item = replace(intent, permission_mail_id=sent.mail_id, to="", question="")
        self._notices[sent.mail_id] = (notice, turn.cwd)
        await self.pending.add(item)
        await self.pending.settle(intent, "sent", None)
        # Decided already? Asked before a restart (a replayed key), or a human faster
        # than this record: the event came before there was a record to find.
        mail = await self.client.read(sent.mail_id)
        if mail.permission_state != "open":
            await self._decided(item, _decision_of(mail), mail.decision_note)
        return "parked"

    def _request(self, intent: PendingPermission) -> Awaitable[SendResult]:
        """The permission request of an intent; the same request again after a restart
        (its idempotency key returns the first one)."""
        return self.client.request_permission(
            intent.to,
            intent.question,
            options=OPTIONS,
            context=f"Action:\n\n    {intent.action}",
            reply_to=intent.mail_id,
            session_id=intent.session_id,
            action=intent.action,
            expires_in=self.permission_expires,
            auto=True,
            idempotency_key=intent.permission_mail_id.removeprefix(ASKING),
        )

    async def _question(
        self, claim: Claim, notice: MailNotice, turn: Turn, question: Question
    ) -> Outcome:
        # Under the lock: the human's answer may come at once, and must find the record.
        async with self._lock:
            used: list[str] = []  # the address that reached the human asked

            def ask_to(to: str) -> Awaitable[SendResult]:
                used.append(to)
                return self.client.send(
                    to,
                    question_body(question.text, question.options),
                    reply_to=claim.mail_id,
                    mail_type="question",
                    auto=True,
                    idempotency_key=f"question:{claim.mail_id}:{question.request_id}",
                )

            sent = await self._to_sender(claim, notice, ask_to)
            item = PendingPermission(
                sent.mail_id,
                claim.mail_id,
                claim.session_id,
                turn.workspace,
                question.request_id,
                question.text,
                claim.run,
                kind="question",
                asked=used[-1],
                options=list(question.options),
            )
            self._notices[sent.mail_id] = (notice, turn.cwd)
            await self.pending.add(item)
            answer = await self._answer_waiting(item)
        if answer is not None:
            await self._answered(item, answer)
        return "parked"

    async def _answer_waiting(self, item: PendingPermission) -> Mail | None:
        """A mail that answers this question but was offered before it was asked (under
        the lock): after a restart catch-up may deliver the answer before the re-run turn
        asks its question again; that mail waits in the conversation's queue, and would
        wait there forever behind the parked turn."""
        for mail in list(self._waiting.values()):
            found = self.pending.question_answered_by(
                mail.parent_mail_id, mail.session_id, mail.from_
            )
            if found is not None and found.permission_mail_id == item.permission_mail_id:
                del self._waiting[mail.mail_id]
                self._answers.add(mail.mail_id)
                await self.ledger.consume(mail.mail_id, mail.session_id)
                return mail
        return None

    async def _answered(self, item: PendingPermission, answer: Mail) -> None:
        """The asked human wrote back: that mail is the answer, not a task of its own."""
        body = (
            answer.body
            if answer.body is not None
            else (await self.client.read(answer.mail_id)).body
        )
        await self._decided(item, ANSWER, answer_of(body or "", item.options))
        await self.client.mark_read(answer.mail_id)
        self._active.discard(answer.mail_id)

    async def _to_sender(
        self, claim: Claim, notice: MailNotice, send: Callable[[str], Awaitable[_Sent]]
    ) -> _Sent:
        """Send to the task's sender. Its address names the conversation by the alias it
        had when the mail was read; renamed since (a platform's title synced back, a
        human's rename), that alias is undeliverable: the mail, read again, has the
        address that reaches the sender now. (A refused send stores no idempotency key.)"""
        try:
            return await send(notice.sender)
        except GatewayError as error:
            if error.code != "unknown_alias":
                raise
        return await send((await self.client.read(claim.mail_id)).from_)

    async def _decided(self, item: PendingPermission, decision: str, note: object) -> None:
        """A human decided (or the request expired): the parked turn goes on, once."""
        if item.permission_mail_id in self._settling:
            return
        self._settling.add(item.permission_mail_id)
        settled = await self.pending.settle(item, decision, str(note) if note else None)
        if decision == ALWAYS:
            await self.grants.allow(item.session_id, item.workspace, item.action)
        notice, cwd = self._notices.pop(item.permission_mail_id, (None, "."))
        if notice is None:
            original = await self.client.read(item.mail_id)
            notice = MailNotice(
                original.mail_id,
                original.session_id,
                original.session_alias,
                original.from_,
                original.subject,
            )
            ws = original.to_workspace
            cwd = (ws.path if ws else None) or "."
        claim = Claim(item.mail_id, item.session_id, item.run)
        resume = Resume(item.request_id, settled.decision or decision, settled.note)
        self._active.add(item.mail_id)

        async def job() -> Outcome:
            return await self._turn(claim, notice, item.workspace, cwd, resume)

        self.pool.resume(item.session_id, job)

    async def _recover_permissions(self) -> None:
        """Open prompts from before a restart: decided meanwhile → go on; else wait. An
        open question waits: catch-up finds an answer sent while the bridge was down."""
        for found in self.pending.open_ones():
            item = await self._sent(found) if found.intent else found
            if item is None:
                continue  # never reached the gateway: the interrupted turn runs again
            self._active.add(item.mail_id)
            if item.kind == "question":
                self.pool.park(item.session_id)
                continue
            mail = await self.client.read(item.permission_mail_id)
            if mail.permission_state == "open":
                self.pool.park(item.session_id)
            else:
                await self._decided(item, _decision_of(mail), mail.decision_note)

    async def _sent(self, intent: PendingPermission) -> PendingPermission | None:
        """An intent found after a restart: the request it would have sent, sent again
        under its key (the gateway returns the one it holds, or takes it now), and
        recorded as sent. Refused (the sender's alias renamed meanwhile): dropped."""
        try:
            sent = await self._request(intent)
        except GatewayError as error:
            _log.warning("permission request for %s not resent: %s", intent.mail_id, error)
            await self.pending.settle(intent, "lost", None)
            return None
        item = replace(intent, permission_mail_id=sent.mail_id, to="", question="")
        await self.pending.add(item)
        await self.pending.settle(intent, "sent", None)
        return item

    async def _heartbeats(self) -> None:
        while True:
            try:
                await self.client.heartbeat()
            except Exception as error:  # the next beat tries again
                _log.warning("heartbeat failed: %s", error)
            await asyncio.sleep(self.heartbeat_seconds)


def _decision_of(mail: Mail) -> str:
    return (mail.decision or "") if mail.permission_state == "decided" else "expired"
