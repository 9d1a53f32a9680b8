"""The bridge runtime: I/O and scheduling only; the platform does the work elsewhere.

The main loop reads the event stream, sends heartbeats, keeps the ledger and
dispatches turns to the worker pool (seeds 003: "index.mjs only does I/O and
scheduling"). A mail reaches `_offer` from SSE (`new_mail`, resumed from the
position kept in stream_position.py), from catch-up (catch_up.py: at start, after
a connection without a position, after `resync`) or from recovery (recovery.py: the
ledger's unfinished mails, in every catch-up); all decide under one lock, with the
ledger, and use one prompt template, so a mail is never run twice by these
paths, and never lost between them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

from bridges.client import AgentClient, GatewayError, Mail
from bridges.client.backoff import patiently
from bridges.client.models import Event
from bridges.client.sse import EventStream
from bridges.runtime.catch_up import CatchingUp
from bridges.runtime.grants import Grants
from bridges.runtime.ledger import Claim, Ledger
from bridges.runtime.pending import PendingPermissions
from bridges.runtime.platform import Ask, Platform, Question, Resume, Turn
from bridges.runtime.pool import Outcome, WorkerPool
from bridges.runtime.prompt import MailNotice, notification
from bridges.runtime.recovery import FinalType, Recovery
from bridges.runtime.stream_position import StreamPosition
from bridges.runtime.subjects import reply_subject
from bridges.runtime.waiting import Waiting

_Sent = TypeVar("_Sent")
_log = logging.getLogger("agentmail.bridge")


class Runtime(Waiting, Recovery, CatchingUp):
    """Arriving mail, the turns it starts, heartbeats; the waiting half is `Waiting`."""

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
        self._lock = asyncio.Lock()
        self._active = set()
        self._tasks: list[asyncio.Task[None]] = []
        self._settling = set()
        self._notices = {}
        self._waiting = {}
        self._answers = set()
        self._catching_up = asyncio.Lock()
        self._recovered = False
        self._owed = False
        self._ready = asyncio.Event()
        self._unread_seen: int | None = None
        self._stopping = False

    async def start(self) -> None:
        """Open the data dir, subscribe (from the kept position), resume what waited,
        catch up; then run. Returns once that is done, however long the gateway is away."""
        self.ledger = await Ledger.open(self.data_dir)
        self.pending = await PendingPermissions.open(self.data_dir)
        self.grants = await Grants.open(self.data_dir)
        await self.ledger.compact()
        self.position = await StreamPosition.open(self.data_dir, self.client.base_url)
        # Subscribed first, caught up second (in `_connected`): nothing committed is missed.
        stream = self.client.events(self.position.last_event_id, on_connected=self._subscribed)
        self._stream = stream
        self._tasks.append(asyncio.create_task(self._read_events(stream), name="events"))
        self._tasks.append(asyncio.create_task(self._heartbeats(), name="heartbeat"))
        await self._ready.wait()

    async def stop(self) -> None:
        self._stopping = True  # a turn the platform's close ends is cut, not failed
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    # -- arriving mail ----------------------------------------------------------

    async def _subscribed(self, resumed: bool) -> None:
        await self.position.save(self._stream.last_event_id)
        await self._connected(resumed)

    async def _read_events(self, stream: EventStream) -> None:
        async for event in stream:
            try:
                await self._on_event(event)
            except Exception:
                # The position moves on: what this event brought is caught up instead
                # (at the next connection or heartbeat).
                self._owed = True
                _log.exception("handling %s failed", event.type)
            await self.position.save(stream.last_event_id)

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
            await self._resync()

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
            cut_twice = False
            if question is not None or await self._carries_a_decision(mail):
                await self.ledger.consume(mail.mail_id, mail.session_id)
            elif not (cut_twice := self.ledger.cut_twice(mail.mail_id)) and (
                (claim := await self._claim(mail)) is None
            ):
                return
            self._active.add(mail.mail_id)
        if question is not None:
            await self._answered(question, mail)
            return
        if cut_twice:
            await self._report_cut(mail)
            return
        if claim is None:  # a decision by mail: it reaches the turn as the decision
            await self.client.mark_read(mail.mail_id)
            self._active.discard(mail.mail_id)
            return
        notice = MailNotice.of(mail)
        workspace = mail.to_workspace
        name = workspace.name if workspace else ""
        cwd = (workspace.path if workspace else None) or "."
        self._waiting[mail.mail_id] = mail
        self.pool.submit(mail.session_id, lambda: self._turn(claim, notice, name, cwd, None))

    async def _claim(self, mail: Mail) -> Claim | None:
        """The ledger's word on a mail (under the lock): run it (which run), or not."""
        run = self.ledger.decide(mail.mail_id)
        if run is None:
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
            # The gateway refused or was away: the ledger keeps it `delivered`, and the
            # next catch-up (the next connection or heartbeat) runs it again, once.
            self._active.discard(claim.mail_id)
            self._owed = True
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
            await self._final(claim, notice, body, "turn_failed")
            return "done"
        except Exception as error:  # the platform's own failure: said, not kept silent
            if self._stopping:
                raise  # cut by the bridge's stop: the next start runs it again
            _log.exception("turn for %s failed", claim.mail_id)
            body = f"This turn failed in the platform ({type(error).__name__}: {error})."
            await self._final(claim, notice, body[:2000], "turn_failed")
            return "done"
        if isinstance(result, Ask):
            return await self._ask(claim, notice, turn, result)
        if isinstance(result, Question):
            return await self._question(claim, notice, turn, result)
        await self._final(claim, notice, result.body)
        return "done"

    async def _final(
        self, claim: Claim, notice: MailNotice, body: str, mail_type: FinalType = "final_summary"
    ) -> None:
        """The mail's one final answer (`turn_failed` when its turn did not finish),
        under one key whatever its type, so a re-run never sends a second one."""
        try:
            await self._to_sender(
                claim,
                notice,
                lambda to: self.client.send(
                    to,
                    body,
                    subject=reply_subject(notice.subject),
                    reply_to=claim.mail_id,
                    mail_type=mail_type,
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

    async def _to_sender(
        self, claim: Claim, notice: MailNotice, send: Callable[[str], Awaitable[_Sent]]
    ) -> _Sent:
        """Send to the task's sender. Its address names the conversation by the alias it
        had when the mail was read; renamed since (a platform's title synced back, a
        human's rename), that alias still reaches it (a conversation keeps its old
        aliases for its participants). Refused all the same, the mail, read again, has
        the address that reaches the sender now. (A refused send stores no idempotency
        key.) While the gateway is away the send waits for it (its key makes that safe):
        the turn's work is done, and must not be run again for want of a reply."""
        what = f"the answer to {claim.mail_id}"
        try:
            return await patiently(lambda: send(notice.sender), what)
        except GatewayError as error:
            if error.code != "unknown_alias":
                raise
        sender = (await patiently(lambda: self.client.read(claim.mail_id), what)).from_
        return await patiently(lambda: send(sender), what)

    async def _heartbeats(self) -> None:
        while True:
            try:
                beat = await self.client.heartbeat()
            except Exception as error:  # the next beat tries again
                _log.warning("heartbeat failed: %s", error)
            else:
                await self._beat(beat)
            await asyncio.sleep(self.heartbeat_seconds)
