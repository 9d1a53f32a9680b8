"""What IMAP may change in the store: flags, and which of INBOX, Archive, Trash or a
folder of the human's own holds a mail.

ARCHITECTURE.md "IMAP": a mail is in several mailboxes at once (INBOX and its
conversation's folder); moving it out of INBOX to Archive or Trash changes the
recipient's state (core/mailboxes/placement.py, the same change as the web UI's buttons),
and it leaves INBOX, never its conversation's folder. A folder of the human's own
(core/mailboxes/personal.py) is one more such place. So:

- STORE sets `\\Seen`, `\\Flagged`, `\\Answered`, `\\Deleted` and keywords per
  recipient (core/mailboxes/keywords.py); `\\Deleted` marks for the EXPUNGE of any session.
- EXPUNGE in INBOX, Archive or an own folder moves to Trash; in Trash it hides the mail from IMAP
  (it stays deleted, restorable in the web UI); in Drafts it deletes the drafts.
  Elsewhere nothing can leave, and EXPUNGE says so.
- MOVE (RFC 6851) between INBOX, Archive, Trash and own folders; MOVE from Drafts to
  Trash deletes the draft. COPY to one of those from any folder that holds mail
  changes the state the same way (from a conversation's folder, the mail stays
  there: that is what COPY means).
Every other write is `NO` with the reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from pymap.exceptions import NotAllowedError
from pymap.flags import FlagOp
from pymap.parsing.specials.flag import Answered, Deleted, Draft, Flag, Flagged, Seen
from sqlalchemy.orm import Session

from core.errors import DomainError
from core.mailboxes.drafts import delete_drafts, is_draft_seq
from core.mailboxes.keywords import Keeping, KeywordLimits
from core.mailboxes.personal import is_personal
from core.mailboxes.placement import (
    change_placement,
    hide_in_trash,
    placement_in,
    set_flags,
    unmark,
)
from core.mailboxes.uids import ARCHIVE, DECISION, DRAFTS, INBOX, SENT, TRASH, renumber_mails
from core.mailboxes.unchanged_since import changed_after
from core.store.engine import Store
from imap_view.message import Message
from imap_view.replies import refusal_for

__all__ = ["expunge", "mark_seen", "store_flags", "transfer", "unmark_copied"]

K = TypeVar("K")
KEPT_FLAGS = {
    Seen: "seen",
    Flagged: "flagged",
    Answered: "answered",
    Deleted: "deleted",
    Draft: "draft",
}


# The state a mail takes when it is put into one of these folders (and into an own one:
# `entering`).
STAYING = {
    SENT: "Sent keeps every mail you sent",
    DECISION: "Needs decision keeps the open permission requests until they are decided",
}
CONVERSATION = (
    "a conversation's folder keeps every mail of the conversation: delete or archive "
    "from INBOX, or COPY to Trash or Archive (the mail stays here)"
)


def _staying(key: str) -> str:
    return STAYING.get(key, CONVERSATION)


async def store_flags(
    store: Store,
    owner: str,
    messages: Sequence[Message],
    flags: frozenset[Flag],
    mode: FlagOp,
    limits: KeywordLimits,
    *,
    unchanged_since: tuple[int, int] | None = None,
) -> set[int]:
    """STORE of the kept flags and keywords on a whole set (RFC 3501 §6.4.6).

    Every message of the set is given the values the command names, whatever the
    session last saw of it (another session may have changed it since; Dovecot
    applies a STORE to the flags a message has, tests/integration/
    test_imap_store_oracle.py): with FLAGS each kept flag as listed, its keywords
    and no other, with +FLAGS or -FLAGS those it names. So `set_flags`
    (core/mailboxes/placement.py) writes them in one statement per kind, and a
    stored row that has them already is left as it is. `\\Recent` is not kept.

    With `unchanged_since` (folder id, stored mod-sequence: RFC 7162 §3.1.3's
    UNCHANGEDSINCE) a message changed after it is left alone; the mail seqs of those
    are returned (the MODIFIED ones), tested in the same transaction as the write.
    """
    flags = frozenset(f for f in flags if f in KEPT_FLAGS or not f.is_system)
    wanted = [m.mail_seq for m in messages if not is_draft_seq(m.mail_seq)]  # drafts: none
    if not wanted:
        return set()
    changes, added, removed = _given(flags, mode, wanted)

    def write(session: Session) -> set[int]:
        modified: set[int] = set()
        if unchanged_since is not None:
            folder_id, modseq = unchanged_since
            modified = changed_after(session, owner, folder_id, wanted, modseq)
        keeping = None
        if mode == FlagOp.REPLACE:  # FLAGS: no keyword but those it lists stays
            kept = [seq for seq in wanted if seq not in modified]
            keeping = Keeping(kept, frozenset(added))
        set_flags(
            session,
            owner,
            _without(changes, modified),
            added=_without(added, modified),
            removed=_without(removed, modified),
            keeping=keeping,
            limits=limits,
        )
        return modified

    try:
        return await store.write(write)
    except DomainError as exc:  # a keyword past its limits: nothing was changed
        raise refusal_for(exc) from exc


def _given(
    flags: frozenset[Flag], mode: FlagOp, seqs: list[int]
) -> tuple[dict[tuple[str, bool], list[int]], dict[str, list[int]], dict[str, list[int]]]:
    """What `store_flags` gives the mails `seqs`: (flag, value), keywords added and
    keywords removed (FLAGS removes the others: `Keeping`)."""
    keywords = {str(f) for f in flags if not f.is_system}
    if mode == FlagOp.REPLACE:
        changes = {(name, flag in flags): seqs for flag, name in KEPT_FLAGS.items()}
        return changes, dict.fromkeys(keywords, seqs), {}
    value = mode == FlagOp.ADD
    changes = {(name, value): seqs for flag, name in KEPT_FLAGS.items() if flag in flags}
    named = dict.fromkeys(keywords, seqs)
    return (changes, named, {}) if value else (changes, {}, named)


def _without(by_key: dict[K, list[int]], left_out: set[int]) -> dict[K, list[int]]:
    kept = {key: [seq for seq in seqs if seq not in left_out] for key, seqs in by_key.items()}
    return {key: seqs for key, seqs in kept.items() if seqs}


async def mark_seen(store: Store, owner: str, mail_seqs: Sequence[int]) -> None:
    """FETCH of `BODY[]` without PEEK (RFC 3501 §6.4.5)."""
    if mail_seqs:
        await store.write(lambda session: set_flags(session, owner, {("seen", True): [*mail_seqs]}))


async def expunge(store: Store, owner: str, folder_key: str, messages: Sequence[Message]) -> None:
    """RFC 3501 §6.4.3 EXPUNGE of the messages marked `\\Deleted` (see module doc)."""
    if not messages:
        return
    seqs = [message.mail_seq for message in messages]
    if folder_key in (INBOX, ARCHIVE) or is_personal(folder_key):

        def to_trash(session: Session) -> None:
            change_placement(session, owner, seqs, deleted=True)
            unmark(session, owner, seqs)  # those a COPY took to Trash already

        await store.write(to_trash)
    elif folder_key == TRASH:
        await store.write(lambda session: hide_in_trash(session, owner, seqs))
    elif folder_key == DRAFTS:
        await delete_drafts(store, owner, [message.uid for message in messages])
    else:
        raise NotAllowedError(f"nothing was expunged: {_staying(folder_key)}")


async def unmark_copied(store: Store, owner: str, mail_seqs: Sequence[int]) -> None:
    """At the EXPUNGE of a session that COPYed these out of its folder: a `\\Deleted` it
    STOREd on them meanwhile is done with (imap_view/copied_out.py)."""
    await store.write(lambda session: unmark(session, owner, mail_seqs))


async def _renumber(
    store: Store, owner: str, key: str, messages: Sequence[Message]
) -> dict[int, int]:
    """MOVE into the folder itself: new UIDs, the old ones expunged (RFC 6851 §3.3)."""
    seqs = [message.mail_seq for message in messages]
    moved = await store.write(lambda session: renumber_mails(session, seqs, owner, key))
    if not moved:
        raise NotAllowedError("no message was moved: they were gone already")
    return moved


async def transfer(
    store: Store,
    owner: str,
    source: str,
    target: str,
    messages: Sequence[Message],
    *,
    move: bool,
) -> dict[int, int]:
    """MOVE or COPY: the new UID in `target` of each mail that went there, by mail seq.

    Raises NotAllowedError for a write the store cannot make, and for one that
    changed nothing (never a false OK).
    """
    verb = "MOVE" if move else "COPY"
    if source == DRAFTS:
        if move and target == TRASH:
            gone = await delete_drafts(store, owner, [message.uid for message in messages])
            if not gone:
                raise NotAllowedError("no draft was deleted: they were gone already")
            return {}
        raise NotAllowedError(f"drafts are not mail: {verb} to Trash deletes one, nothing else")
    state = placement_in(target)
    if move and target == source and state is not None:
        return await _renumber(store, owner, source, messages)
    if state is None or target == source:
        raise NotAllowedError(
            f"{verb} puts mail into INBOX, Archive, Trash or a folder of your own only, "
            "from another folder: the other folders are views of the store"
        )
    if move and placement_in(source) is None:
        raise NotAllowedError(f"nothing can be moved out: {_staying(source)}")
    seqs = [message.mail_seq for message in messages]
    moved = await store.write(
        lambda session: change_placement(
            session,
            owner,
            seqs,
            archived=state.archived,
            deleted=state.deleted,
            folder=state.folder,
        )
    )
    if not moved:
        raise NotAllowedError(
            f"no message was {'moved' if move else 'copied'}: they are there already, or "
            "are mails you only sent (those have no INBOX, Archive, Trash or folder of "
            "their own)"
        )
    return moved
