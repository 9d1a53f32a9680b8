"""One IMAP session's message contents, loaded in sets for the running command.

The content is the mail's original bytes when it arrived as RFC 5322 (SMTP,
import), else its rendering (core/rendering/render.py). A FETCH or SEARCH that needs
content loads all its messages' content first (`Contents.load`, a few queries
and one worker thread for the lot); each message then finds its own there.
Parsed contents are shared across sessions by `ContentCache`. A draft (in
`Drafts`, a negative seq: core/mailboxes/drafts.py) is rendered from its row each time.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from datetime import datetime
from itertools import islice
from typing import TypeVar

from pymap.mime import MessageContent

from core.mailboxes.contents import created_dates
from core.mailboxes.drafts import draft_dates, is_draft_seq, render_drafts
from core.rendering.batch import (
    content_key,
    content_keys_and,
    load_many,
    render_loaded,
)
from core.rendering.stored import RenderInputs
from core.store.engine import Transaction
from core.store.raw_messages import originals_within
from imap_view.backend import Backend
from imap_view.freshness import Freshness
from imap_view.kept_contents import load_kept
from imap_view.kept_fetch import KeptMessage
from imap_view.message_sets import FOLLOWING
from imap_view.parsed_contents import content_of_bytes, render_and_parse

__all__ = ["Contents"]

T = TypeVar("T")
# Bytes of the next originals read along with one a client fetches whole (mbsync's
# pull): one store read for many messages, well within the cache's quarter for bytes.
READ_AHEAD_BYTES = 4 * 1024 * 1024


class Contents:
    """One IMAP session's message contents for the running command (see module doc)."""

    def __init__(self, backend: Backend, owner: str, freshness: Freshness) -> None:
        self._backend = backend
        self._owner = owner
        self._freshness = freshness
        self._command: dict[int, MessageContent] = {}
        self._bytes: dict[int, bytes] = {}  # unparsed, for a FETCH of whole messages only
        self._dates: dict[int, datetime] = {}
        self._kept: dict[int, KeptMessage] = {}  # a kept-only FETCH's messages
        # The mail a client fetching whole messages in order asks for next: when it
        # does, the bytes of those after it are read along (`READ_AHEAD_BYTES`).
        self._next_whole: int | None = None
        # Content keys are the human's, shared by their sessions (imap_view/shared_reads.py):
        # read while nothing was committed for them, a key changes with a rename or a
        # decision, which wake.
        self._keys = backend.shared_reads.keys_of(owner)
        # RFC 6855 UTF8=ACCEPT, once a session can ENABLE it: ENVELOPE and
        # BODYSTRUCTURE then carry UTF-8 instead of encoded-words (imap_view/message.py).
        self.utf8_accept = False

    async def load_dates(self, mail_seqs: Iterable[int]) -> None:
        """INTERNALDATE of these mails, for the session (SELECT reads no dates)."""
        wanted = [seq for seq in mail_seqs if seq not in self._dates]
        drafts = [seq for seq in wanted if is_draft_seq(seq)]
        if drafts:
            owner = self._owner
            found = await self._backend.store.read(lambda s: draft_dates(s, owner, drafts))
            self._dates.update(found)
            wanted = [seq for seq in wanted if not is_draft_seq(seq)]
        if wanted:
            self._dates.update(await created_dates(self._backend.store, wanted))

    def date_of(self, mail_seq: int) -> datetime:
        try:
            return self._dates[mail_seq]
        except KeyError:
            raise RuntimeError(f"INTERNALDATE of mail {mail_seq} was not loaded") from None

    async def load(
        self,
        mail_seqs: Iterable[int],
        *,
        bytes_only: bool = False,
        alongside: Transaction[T] | None = None,
        following: Callable[[], Iterable[int]] = tuple,
    ) -> T | None:
        """Make the content of these mails available until the command ends.

        What the shared cache holds costs one light query (its keys); only the
        others are loaded, rendered and parsed (a listing takes kept summaries instead,
        `load_kept`).
        With `bytes_only` (a FETCH of whole messages, sizes, flags: mbsync's
        `UID FETCH n (BODY.PEEK[])`) a mail not cached parsed is not parsed: its bytes
        (`bytes_of`) are all the command writes; when the session asked for the mail
        that followed its last one, the next originals' bytes are read along (up to
        `READ_AHEAD_BYTES`), so a pull reads the store once in many commands.
        `alongside` runs in the same store read as the keys (its result is
        returned): a command's other read costs no second hand-off. The keys are
        kept while nothing was committed for the owner, and a read of them takes
        along those of the `following` mails: a client that fetches one message per
        command (mbsync) then reads the store once in a few hundred commands.
        """
        wanted = [seq for seq in dict.fromkeys(mail_seqs) if seq not in self._command]
        drafts = [seq for seq in wanted if is_draft_seq(seq)]
        if drafts:
            await self._load_drafts(drafts)
            wanted = [seq for seq in wanted if not is_draft_seq(seq)]
        backend = self._backend
        keys, extra = await self._read_keys(wanted, alongside, following)
        sequential = False
        if bytes_only:  # one whole message after the other (mbsync's pull) reads ahead
            sequential = bool(wanted) and wanted[0] == self._next_whole
            self._next_whole = next(iter(following()), None)
        missing = []
        for seq, key in keys.items():
            cached = backend.contents.get(key)
            if cached is None:
                missing.append(seq)
            else:
                self._command[seq] = cached
        if not missing:
            return extra
        cache = backend.contents
        marks: dict[int, bool | None] = {}
        # Evicted parsed but still kept as bytes: parsed again, not read nor rendered.
        kept = {seq: raw for seq in missing if (raw := cache.get_raw(keys[seq])) is not None}
        unrendered = [seq for seq in missing if seq not in kept]
        loaded: dict[int, bytes | RenderInputs] = {}
        if unrendered and sequential:
            ahead = self._ahead(following)
            loaded, read_ahead = await backend.store.read(
                lambda session: (
                    load_many(session, unrendered, marks),
                    originals_within(session, ahead, READ_AHEAD_BYTES),
                )
            )
            for seq, data in read_ahead.items():
                cache.put_raw(self._keys.keys[seq], data)
        elif unrendered:
            loaded = await backend.store.read(lambda session: load_many(session, unrendered, marks))
        if bytes_only:
            rendered: dict[int, bytes] = {}
            if loaded:
                blobs, domain = backend.blobs, backend.domain
                rendered = await asyncio.to_thread(render_loaded, loaded, blobs, domain)
            for seq, data in rendered.items():
                cache.put_raw(content_key(seq, loaded[seq]), data)
            self._bytes.update(kept)
            self._bytes.update(rendered)
            return extra
        parsed = await asyncio.to_thread(render_and_parse, loaded, marks, kept, backend)
        for seq, (content, size, raw) in parsed.items():
            key = content_key(seq, loaded[seq]) if seq in loaded else keys[seq]
            cache.put(key, content, size, raw)
            self._command[seq] = content
        return extra

    def _ahead(self, following: Callable[[], Iterable[int]]) -> list[int]:
        """The next mails a client fetching whole messages one at a time will ask for
        whose keys are read and whose bytes are not in the cache: originals, read ahead."""
        contents, keys = self._backend.contents, self._keys.keys
        ahead: list[int] = []
        for seq in following():
            key = keys.get(seq)
            if key is None or len(key) != 1 or len(ahead) >= FOLLOWING:
                break
            if contents.get_raw(key) is None and contents.get(key) is None:
                ahead.append(seq)
        return ahead

    async def _read_keys(
        self,
        wanted: list[int],
        alongside: Transaction[T] | None,
        following: Callable[[], Iterable[int]],
    ) -> tuple[dict[int, tuple[object, ...]], T | None]:
        """The content keys of `wanted` (see `load`), and what `alongside` read. An
        original's key (its seq alone) never changes, so it outlives a commit for the
        owner; a rendering's (its alias, its permission state) is read again."""
        known = self._keys.current(self._freshness)
        unknown = [seq for seq in wanted if seq not in known]
        extra = None
        read: dict[int, tuple[object, ...]] = {}
        if unknown or alongside is not None:
            if unknown:
                ahead = (s for s in following() if s not in known and not is_draft_seq(s))
                unknown += list(islice(ahead, FOLLOWING))
            stamp = self._freshness.stamp()
            read, extra = await self._backend.store.read(content_keys_and(unknown, alongside))
            self._keys.add(read, stamp)
        found = {}
        for seq in wanted:
            key = read.get(seq) or known.get(seq)
            if key is not None:
                found[seq] = key
        return found, extra

    async def load_kept(
        self,
        mail_seqs: Iterable[int],
        *,
        alongside: Transaction[T] | None = None,
        following: Callable[[], Iterable[int]] = tuple,
    ) -> T | None:
        """For a FETCH whose items a kept structure answers (imap_view/kept_fetch.py,
        `kept_only`): each mail's kept summary (imap_view/kept_contents.py), its bytes
        neither read nor parsed. A draft, and a mail kept without a summary, get their
        content as `load` gives it. `alongside` and `following` as for `load`."""
        wanted = [seq for seq in dict.fromkeys(mail_seqs) if seq not in self._kept]
        drafts = [seq for seq in wanted if is_draft_seq(seq)]
        keys, extra = await self._read_keys(
            [seq for seq in wanted if not is_draft_seq(seq)], alongside, following
        )
        parsed = await load_kept(self._backend, keys, self._kept)
        if drafts or parsed:
            await self.load([*drafts, *parsed])
        return extra

    def kept_of(self, mail_seq: int) -> KeptMessage | None:
        return self._kept.get(mail_seq)

    async def _load_drafts(self, seqs: list[int]) -> None:
        backend, owner = self._backend, self._owner
        raw = await backend.store.read(
            lambda session: render_drafts(session, owner, seqs, backend.domain)
        )
        parsed = await asyncio.to_thread(
            lambda: {seq: content_of_bytes(data, None) for seq, data in raw.items()}
        )
        self._command.update(parsed)

    async def get(self, mail_seq: int) -> MessageContent | None:
        if mail_seq not in self._command:
            await self.load([mail_seq])
        return self._command.get(mail_seq)

    def loaded(self, mail_seq: int) -> MessageContent | None:
        """A mail's content if the running command loaded it (`load`), else None."""
        return self._command.get(mail_seq)

    def bytes_of(self, mail_seq: int) -> bytes | None:
        """A loaded mail's bytes: kept unparsed (`bytes_only`), else its parsed content's."""
        data = self._bytes.get(mail_seq)
        if data is None and (content := self._command.get(mail_seq)) is not None:
            data = bytes(content)
        return data

    def release(self) -> None:
        """The command is done (the process-wide cache keeps what it can)."""
        self._command, self._bytes, self._kept = {}, {}, {}
