"""The aiosmtpd handler: hooks named after the SMTP verb, each returning its reply.

Who may send (AUTH), as whom (`MAIL FROM`), to whom (`RCPT TO`) and what
(`DATA`) are decided here with `core` functions only; every message is stored
through `core.mail.send.send_mail`, the one write path, and `250` is sent only after
it committed (RFC 5321 §4.1.1.4: the reply to DATA takes responsibility).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from aiosmtpd.smtp import SMTP, Envelope, Session

from core.address import Address, at_domain, parse_email
from core.approvals.reply_decision import with_reply_decision
from core.errors import AuthenticationFailed, DomainError, InvalidAddress
from core.identity.accounts import check_user_password
from core.identity.keys import authenticate, require_bound_agent
from core.mail.attachment_files import store_files
from core.mail.delivery_check import check_recipient, replied_mail
from core.mail.send import SendRequest, mail_writer, send_mails
from core.principal import Principal
from core.settings import Limits
from core.store.blobs import BlobStore
from core.store.engine import Store
from smtp_in.message import Submitted, parse_submitted
from smtp_in.replies import reply_for

log = logging.getLogger("agentmail.smtp")


@dataclass(frozen=True, slots=True)
class SubmissionHandler:
    store: Store
    domain: str
    limits: Limits
    blobs: BlobStore
    max_attachment_bytes: int

    async def authenticate(self, login: str, secret: str) -> Principal:
        """A user key or a bound agent key, else the user's password.

        The login names who is signing in (a name or its address); a key must be that
        name's, so a client configured for one identity cannot send as another.
        """
        name = self._login_name(login)
        try:
            principal = await authenticate(self.store, secret)
        except AuthenticationFailed:
            return await check_user_password(self.store, name, secret)
        if principal.is_agent:
            require_bound_agent(principal)
        if principal.name != name:
            raise AuthenticationFailed(f"this key belongs to '{principal.name}', not '{name}'")
        return principal

    def _login_name(self, login: str) -> str:
        if "@" in login:
            try:
                return parse_email(login, self.domain).name
            except InvalidAddress:
                return ""
        return login.strip().lower()

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
        if not at_domain(address, self.domain):
            return f"550 5.7.1 relaying denied: {address!r} is not a mailbox of {self.domain}"
        principal = _principal(session)
        sender = self._sender(principal, envelope.mail_from or "")
        workspace = sender.path or None if isinstance(sender, Address) else None
        try:
            await check_recipient(
                self.store,
                self.domain,
                principal,
                address,
                from_workspace=workspace,
                limits=self.limits,
            )
        except DomainError as exc:
            return reply_for(exc)
        envelope.rcpt_tos.append(address)
        envelope.rcpt_options.extend(options)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        principal = _principal(session)
        raw = envelope.original_content or b""
        try:
            message = await asyncio.to_thread(parse_submitted, raw)
        except DomainError as exc:
            return reply_for(exc)
        for text in message.from_addresses:
            refused = self._sender(principal, text)
            if isinstance(refused, str):
                return refused.replace("sender", "From: address", 1)
        sender = self._sender(principal, envelope.mail_from or "")
        assert isinstance(sender, Address)  # MAIL FROM checked it
        try:
            reply_to = await replied_mail(self.store, principal, message.replies_to)
            mails = self._mails(envelope.rcpt_tos, message)
            # The files go to the blob store first (async, outside the transaction); a
            # refusal below leaves them as unsent uploads for the collector.
            carried = await store_files(
                self.store,
                self.blobs,
                principal.name,
                message.attachments,
                copies=len(mails),
                limit=self.max_attachment_bytes,
            )
            # Every recipient was accepted at RCPT; the mails are stored in one
            # transaction, so a refusal here stores none and a retry duplicates nothing.
            writes = [
                mail_writer(
                    self.domain,
                    principal,
                    SendRequest(
                        to=to,
                        cc=cc,
                        subject=message.subject,
                        body=message.body,
                        reply_to=reply_to,
                        from_workspace=sender.path or None,
                        attachment_ids=attachment_ids,
                    ),
                    message_id=message.message_id,
                    raw=raw,
                    limits=self.limits,
                )
                for (to, cc), attachment_ids in zip(mails, carried, strict=True)
            ]
            # A reply naming an option of the request it answers decides it, in the same
            # transaction (docs/deciding-by-mail.md).
            writes = await with_reply_decision(
                writes, self.domain, principal, reply_to, message.body
            )
            stored = len(await send_mails(self.store, writes))
        except DomainError as exc:
            return reply_for(exc)
        except Exception:
            log.exception("storing a submitted message failed")
            return "451 4.3.0 the message could not be stored; try again later"
        return f"250 2.0.0 OK: {stored} mail(s) stored"

    def _mails(self, recipients: list[str], message: Submitted) -> list[tuple[str, list[str]]]:
        """One mail per envelope recipient, except that envelope recipients named in `Cc:`
        ride as cc on the mail to the first envelope recipient named in `To:`."""
        named_to = self._same(recipients, message.to_addresses)
        named_cc = self._same(recipients, message.cc_addresses)
        if not named_to:
            return [(r, []) for r in recipients]
        main = named_to[0]
        cc = [r for r in named_cc if r != main]
        return [(main, cc)] + [(r, []) for r in recipients if r != main and r not in cc]

    def _same(self, recipients: list[str], header: list[str]) -> list[str]:
        wanted = {_parsed(text, self.domain) for text in header} - {None}
        return [r for r in recipients if _parsed(r, self.domain) in wanted]


def _parsed(text: str, domain: str) -> Address | None:
    try:
        return parse_email(text, domain)
    except InvalidAddress:
        return None


def _principal(session: Session) -> Principal:
    principal = session.auth_data
    assert isinstance(principal, Principal)  # auth_required: no MAIL before AUTH
    return principal
