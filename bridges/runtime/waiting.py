"""Turns parked on a human: asking, waiting, and going on with the answer.

A platform that stops for a permission or a question gets a mail to the task's
sender (a permission request, or a question mail); the turn is parked, its prompt
recorded (pending.py), and resumed once: by the `permission_decision` event, by a
decision taken by mail, by the asked human's answer, or, after a restart, by what
the gateway says of a request that was decided while the bridge was down.

`Runtime` (runtime.py) is the one class with this half: it owns the state named
below and runs the turns this half resumes.
"""

from __future__ import annotations

import asyncio
import logging
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import TypeVar

from bridges.client import AgentClient, GatewayError, Mail, SendResult
from bridges.runtime.grants import ALWAYS, Grants
from bridges.runtime.ledger import Claim, Ledger
from bridges.runtime.pending import ASKING, PendingPermission, PendingPermissions
from bridges.runtime.platform import ANSWER, Ask, Question, Resume, Turn
from bridges.runtime.pool import Outcome, WorkerPool
from bridges.runtime.prompt import MailNotice
from bridges.runtime.questions import answer_of, question_body
from bridges.runtime.recovery import approved, ask_again, interrupted_question
from bridges.runtime.subjects import permission_subject, question_subject

OPTIONS = ["approve", ALWAYS, "reject"]
_Sent = TypeVar("_Sent")
_log = logging.getLogger("agentmail.bridge")


class Waiting(ABC):
    client: AgentClient
    pool: WorkerPool
    permission_expires: str
    ledger: Ledger
    pending: PendingPermissions
    grants: Grants
    _lock: asyncio.Lock  # the one place a mail is decided on
    _active: set[str]  # mails queued, running or parked in this process
    _settling: set[str]  # permission mails whose decision is being applied
    _notices: dict[str, tuple[MailNotice, str]]
    _waiting: dict[str, Mail]  # claimed and queued, its turn not started
    _answers: set[str]  # queued mails found to answer a question since

    @abstractmethod
    async def _turn(
        self, claim: Claim, notice: MailNotice, workspace: str, cwd: str, resume: Resume | None
    ) -> Outcome:
        """Run (or resume) a mail's turn."""

    @abstractmethod
    async def _to_sender(
        self, claim: Claim, notice: MailNotice, send: Callable[[str], Awaitable[_Sent]]
    ) -> _Sent:
        """Send to the task's sender, by the address that reaches them now."""

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

    async def _ask(self, claim: Claim, notice: MailNotice, turn: Turn, ask: Ask) -> Outcome:
        again = ask_again(self.pending, claim, ask.request_id, ask.action)
        item, mail = await self._asked(claim, notice, turn, ask, again)
        if claim.interrupted and not again and approved(mail):
            # The gateway holds an approval of this very request, given in a run that
            # was cut, which the records no longer show (permissions.jsonl lost or cut
            # short): its command may have run in part. The gateway's copy decides, as
            # the record would have: asked anew, never run on the old approval.
            _log.warning("mail %s: an approval from a cut run, asked again", claim.mail_id)
            self._notices.pop(item.permission_mail_id, None)
            await self.pending.settle(item, _decision_of(mail), mail.decision_note)
            item, mail = await self._asked(claim, notice, turn, ask, True)
        # Decided already? Asked before a restart (a replayed key), or a human faster
        # than this record: the event came before there was a record to find.
        if mail.permission_state != "open":
            await self._decided(item, _decision_of(mail), mail.decision_note)
        return "parked"

    async def _asked(
        self, claim: Claim, notice: MailNotice, turn: Turn, ask: Ask, again: bool
    ) -> tuple[PendingPermission, Mail]:
        """Send the permission request (`again`: anew, under this run's key, saying why)
        and record it; the request as the gateway has it now."""
        key = f"ask:{claim.mail_id}:{ask.request_id}"
        question = ask.question
        if again:
            key, question = f"{key}:run{claim.run}", interrupted_question(question)
        intent = PendingPermission(
            ASKING + key,
            claim.mail_id,
            claim.session_id,
            turn.workspace,
            ask.request_id,
            ask.action,
            claim.run,
            question=permission_subject(notice.session_alias, notice.subject, question),
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
        return item, await self.client.read(sent.mail_id)

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
                    subject=question_subject(notice.session_alias, notice.subject, question.text),
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
            notice = MailNotice.of(original)
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


def _decision_of(mail: Mail) -> str:
    return (mail.decision or "") if mail.permission_state == "decided" else "expired"
