"""Mail a session COPYed out of its selected folder stays in its view until it EXPUNGEs.

Here a COPY to INBOX, Archive or Trash changes the mail's state (imap_view/writes.py),
so the mail leaves the folder it was copied from at once: every other session, and
the web UI, see it gone. RFC 3501 §6.4.7 COPY leaves the source alone, and clients
build on that: mutt with `trash` set copies the deleted messages to Trash, then
STOREs `\\Deleted` and every other flag change, then EXPUNGEs. But mutt looks for
news (an IDLE, read without waiting) between the COPY and the STOREs, and an
`EXPUNGE` found there makes it abandon the sync as "mailbox reopened": the flags it
was about to STORE were left unsent (tests/integration/test_imap_clients.py's mutt
test failed so in CI, where a busy mutt read the EXPUNGE late enough to find it).

So the copying session alone keeps such a message, with sequence numbers as they
were, until its own EXPUNGE, UID EXPUNGE or CLOSE (RFC 3501 §7.4.1 lets a server
hold back an EXPUNGE response), as a server whose COPY leaves the source would;
SELECT reads the folder anew and forgets them. A `\\Deleted` the client STOREd on
one is cleared at that EXPUNGE (core/mailboxes/placement.py `unmark`): the mail is in
Trash already, where the mark would make the next EXPUNGE there hide it.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["CopiedOut"]


class CopiedOut:
    """One selection's copied-out messages: UID → mail seq, and which are held back."""

    __slots__ = ["_copied", "_held"]

    def __init__(self) -> None:
        self._copied: dict[int, int] = {}
        self._held: set[int] = set()

    def copied(self, pairs: Iterable[tuple[int, int]]) -> None:
        """The (UID, mail seq) pairs a COPY of this session just took."""
        self._copied.update(pairs)

    def withhold(self, expunged: Iterable[int], present: Iterable[int] = ()) -> list[int]:
        """The UIDs of `expunged` to announce now; the copied-out ones are held back.
        One `present` in the folder again (put back meanwhile) is held no more."""
        if not self._copied:
            return list(expunged)
        self._held.difference_update(present)
        shown = []
        for uid in expunged:
            if uid in self._copied:
                self._held.add(uid)
            else:
                shown.append(uid)
        return shown

    def release(self) -> tuple[list[int], list[int]]:
        """At the session's EXPUNGE: the mail seqs of every copied-out message (their
        `\\Deleted` to clear) and the UIDs of the held ones (to go from the view now)."""
        released = list(self._copied.values()), sorted(self._held)
        self.forget()
        return released

    def forget(self) -> None:
        """At SELECT: the view is read anew from the folder, without them."""
        self._copied.clear()
        self._held.clear()
