"""The aiosmtpd handler: hooks named after the SMTP verb, each returning its reply.

Who may send (AUTH), as whom (`MAIL FROM`), to whom (`RCPT TO`) and what
(`DATA`) are decided here with `core` functions only; every message is stored
through `core.mail.send.send_mail`, the one write path, and `250` is sent only after
it committed (RFC 5321 §4.1.1.4: the reply to DATA takes responsibility).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import format_datetime
from typing import ParamSpec, TypeVar
from weakref import WeakKeyDictionary

from aiosmtpd.smtp import SMTP, Envelope, Session
from pydantic import ValidationError

from core import metrics
from core.address import POSTMASTER, Address, at_domain, parse_email
from core.approvals.reply_decision import with_reply_decision
from core.errors import DomainError, InvalidAddress
from core.identity.endpoints import Endpoint
from core.mail.attachment_files import store_files
from core.mail.delivery_check import check_recipient, replied_mail
from core.mail.recipients import Plan, plan_mails
from core.mail.resubmission import send_once, submission_key
from core.mail.send import SendRequest, mail_writer
from core.principal import Principal
from core.settings import Limits
from core.store.blobs import BlobStore
from core.store.engine import Store
from core.store.raw_messages import Original
from core.store.transient import is_transient
from smtp_in.message import Submitted, parse_submitted
from smtp_in.protocol_replies import ehlo_lines
from smtp_in.replies import failure_reply, reply_for
from smtp_in.sender_headers import foreign_address_in_name, with_added_headers

log = logging.getLogger("agentmail.smtp")
P = ParamSpec("P")
R = TypeVar("R")
# Messages up to this size are parsed and hashed on the loop (under the GIL a worker
# thread is no faster); bigger ones in a worker thread, so the loop keeps serving others.
INLINE_BYTES = 32 * 1024
# HTML costs more a byte (markdownify's cost is per element, and a table is many), so a
# message with an HTML part goes to the thread from this size.
INLINE_HTML_BYTES = 4 * 1024
_HTML = re.compile(rb"text/html", re.IGNORECASE)


# No `slots=True`: aiosmtpd reads the handler with `inspect.getmembers`, and on CPython
# 3.11.0-3.11.3 a slots dataclass keeps a `__weakref__` descriptor of the class it
# replaced, which raises there (CPython gh-102069): every connection would then fail
# while its protocol is built, before the greeting.
@dataclass(frozen=True)
class SubmissionHandler:
    store: Store
    domain: str
    limits: Limits
    blobs: BlobStore
    max_attachment_bytes: int
    max_recipients: int = 100
    # What RCPT TO resolved, by address, for DATA's plan: each envelope's own (aiosmtpd
    # makes a new envelope per transaction, so a RSET or a new MAIL drops it).
    _resolved: WeakKeyDictionary[Envelope, dict[str, Endpoint]] = field(
        default_factory=WeakKeyDictionary, compare=False, repr=False
    )

    def _sender(self, principal: Principal, text: str) -> Address | str:
        """The sender's address, or the 553 reply why it is not theirs."""
        try:
            address = parse_email(text, self.domain)
        except InvalidAddress as exc:
            return f"553 5.7.1 sender {text!r} is not an address of this gateway: {exc.message}"
        if address.name != principal.name:
            return (
                f"553 5.7.1 sender {text!r} is not you: you are signed in as"
                f" '{principal.name}' ({principal.name}@{self.domain})"
            )
        return address

    async def handle_exception(self, error: Exception) -> str:
        """An unexpected error in a command: temporary when a retry may succeed (the
        store unreachable), else permanent; logged, its text not sent (aiosmtpd's
        default is `500 Error: (...)`, permanent whatever the cause)."""
        if isinstance(error, DomainError):
            return reply_for(error)
        if is_transient(error):
            log.error("an SMTP command failed (temporary)", exc_info=error)
            return "451 4.3.0 the command could not be carried out; try again later"
        log.error("an SMTP command failed (permanent)", exc_info=error)
        return "554 5.3.0 the command could not be carried out: the gateway failed on it"

    async def handle_EHLO(
        self, server: SMTP, session: Session, envelope: Envelope, hostname: str, lines: list[str]
    ) -> list[str]:
        session.host_name = hostname  # aiosmtpd leaves it to a handler's EHLO hook
        return ehlo_lines(lines)

    async def handle_MAIL(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: list[str]
    ) -> str:
        sender = self._sender(_principal(session), address)
        if isinstance(sender, str):
            return sender
        envelope.mail_from = address
        envelope.mail_options.extend(options)
        return "250 2.1.0 OK"

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: list[str]
    ) -> str:
        if len(envelope.rcpt_tos) >= self.max_recipients:
            # RFC 5321 §4.5.3.1.8: 452, so the client sends the rest in another transaction.
            return f"452 4.5.3 Too many recipients: at most {self.max_recipients} per message"
        if address.strip("<> ").lower() == POSTMASTER:
            # RFC 5321 §4.1.1.3: `RCPT TO:<Postmaster>` names this domain's postmaster.
            address = f"{POSTMASTER}@{self.domain}"
        if not at_domain(address, self.domain):
            return f"550 5.7.1 relaying denied: {address!r} is not a mailbox of {self.domain}"
        principal = _principal(session)
        sender = self._sender(principal, envelope.mail_from or "")
        workspace = sender.path or None if isinstance(sender, Address) else None
        try:
            endpoint = await check_recipient(
                self.store,
                self.domain,
                principal,
                address,
                from_workspace=workspace,
                limits=self.limits,
            )
        except DomainError as exc:
            return reply_for(exc)
        self._resolved.setdefault(envelope, {})[address] = endpoint
        envelope.rcpt_tos.append(address)
        envelope.rcpt_options.extend(options)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        """Store the message; a `250` is a mail accepted, timed from the end of DATA."""
        started = time.perf_counter()
        reply = await self._store_message(session, envelope)
        if reply.startswith("250"):
            metrics.MAILS_ACCEPTED.labels("smtp").inc()
            metrics.SEND_COMMIT_SECONDS.labels("smtp").observe(time.perf_counter() - started)
        return reply

    async def _store_message(self, session: Session, envelope: Envelope) -> str:
        """The reply to DATA; every failure is classified (smtp_in/replies.py): a
        refusal from its table, else `451` when a retry may succeed and `550` when not."""
        try:
            return await self._store(session, envelope)
        except DomainError as exc:
            return reply_for(exc)
        except ValidationError as exc:
            # The same message would be refused again: permanent (never a 4xx, docs/smtp.md).
            reason = " ".join(str(e["msg"]) for e in exc.errors())
            return f"550 5.6.0 the message cannot be stored: {reason}"
        except Exception as exc:
            return failure_reply(exc)

    async def _store(self, session: Session, envelope: Envelope) -> str:
        principal = _principal(session)
        raw = envelope.original_content or b""
        sender = self._sender(principal, envelope.mail_from or "")
        assert isinstance(sender, Address)  # MAIL FROM checked it
        message, message_id, original = await _off_the_loop_when_big(
            raw, _read_submission, raw, sender.email(self.domain), self.domain
        )
        for text in message.from_addresses:
            refused = self._sender(principal, text)
            if isinstance(refused, str):
                return refused.replace("sender", "From: address", 1)
        shown = foreign_address_in_name(message.from_names, lambda a: self._is_own(principal, a))
        if shown is not None:
            return (
                f"550 5.7.1 the From: display name shows {shown!r}, which is not you"
                f" ({principal.name}@{self.domain}): leave the name out or use your own"
            )
        # The same message again (its 250 was lost) gets the first reply, nothing stored:
        # found in the write's own transaction, so the common case costs no extra read.
        key = None
        if message.has_message_id:
            mail_from, recipients = envelope.mail_from or "", envelope.rcpt_tos
            # The kept bytes are the submitted ones unless headers were added: their hash
            # then serves (a Date added now would make every resend look new).
            content = original.sha256
            if len(original.data) != len(raw):
                content = await _off_the_loop_when_big(raw, _sha256, raw)
            key = submission_key(message_id, mail_from, recipients, content)
        reply_to = await replied_mail(self.store, principal, message.replies_to)
        plan = await plan_mails(
            self.store,
            self.domain,
            envelope.rcpt_tos,
            to_header=message.to_addresses,
            cc_header=message.cc_addresses,
            reply_to=reply_to,
            resolved=self._resolved.pop(envelope, None),
        )
        # The files go to the blob store first (async, outside the transaction); a
        # refusal below leaves them as unsent uploads for the collector.
        carried = await store_files(
            self.store,
            self.blobs,
            principal.name,
            message.attachments,
            copies=len(plan.mails),
            limit=self.max_attachment_bytes,
        )
        # Every recipient was accepted at RCPT; the mails are stored in one
        # transaction, so a refusal here stores none and a retry duplicates nothing.
        # It is bounded: at most `max_recipients` mails (RCPT's 452 beyond).
        writes = [
            mail_writer(
                self.domain,
                principal,
                SendRequest(
                    to=mail.to,
                    cc=mail.cc,
                    subject=message.subject,
                    body=message.body,
                    reply_to=reply_to,
                    from_workspace=sender.path or None,
                    attachment_ids=attachment_ids,
                ),
                message_id=message_id,
                raw=original,
                limits=self.limits,
            )
            for mail, attachment_ids in zip(plan.mails, carried, strict=True)
        ]
        # A reply naming an option of the request it answers decides it, in the same
        # transaction (docs/deciding-by-mail.md).
        writes = await with_reply_decision(writes, self.domain, principal, reply_to, message.body)
        reply, replayed = await send_once(
            self.store, principal.name, key, writes, lambda done: _stored_reply(len(done), plan)
        )
        if replayed:
            log.info("%s sent %s again: answered as the first time", principal.name, message_id)
        return reply

    def _is_own(self, principal: Principal, text: str) -> bool:
        parsed = _parsed(text, self.domain) if at_domain(text, self.domain) else None
        return parsed is not None and parsed.name == principal.name


def _read_submission(raw: bytes, sender: str, domain: str) -> tuple[Submitted, str, Original]:
    """The message's fields, its Message-ID, and the bytes kept for it (with the
    `From:`, `Message-ID:` and `Date:` it lacked, RFC 6409 §8) hashed: one pass of
    CPU work, so one hop off the loop at most."""
    message = parse_submitted(raw)
    # One Message-ID for the whole submission, whatever number of mails it makes.
    message_id = message.message_id or f"<{uuid.uuid4()}@{domain}>"
    kept = with_added_headers(
        raw,
        sender=None if message.has_from else sender,
        message_id=None if message.has_message_id else message_id,
        date=None if message.has_date else format_datetime(datetime.now(UTC)),
    )
    return message, message_id, Original.of(kept)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


async def _off_the_loop_when_big(
    data: bytes, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs
) -> R:
    """Run CPU work on `data` in a worker thread only when it is big: under the GIL a
    thread runs no faster, and a hop there and back costs more than parsing a few KB."""
    small = len(data) <= INLINE_HTML_BYTES or _HTML.search(data) is None
    if len(data) <= INLINE_BYTES and small:
        return fn(*args, **kwargs)
    return await asyncio.to_thread(fn, *args, **kwargs)


def _stored_reply(stored: int, plan: Plan) -> str:
    """How many mails were stored, and why fewer than the recipients when so."""
    text = f"250 2.0.0 {stored} mail{'' if stored == 1 else 's'} stored"
    reasons = []
    if plan.duplicates:
        reasons.append(f"{plan.duplicates} named a mailbox and conversation named before")
    if plan.shared:
        reasons.append(f"{plan.shared} shared a conversation with another, as cc")
    if reasons:
        text += f" for {plan.recipients} recipients ({'; '.join(reasons)})"
    return text


def _parsed(text: str, domain: str) -> Address | None:
    try:
        return parse_email(text, domain)
    except InvalidAddress:
        return None


def _principal(session: Session) -> Principal:
    principal = session.auth_data
    assert isinstance(principal, Principal)  # auth_required: no MAIL before AUTH
    return principal
