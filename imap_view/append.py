"""APPEND (RFC 3501 §6.3.11): where a client may put a message of its own, and what it becomes.

Into `Drafts`, a draft (core/mail/draft_messages.py). Into `Sent`, the copy a client
saves after submitting a mail by SMTP: that mail is filed in Sent already, so
the copy is recognised by its Message-ID and is that mail (no duplicate;
RFC 4315's APPENDUID names it). Nowhere else: APPEND is not a way to send or
import mail.
"""

from __future__ import annotations

import re
from email.parser import BytesHeaderParser
from email.policy import compat32

from pymap.exceptions import NotAllowedError

from core import errors as domain
from core.mail.draft_messages import append_draft
from core.mailboxes.folders import sent_uid
from core.mailboxes.uids import DRAFTS, SENT
from imap_view.backend import Backend
from imap_view.replies import DomainRefusal, failure_refusal, refusal_for

__all__ = ["appended_uid", "message_id_of"]

_MSGID_RE = re.compile(r"<[^<>\s]+>")  # as smtp_in/message.py reads it


def message_id_of(literal: bytes) -> str | None:
    """The Message-ID of an APPENDed message as SMTP stored it: the first `<…>`."""
    value = BytesHeaderParser(policy=compat32).parsebytes(literal).get("Message-ID")
    found = _MSGID_RE.search(str(value)) if value is not None else None
    return found.group(0) if found else None


async def appended_uid(backend: Backend, owner: str, folder_key: str, literal: bytes) -> int:
    """The UID the APPENDed message has in the folder; NotAllowedError says why not,
    and any other failure is a tagged `NO` (`failure_refusal`), never a `BYE`."""
    try:
        return await _appended_uid(backend, owner, folder_key, literal)
    except (NotAllowedError, DomainRefusal):
        raise
    except Exception as exc:
        raise failure_refusal(exc, "APPEND") from exc


async def _appended_uid(backend: Backend, owner: str, folder_key: str, literal: bytes) -> int:
    if folder_key == DRAFTS:
        try:
            return await append_draft(backend.store, backend.domain, owner, literal)
        except domain.DomainError as exc:
            raise refusal_for(exc) from exc
    if folder_key != SENT:
        raise NotAllowedError(
            "APPEND is accepted only into Drafts (a draft) and into Sent (the copy of a "
            "mail you sent through the gateway): send mail by SMTP or the web UI"
        )
    message_id = message_id_of(literal)
    uid = None
    if message_id is not None:
        uid = await sent_uid(backend.store, owner, message_id)
    if uid is None:
        raise NotAllowedError(
            "this message was not sent through the gateway (no stored mail of yours has "
            f"its Message-ID {message_id or '(none)'}): send it by SMTP first"
        )
    return uid
