"""The MX listener's handler: mail from the internet, taken only as replies.

`RCPT TO` accepts what core/replies/recipients.py accepts (a reply address whose token
verifies; a human's own address from one of their verified external addresses) and the
bounce address of an outbound mail (core/relay/envelope.py: `postmaster+<mail>.<job>@`),
and refuses everything else with `550 5.7.1` (RFC 5321 §3.6.2: not a relay, §4.2.2's
reply for a mailbox the policy refuses). One recipient a transaction: a reply has one.
After DATA the message is judged (SPF on the connection, DKIM, DMARC:
core/mailauth/check.py), `Authentication-Results` (RFC 8601 §2.2, the authserv-id the
gateway's domain) is written on top of the kept bytes, and core/replies/inbound.py
stores it and decides only on proof. A bounce is read (core/relay/bounces.py) into its
sender's notice, once per recipient, and otherwise dropped: nothing is ever replied to
it (RFC 3834 §2). `250` follows the commit (RFC 5321 §4.1.1.4).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from weakref import WeakKeyDictionary

from aiosmtpd.smtp import SMTP, Envelope, Session

from core.mailauth.check import judge
from core.relay.envelope import envelope_id_in_address
from core.replies.recipients import Accepted, accepted_recipient
from core.secrets.box import SecretBox
from core.secrets.reply_token import ensure_reply_key
from core.store.engine import Store
from smtp_in.outside_intake import take_bounce, take_received
from smtp_in.protocol_replies import ehlo_lines
from smtp_in.replies import failure_reply

log = logging.getLogger("agentmail.mx")

REFUSED = (
    "550 5.7.1 <{address}>: recipient refused: this gateway takes mail from outside only"
    " at the reply addresses it gave, and from a person's own registered addresses"
)
ONE_RECIPIENT = "452 4.5.3 one recipient per message here: send the others separately"


# Not `slots=True`: aiosmtpd inspects the handler (see smtp_in/handler.py).
@dataclass(frozen=True)
class MxHandler:
    store: Store
    domain: str
    box: SecretBox
    _accepted: WeakKeyDictionary[Envelope, Accepted] = field(
        default_factory=WeakKeyDictionary, compare=False, repr=False
    )
    _bounces: WeakKeyDictionary[Envelope, str] = field(
        default_factory=WeakKeyDictionary, compare=False, repr=False
    )
    _reply_key: list[bytes] = field(default_factory=list, compare=False, repr=False)

    async def handle_exception(self, error: Exception) -> str:
        log.error("an MX command failed", exc_info=error)
        return failure_reply(error)

    async def handle_EHLO(
        self, server: SMTP, session: Session, envelope: Envelope, hostname: str, lines: list[str]
    ) -> list[str]:
        session.host_name = hostname
        return ehlo_lines(lines)

    async def handle_MAIL(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: list[str]
    ) -> str:
        envelope.mail_from = address  # a bounce's is empty (RFC 5321 §4.5.5)
        envelope.mail_options.extend(options)
        return "250 2.1.0 OK"

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: list[str]
    ) -> str:
        if envelope.rcpt_tos:
            return ONE_RECIPIENT
        if envelope_id_in_address(address, self.domain) is not None:
            self._bounces[envelope] = address  # a report on one of our outbound mails
            envelope.rcpt_tos.append(address)
            return "250 2.1.5 OK"
        if not self._reply_key:  # read once: it never changes (core/secrets/reply_token.py)
            self._reply_key.append(await ensure_reply_key(self.store, self.box))
        key = self._reply_key[0]
        shown = address.replace("\r", "").replace("\n", "")[:300]
        accepted = await accepted_recipient(
            self.store, key, self.domain, address, envelope.mail_from or ""
        )
        if accepted is None:
            return REFUSED.format(address=shown.strip("<>"))
        self._accepted[envelope] = accepted
        envelope.rcpt_tos.append(address)
        envelope.rcpt_options.extend(options)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        bounce_to = self._bounces.pop(envelope, None)
        if bounce_to is not None:
            return await self._bounce(envelope.original_content or b"", bounce_to)
        accepted = self._accepted.pop(envelope, None)
        if accepted is None:
            return "503 5.5.1 no valid recipient"
        try:
            raw = envelope.original_content or b""
            peer = session.peer[0] if isinstance(session.peer, tuple) else ""
            verdict = await judge(
                raw,
                ip=str(peer),
                helo=session.host_name or "",
                mail_from=envelope.mail_from or "",
            )
            stored = await take_received(self.store, self.domain, accepted, raw, verdict)
        except Exception as exc:
            return failure_reply(exc)
        if stored.decided:
            return "250 2.0.0 stored: the request is decided"
        return f"250 2.0.0 stored: {stored.reason}"[:500]

    async def _bounce(self, raw: bytes, address: str) -> str:
        try:
            return "250 2.0.0 " + await take_bounce(self.store, self.domain, raw, address)
        except Exception as exc:
            return failure_reply(exc)
