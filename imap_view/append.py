"""APPEND (RFC 3501 §6.3.11): a message a client puts into a folder, and what it becomes.

Into `Drafts`, a draft (core/mail/draft_messages.py). Into `Sent`, a copy a client
saves after submitting a mail by SMTP is that mail, already filed there: it is
recognised by its Message-ID among the mails the person sent (no duplicate; RFC
4315's APPENDUID names it). Anything else, into INBOX, Archive, Trash, Sent or a
folder of the person's own, is a message they file (core/archive/filed.py): kept as
given, with the flags and internal date the APPEND gave, theirs alone. The
gateway's views (`Needs decision`, a conversation's folder) take no message. A
message APPENDed as a literal8 has its `binary` parts base64 first, as Dovecot stores
it (imap_view/binary_append.py).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import replace
from email.parser import BytesHeaderParser
from email.policy import compat32

from pymap.exceptions import NotAllowedError
from pymap.parsing.message import AppendMessage
from pymap.parsing.specials.flag import Answered, Deleted, Draft, Flagged, Seen

from core import errors as domain
from core.archive.filed import FiledFlags, Filing, file_messages
from core.mail.draft_messages import append_draft
from core.mailboxes.folders import sent_uid
from core.mailboxes.personal import is_personal
from core.mailboxes.uids import ARCHIVE, DRAFTS, INBOX, SENT, TRASH
from imap_view.backend import Backend
from imap_view.binary_append import BinaryAppendMessage, base64_binary_parts
from imap_view.replies import DomainRefusal, failure_refusal, refusal_for

__all__ = ["appended_uids", "message_id_of"]

_MSGID_RE = re.compile(r"<[^<>\s]+>")  # as smtp_in/message.py reads it
_FILED_INTO = frozenset({INBOX, ARCHIVE, TRASH, SENT})


def message_id_of(literal: bytes) -> str | None:
    """The Message-ID of an APPENDed message as SMTP stored it: the first `<…>`."""
    value = BytesHeaderParser(policy=compat32).parsebytes(literal).get("Message-ID")
    found = _MSGID_RE.search(str(value)) if value is not None else None
    return found.group(0) if found else None


async def appended_uids(
    backend: Backend, owner: str, folder_key: str, messages: Sequence[AppendMessage]
) -> list[int]:
    """The UIDs the APPENDed messages have in the folder, in order; NotAllowedError says
    why not, and any other failure is a tagged `NO` (`failure_refusal`), never a `BYE`.
    The messages a person files are stored in one transaction (RFC 3502: all or none)."""
    try:
        return await _appended_uids(backend, owner, folder_key, messages)
    except (NotAllowedError, DomainRefusal):
        raise
    except domain.DomainError as exc:
        raise refusal_for(exc) from exc
    except Exception as exc:
        raise failure_refusal(exc, "APPEND") from exc


async def _stored_form(message: AppendMessage) -> AppendMessage:
    """A literal8's message with its `binary` parts base64 (imap_view/binary_append.py,
    RFC 3516 §4.4), in a worker thread: up to the APPENDLIMIT."""
    if not isinstance(message, BinaryAppendMessage) or not message.binary:
        return message
    return replace(message, literal=await asyncio.to_thread(base64_binary_parts, message.literal))


async def _appended_uids(
    backend: Backend, owner: str, folder_key: str, messages: Sequence[AppendMessage]
) -> list[int]:
    messages = [await _stored_form(message) for message in messages]
    if folder_key == DRAFTS:
        return [
            await append_draft(backend.store, backend.domain, owner, m.literal) for m in messages
        ]
    if folder_key not in _FILED_INTO and not is_personal(folder_key):
        raise NotAllowedError(
            "this folder is a view of the gateway's mail: APPEND into INBOX, Sent, "
            "Archive, Trash, Drafts or a folder of your own"
        )
    uids: list[int | None] = [None] * len(messages)
    if folder_key == SENT:  # the copy of a mail sent through the gateway is that mail
        for at, message in enumerate(messages):  # a header read in a thread: up to 25 MB
            message_id = await asyncio.to_thread(message_id_of, message.literal)
            if message_id is not None:
                uids[at] = await sent_uid(backend.store, owner, message_id)
    filed = [at for at, uid in enumerate(uids) if uid is None]
    if filed:
        new = await file_messages(
            backend.store,
            backend.blobs,
            owner,
            backend.domain,
            folder_key,
            [_filing(messages[at]) for at in filed],
            max_attachment_bytes=backend.config.max_append_bytes,
            keyword_limits=backend.keyword_limits,
        )
        for at, uid in zip(filed, new, strict=True):
            uids[at] = uid
    return [uid for uid in uids if uid is not None]


def _filing(message: AppendMessage) -> Filing:
    flags = message.flag_set
    return Filing(
        message.literal,
        FiledFlags(
            seen=Seen in flags,
            flagged=Flagged in flags,
            answered=Answered in flags,
            deleted=Deleted in flags,
            draft=Draft in flags,
            keywords=tuple(sorted(str(f) for f in flags if not f.is_system)),
        ),
        message.when,
    )
