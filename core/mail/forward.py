"""Forwarding: a new mail that quotes an original and carries its attachments.

The forward goes through `send_mail` like any mail, so budgets, addressing and
events behave the same; its conversation is the one its `to` address decides,
and its parent is the original, so the conversation tree follows a forward
across conversations.
"""

from __future__ import annotations

from datetime import UTC
from email.utils import format_datetime

from pydantic import BaseModel, Field
from sqlalchemy import select
from sqlalchemy.orm import Session

from core.mail.addressed import NO_AGENTS
from core.mail.reading import forwardable_mail, mail_view
from core.mail.send import DEFAULT_LIMITS, SendRequest, send_mail
from core.principal import Principal
from core.settings import Limits
from core.store.engine import Store
from core.store.models import Conversation
from core.views import MailView, SendResult

MAX_SUBJECT = 998


class ForwardRequest(BaseModel):
    to: str = Field(description="One address, native or email form.")
    cc: list[str] = Field(default_factory=list, description="More recipients.")
    body: str = Field("", description="Your text, above the quoted original.")
    subject: str | None = Field(
        None, max_length=MAX_SUBJECT, description="Default: `Fwd: <original subject>`."
    )
    from_workspace: str | None = Field(None, description="Agents: the workspace sending.")


def quote_forward(text: str, original: MailView) -> str:
    """The caller's text, then the original as a Markdown block quote: who, when, subject, body.

    The date is written as a mail's own Date header is (RFC 5322 section 3.3), which
    people and mail clients read, not as the API's RFC 3339 timestamp.
    """
    facts = [f"> - **From:** {original.from_}", f"> - **To:** {original.to}"]
    if original.cc:
        facts.append(f"> - **Cc:** {', '.join(original.cc)}")
    facts += [
        f"> - **Date:** {format_datetime(original.created_at.astimezone(UTC))}",
        f"> - **Subject:** {original.subject}",
    ]
    body = original.body or ""
    quoted = [f"> {line}" if line else ">" for line in body.splitlines()]
    block = ["> **Forwarded message**", ">", *facts, *([">", *quoted] if quoted else [])]
    head = text.rstrip()
    return "\n".join([head, "", *block] if head else block) + "\n"


def forward_subject(requested: str | None, original: str) -> str:
    if requested is not None:
        return requested
    return f"Fwd: {original}"[:MAX_SUBJECT].strip()


async def forward_mail(
    store: Store,
    domain: str,
    principal: Principal,
    mail_id: str,
    request: ForwardRequest,
    limits: Limits = DEFAULT_LIMITS,
) -> SendResult:
    """Forward a mail the caller sent or received (403 otherwise; 404 if there is none)."""

    def read_original(session: Session) -> MailView:
        mail = forwardable_mail(session, principal, mail_id)
        alias = session.scalar(select(Conversation.alias).where(Conversation.id == mail.session_id))
        return mail_view(mail, alias, domain, agents=NO_AGENTS)  # only its text is quoted

    original = await store.read(read_original)
    return await send_mail(
        store,
        domain,
        principal,
        SendRequest(
            to=request.to,
            cc=request.cc,
            subject=forward_subject(request.subject, original.subject),
            body=quote_forward(request.body, original),
            from_workspace=request.from_workspace,
        ),
        mail_type="forward",
        forward_of=mail_id,
        limits=limits,
    )
