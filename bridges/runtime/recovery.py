"""After a restart the ledger, not the mail's read state, decides what runs again.

A model reads its task with `read_mail`, which marks it read; a bridge killed after
that (or while an approved command ran) finds no unread mail to pick up, so the
inbox cannot say what was left unfinished. The ledger can: every mail it holds as
`delivered` and not `completed`, that no open prompt holds (a pending permission
or question goes on by its decision), is offered again:

* interrupted once → run again, with the "interrupted" note (ledger.py);
* interrupted twice → not run a third time: the sender gets one `turn_failed` mail
  saying so, with what is known of the turn (the permissions it was granted);
* its final answer already with the gateway (killed between sending it and
  recording it) → recorded as completed, not run again.

A permission approved in a run that was cut may have had its command cut too: the
re-run asks for it again under a new key, and the request says why (`ask_again`),
so an approved command is never run a second time without a human saying so. The
records can be lost (permissions.jsonl deleted or cut short): then the gateway's copy
decides — a re-run whose request the gateway returns approved asks anew all the same
(waiting.py), rather than run the command on the cut run's approval.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from typing import Literal

from bridges.client import AgentClient, GatewayError, Mail
from bridges.runtime.ledger import Claim, Ledger
from bridges.runtime.pending import PendingPermission, PendingPermissions
from bridges.runtime.prompt import MailNotice

FinalType = Literal["final_summary", "turn_failed"]  # a mail's one final answer
FINAL_ANSWERS = ("final_summary", "turn_failed")
DECISIONS = ("approve", "always allow", "reject", "expired")
APPROVED = ("approve", "always allow")
TREE_CHUNK = 100  # replies walked per request when looking for a final answer
_log = logging.getLogger("agentmail.bridge")


class Recovery(ABC):
    client: AgentClient
    ledger: Ledger
    pending: PendingPermissions
    _active: set[str]

    @abstractmethod
    async def _offer(self, mail: Mail) -> None:
        """Decide on a mail, as SSE and catch-up do."""

    @abstractmethod
    async def _final(
        self, claim: Claim, notice: MailNotice, body: str, mail_type: FinalType = "final_summary"
    ) -> None:
        """Send a mail's one final answer and record it completed."""

    async def _recover_unfinished(self, offered: set[str]) -> None:
        """Every unfinished mail of the ledger, oldest first, offered again (but those
        `offered` already, by the catch-up that calls this)."""
        for entry in sorted(self.ledger.unfinished(), key=lambda e: e.at):
            if entry.mail_id in self._active or entry.mail_id in offered:
                continue  # parked on a prompt (its decision resumes it), or offered
            try:
                mail = await self.client.read(entry.mail_id)
            except GatewayError as error:
                if error.retryable:
                    raise
                _log.warning("mail %s cannot be read (%s): not run again", entry.mail_id, error)
                await self.ledger.complete(entry.mail_id)
                continue
            if await self._answered_already(mail.mail_id):
                _log.info("mail %s was answered before the restart", mail.mail_id)
                await self.ledger.complete(mail.mail_id)
                continue
            _log.info("mail %s was interrupted (run %d): offered again", mail.mail_id, entry.runs)
            await self._offer(mail)

    async def _answered_already(self, mail_id: str) -> bool:
        """Our final answer to this mail is with the gateway already. The mail's replies
        are walked to the end, a chunk at a time: others may have come before the
        answer (a human's forwards of the task, say), past any one chunk."""
        cursor = None
        while True:
            tree = await self.client.thread(
                mail_id,
                direction="descendants",
                limit=TREE_CHUNK,
                cursor=cursor,
                include_body=False,
            )
            if any(
                m.parent_mail_id == mail_id and m.auto and m.mail_type in FINAL_ANSWERS
                for m in tree.mails
            ):
                return True
            cursor = tree.next_cursor_down
            if cursor is None:
                return False

    async def _report_cut(self, mail: Mail) -> None:
        """Interrupted twice: the sender is told, once, instead of a third run."""
        entry = self.ledger.get(mail.mail_id)
        runs = entry.runs if entry else 2
        _log.error("mail %s was interrupted %d times: reported, not run again", mail.mail_id, runs)
        notice = MailNotice.of(mail)
        body = "\n".join(
            [
                f"This task was not finished: its turn was interrupted {runs} times (the "
                "bridge stopped while it ran), so it is not run again.",
                *self._known(mail.mail_id),
                "Send the task again if it still needs doing.",
            ]
        )
        try:
            await self._final(
                Claim(mail.mail_id, mail.session_id, runs), notice, body, "turn_failed"
            )
        finally:
            self._active.discard(mail.mail_id)

    def _known(self, mail_id: str) -> list[str]:
        """What the records say the cut turns did: the prompts they raised."""
        lines = []
        for item in self.pending.of_mail(mail_id):
            if item.kind == "question":
                lines.append(f"- asked: {item.action} ({_state(item)})")
            else:
                lines.append(f"- asked to run `{item.action}` ({_state(item)})")
        if not lines:
            return ["What is known: no permission was asked for."]
        approved = any(item.decision in APPROVED for item in self.pending.of_mail(mail_id))
        cut = ["An approved command may have run in part, or not at all."] if approved else []
        return ["What is known:", *lines, *cut]


def ask_again(pending: PendingPermissions, claim: Claim, request_id: str, action: str) -> bool:
    """A re-run asking for what a cut run had approved: ask anew (a new key, not the
    approved request again), saying why. A rejection stands: asked under its old key,
    the gateway returns the rejected request, and the model is told no again."""
    if not claim.interrupted:
        return False
    return any(
        item.request_id == request_id or item.action == action
        for item in pending.of_mail(claim.mail_id)
        if item.kind == "permission" and item.decision == "approve"
    )


def approved(request: Mail) -> bool:
    """A permission request the gateway holds as approved (once: a standing grant is
    never asked for again)."""
    return request.permission_state == "decided" and request.decision == "approve"


def interrupted_question(question: str) -> str:
    return (
        "This was approved before, but the bridge was interrupted while the approved "
        "command ran: it may have run in part, or not at all. Approve to run it again.\n\n"
        + question
    )


def _state(item: PendingPermission) -> str:
    if item.open:
        return "not answered"
    if item.decision in DECISIONS:
        return str(item.decision)
    return "not sent"
