"""Open platform prompts, kept across restarts: each one's gateway mail (a permission
request, or a question), the platform's own request id, the action or question
text, and where the turn stopped.

After a restart the runtime looks up each open permission's mail
(`permission_state`): decided or expired while the bridge was down → the turn goes
on with the decision; still open → it waits for the `permission_decision` event. An
open question waits for the asked human's next mail in its conversation (catch-up
finds one sent while the bridge was down). The last record of a request wins; a
settled one is dropped at the next compaction.

A permission request is recorded *before* it is sent, as an intent (`ASKING` and its
idempotency key in place of the mail's id): a bridge killed after the gateway took
the request but before its record reached the disk would otherwise forget a
request a human can already decide; the intent is replayed with its key after a
restart, which returns the request the gateway already holds.
"""

from __future__ import annotations

import asyncio
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bridges.runtime.journal import Journal

ASKING = "asking:"  # an intent's id: ASKING + the request's idempotency key


@dataclass(frozen=True, slots=True)
class PendingPermission:
    permission_mail_id: str  # the gateway's mail: the permission request or the question
    mail_id: str  # the mail whose turn asked
    session_id: str
    workspace: str
    request_id: str  # the platform's id for its prompt (the stub: the step)
    action: str  # a permission's exact action; a question's text
    run: int
    open: bool = True
    decision: str | None = None
    note: str | None = None
    kind: str = "permission"  # or "question"
    asked: str = ""  # a question: the human asked (whose next mail answers it)
    options: list[str] = field(default_factory=list)  # a question's choices
    to: str = ""  # an intent: the address the request went to
    question: str = ""  # an intent: the question as sent

    @property
    def intent(self) -> bool:
        return self.permission_mail_id.startswith(ASKING)


class PendingPermissions:
    def __init__(self, journal: Journal) -> None:
        self._journal = journal
        self._records: dict[str, PendingPermission] = {}
        for record in journal.read():
            try:
                item = PendingPermission(**record)
            except TypeError:
                continue
            self._records[item.permission_mail_id] = item

    @classmethod
    async def open(cls, directory: Path) -> PendingPermissions:
        return await asyncio.to_thread(lambda: cls(Journal.open(directory, "permissions.jsonl")))

    def open_ones(self) -> list[PendingPermission]:
        return [p for p in self._records.values() if p.open]

    def of_mail(self, mail_id: str) -> list[PendingPermission]:
        """The prompts the turns of one mail raised (sent ones: no intents), in order."""
        return [p for p in self._records.values() if p.mail_id == mail_id and not p.intent]

    def get(self, permission_mail_id: str) -> PendingPermission | None:
        return self._records.get(permission_mail_id)

    def question_answered_by(
        self, parent_mail_id: str | None, session_id: str, sender: str
    ) -> PendingPermission | None:
        """The open question a mail answers: a reply to the question mail, or the asked
        human's next mail in that conversation (a phone's "new mail" is an answer too)."""
        questions = [
            p for p in self._records.values() if p.open and p.kind == "question" and not p.intent
        ]
        for item in questions:
            if item.permission_mail_id == parent_mail_id:
                return item
        for item in questions:
            if item.session_id == session_id and item.asked and _who(item.asked) == _who(sender):
                return item
        return None

    async def add(self, item: PendingPermission) -> None:
        await self._put(item)

    async def settle(
        self, item: PendingPermission, decision: str, note: str | None
    ) -> PendingPermission:
        settled = PendingPermission(
            **{**asdict(item), "open": False, "decision": decision, "note": note}
        )
        await self._put(settled)
        return settled

    async def compact(self) -> None:
        self._records = {k: v for k, v in self._records.items() if v.open}
        kept: list[dict[str, Any]] = [asdict(v) for v in self._records.values()]
        await asyncio.to_thread(self._journal.rewrite, kept)

    async def _put(self, item: PendingPermission) -> None:
        await asyncio.to_thread(self._journal.append, asdict(item))
        self._records[item.permission_mail_id] = item


def _who(address: str) -> str:
    """The name of a native address (`jianf@.fix-leak` → `jianf`): the conversation's
    alias in it may have changed since the question was asked (a rename), the person
    has not. The name ends at the first `@` (ARCHITECTURE.md, the grammar)."""
    return address.partition("@")[0].lower()
