"""Which mails may carry `auto`: a bridge's auto-forward, which spends no round.

`auto` exists so that a bridge can pass on what its platform produced while it
worked on a mail addressed to its agent — a question, a permission request, the
final summary — without spending the conversation's budget. Any agent key could
set the flag, and a model with shell access can read its own key, so the flag
alone proves nothing: the mail it rides on must be one of those answers. Auto
mails still count as agent-to-agent hops (core/mail/send.py), so two bridged
agents answering each other still stop at the hop limit.
"""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from core.errors import AutoNotAllowed
from core.principal import Principal
from core.store.models import Mail

# What a bridge auto-forwards; each answers a mail addressed to the agent.
AUTO_TYPES = ("permission_request", "question", "final_summary", "turn_failed")
# A mail's one final answer: its summary, or the report that its turn did not finish.
FINAL_ANSWERS = ("final_summary", "turn_failed")


def check_auto(session: Session, principal: Principal, mail_type: str, parent: Mail | None) -> None:
    """Raise AutoNotAllowed unless an `auto` mail of `mail_type` answering `parent` is allowed.

    At most one auto final answer (`final_summary` or `turn_failed`) answers each
    incoming mail; the parent's row is
    locked first (PostgreSQL), so two racing summaries cannot both pass.
    """
    if not principal.is_agent:
        raise AutoNotAllowed("auto is for an agent's bridge auto-forwards, not for humans")
    if mail_type not in AUTO_TYPES:
        raise AutoNotAllowed(
            f"auto is allowed only on a {', '.join(AUTO_TYPES)} (this mail is '{mail_type}'); "
            "send it without auto, as a round"
        )
    if parent is None:
        raise AutoNotAllowed("an auto mail answers a mail addressed to you: give reply_to")
    if parent.to_name != principal.name:
        raise AutoNotAllowed(
            f"an auto mail answers a mail addressed to you; mail {parent.id} is addressed "
            f"to '{parent.to_name}'"
        )
    if mail_type not in FINAL_ANSWERS:
        return
    session.scalar(select(Mail.seq).where(Mail.seq == parent.seq).with_for_update())
    earlier = session.scalar(
        select(func.count()).where(
            Mail.parent_id == parent.id,
            Mail.from_name == principal.name,
            Mail.mail_type.in_(FINAL_ANSWERS),
            Mail.auto.is_(True),
        )
    )
    if earlier:
        raise AutoNotAllowed(
            f"mail {parent.id} already has its auto final answer; send more without auto"
        )


def check_auto_conversation(parent: Mail, conversation_id: str) -> None:
    """An auto mail answers in the conversation of the mail it answers: addressed
    elsewhere (another alias, `.new`), it would spend no round of that conversation."""
    if conversation_id != parent.session_id:
        raise AutoNotAllowed(
            "an auto mail stays in the conversation of the mail it answers; "
            "address it there, or send it without auto"
        )
