"""Catching up with the gateway where the event stream cannot say what was missed.

The stream replays what a bridge missed when it reconnects with its position
(stream_position.py). Where it has none — a stream opened "from now" (a gateway
that does not send its position), a `resync` (the events were pruned), the bridge's
own start — the state itself is read again:

* the unread inbox, oldest first, offered as SSE would offer it;
* the mails the ledger has as delivered and not completed, not running here, by the
  recovery rule (recovery.py: run again once, reported after a second cut, or found
  answered already);
* the open permission requests of `pending.py`, asked for their state: decided or
  expired meanwhile (a click whose event this bridge never saw), the parked turn
  goes on.

Every mail goes through `_offer`, which decides under one lock with the ledger, so
catching up twice, or beside the stream, never runs a mail twice. The catch-up runs
at start-up (after the open prompts are recovered), after every connection opened
without a position, after `resync`, and when a heartbeat counts more unread mail
than this bridge holds. One that fails (the gateway went away meanwhile) is owed:
the next connection or heartbeat runs it.
"""

from __future__ import annotations

import asyncio
import logging
from abc import ABC, abstractmethod

import httpx

from bridges.client import AgentClient, GatewayError, Heartbeat, Mail
from bridges.runtime.ledger import Ledger
from bridges.runtime.pending import PendingPermission, PendingPermissions

PAGE = 100
_log = logging.getLogger("agentmail.bridge")


class CatchingUp(ABC):
    client: AgentClient
    ledger: Ledger
    pending: PendingPermissions
    _active: set[str]  # mails queued, running or parked in this process
    _settling: set[str]  # permission mails whose decision is being applied
    _catching_up: asyncio.Lock  # one catch-up at a time
    _recovered: bool  # the open prompts of before the start are recovered
    _owed: bool  # the last catch-up failed
    _ready: asyncio.Event  # recovered and caught up once
    _unread_seen: int | None  # the unread mails the last catch-up saw

    @abstractmethod
    async def _offer(self, mail: Mail) -> None:
        """Decide on a mail (run it, or not) under the lock, with the ledger."""

    @abstractmethod
    async def _decided(self, item: PendingPermission, decision: str, note: object) -> None:
        """A parked turn goes on with its decision, once."""

    @abstractmethod
    async def _recover_permissions(self) -> None:
        """The open prompts of before the start: park or resume their turns."""

    @abstractmethod
    async def _recover_unfinished(self, offered: set[str]) -> None:
        """The ledger's unfinished mails not in `offered`, by the recovery rule."""

    async def catch_up(self) -> None:
        async with self._catching_up:
            await self._caught_up()

    async def _caught_up(self) -> None:
        await self._decisions()
        seen = await self._unread()
        await self._recover_unfinished(seen)
        self._unread_seen = len(seen)

    async def _resync(self) -> None:
        """Recover (once) and catch up; a failure is logged in one line and owed."""
        try:
            async with self._catching_up:
                if not self._recovered:
                    await self._recover_permissions()
                    self._recovered = True
                await self._caught_up()
        except (httpx.TransportError, GatewayError) as error:
            self._owed = True
            _log.warning("catching up failed (%s); trying again later", _reason(error))
            return
        except Exception:
            self._owed = True
            _log.exception("catching up failed; trying again later")
            return
        self._owed = False
        self._ready.set()

    async def _connected(self, resumed: bool) -> None:
        """The stream is subscribed: what it cannot replay is read again (sse.py)."""
        if not (resumed and self._recovered and not self._owed):
            await self._resync()

    async def _beat(self, beat: Heartbeat) -> None:
        """More unread mail than this bridge holds: something reached the gateway that
        no event brought here. (Unread mail the ledger refuses to run again stays
        unread: as long as the count is the last catch-up's, nothing new came.)"""
        unknown = beat.pending_mails > len(self._active)
        changed = beat.pending_mails != self._unread_seen
        if self._owed or (self._recovered and unknown and changed):
            await self._resync()

    async def _decisions(self) -> None:
        for item in self.pending.open_ones():
            if (
                item.intent
                or item.kind != "permission"
                or item.permission_mail_id in self._settling
            ):
                continue
            mail = await self.client.read(item.permission_mail_id)
            if mail.permission_state == "decided":
                await self._decided(item, mail.decision or "", mail.decision_note)
            elif mail.permission_state == "expired":
                await self._decided(item, "expired", None)

    async def _unread(self) -> set[str]:
        seen: set[str] = set()
        offset = 0
        while True:
            page = await self.client.inbox("unread", limit=PAGE, offset=offset, order="oldest")
            for mail in page.mails:
                seen.add(mail.mail_id)
                entry = self.ledger.get(mail.mail_id)
                if entry is not None and entry.state == "completed":
                    # Finished, but a kill came between the ledger and the read mark.
                    await self.client.mark_read(mail.mail_id)
                    continue
                await self._offer(mail)
            offset += len(page.mails)
            if not page.mails or offset >= page.total:
                return seen


def _reason(error: Exception) -> str:
    return str(error) if isinstance(error, GatewayError) else type(error).__name__
