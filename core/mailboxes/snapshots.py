"""Folder states as last read, shared by one process's IMAP sessions, brought up to date
by mod-sequence: a SELECT reads only what changed since any session last read the folder.

SELECT needs every UID and flag of the folder (message numbers are positions), and
reading 10,000 rows was most of a SELECT's time — also of a QRESYNC resync
(RFC 7162 §3.2.5), which exists to be cheap. The folder's rows only change with
its mod-sequence (core/mailboxes/uids.py: whatever changes what IMAP shows raises
it in the same transaction), so a state read at mod-sequence m plus `read_changes`
since m, in one snapshot, is the state now: the same reasoning that keeps a
selected session current (core/mailboxes/contents.py). Expunge records pruned past
m (`FolderChanges.whole`) mean a full read. Drafts are never kept (no
mod-sequences). The least recently used states go first once the kept messages
pass `max_messages`.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import replace

from sqlalchemy.orm import Session

from core.mailboxes.contents import FolderChanges, FolderState, folder_state, read_changes
from core.mailboxes.folders import FolderInfo
from core.mailboxes.keywords import keywords_in_use
from core.mailboxes.uids import DRAFTS
from core.store.engine import Store

__all__ = ["FolderSnapshots"]


class FolderSnapshots:
    def __init__(self, max_messages: int = 200_000) -> None:
        self.max_messages = max_messages
        self._states: OrderedDict[int, FolderState] = OrderedDict()
        self._kept = 0

    async def state(self, store: Store, owner: str, folder: FolderInfo) -> FolderState:
        """The folder's messages now (as `folder_state`), from the kept state when there is one."""
        known = self._states.get(folder.id)
        if folder.key == DRAFTS or known is None or known.folder.key != folder.key:
            state = await folder_state(store, owner, folder)
        else:

            def run(session: Session) -> FolderState | None:
                changes = read_changes(session, owner, folder, known.highest_modseq)
                if changes.whole:
                    return None
                return _merged(known, changes, tuple(keywords_in_use(session, owner)), folder)

            merged = await store.read(run)
            state = merged if merged is not None else await folder_state(store, owner, folder)
        self._keep(state)
        return state

    def _keep(self, state: FolderState) -> None:
        if state.folder.key == DRAFTS or len(state.messages) > self.max_messages:
            return
        folder_id = state.folder.id
        previous = self._states.pop(folder_id, None)
        if previous is not None:
            self._kept -= len(previous.messages)
            if previous.highest_modseq > state.highest_modseq:  # a later read won meanwhile
                state = previous
        self._states[folder_id] = state
        self._kept += len(state.messages)
        while self._kept > self.max_messages and len(self._states) > 1:
            _, evicted = self._states.popitem(last=False)
            self._kept -= len(evicted.messages)


def _merged(
    known: FolderState, changes: FolderChanges, keywords: tuple[str, ...], folder: FolderInfo
) -> FolderState:
    """`known` with the changes applied: UIDs ascend, and a UID is never given twice, so
    the messages that entered the folder come after every one it had (RFC 3501 §2.3.1.1)."""
    if not changes.changed and not changes.expunged:
        return replace(
            known,
            folder=folder,
            next_uid=changes.next_uid,
            keywords=keywords,
            recent_uid=changes.recent_uid,
        )
    by_uid = {message.uid: message for message in known.messages}
    for uid in changes.expunged:
        by_uid.pop(uid, None)
    entered = []
    for message in changes.changed:
        if message.uid in by_uid:
            by_uid[message.uid] = message
        else:
            entered.append(message)
    messages = list(by_uid.values())
    if entered and messages and entered[0].uid < messages[-1].uid:  # never, by the above
        messages = sorted([*messages, *entered], key=lambda m: m.uid)
    else:
        messages += entered
    return FolderState(
        folder, changes.next_uid, changes.highest_modseq, messages, keywords, changes.recent_uid
    )
