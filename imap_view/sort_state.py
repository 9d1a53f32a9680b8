"""SORT and THREAD (RFC 5256) and SEARCH's RETURN options (ESEARCH, RFC 4731) run here.

Each searches as SEARCH does (`found_by_search`, imap_view/condstore.py: the same keys,
MODSEQ anywhere, the same limits), then:

* SORT loads the found messages' keys (imap_view/sort_loading.py, in chunks, parsing in
  a worker thread) and orders them in a worker thread (imap_view/sort_order.py):
  `* SORT 5 3 4`, with `(MODSEQ n)` when a MODSEQ key was searched (RFC 7162 §3.1.5,
  as SEARCH);
* THREAD builds the threads the same way (imap_view/sort_order.py,
  imap_view/thread_references.py): `* THREAD (1 2)(3 (4)(5))`;
* SEARCH RETURN (MIN MAX ALL COUNT) answers `* ESEARCH (TAG "t") [UID] …` instead of
  `* SEARCH` (imap_view/esearch.py), and so does SORT RETURN (ESORT, RFC 5267 §3), its
  numbers in the sort's order.
A charset no converter knows is `NO [BADCHARSET (UTF-8 US-ASCII)]` (RFC 5256 §3, as
SEARCH, RFC 3501 §6.4.4).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from pymap.parsing.command.select import SearchCommand
from pymap.parsing.response import CommandResponse, ResponseCode, ResponseNo, UntaggedResponse
from pymap.selected import SelectedMailbox

from imap_view.condstore import CondstoreState, Found
from imap_view.esearch import esearch_response, return_options
from imap_view.extensions import wire_modseq
from imap_view.message import Message
from imap_view.search_charset import SUPPORTED
from imap_view.session import Session
from imap_view.sort_order import (
    Criterion,
    Sortable,
    Tree,
    ordered_subject,
    sorted_numbers,
    thread_text,
)
from imap_view.sort_parsing import SortCommand, ThreadCommand
from imap_view.thread_references import references_threads

__all__ = ["SortState"]

_CommandRet = tuple[CommandResponse, SelectedMailbox | None]


def _bad_charset(command: bytes, tag: bytes) -> CommandResponse:
    code = ResponseCode.of(b"BADCHARSET (" + SUPPORTED + b")")
    return ResponseNo(tag, command + b": that charset is not supported.", code)


def _threads(algorithm: bytes, items: list[Sortable]) -> str:
    """The thread-lists of `items` (a worker thread: the work grows with them)."""
    threads: list[Tree] = (
        references_threads(items) if algorithm == b"REFERENCES" else ordered_subject(items)
    )
    return thread_text(threads)


class SortState(CondstoreState):
    async def _keyed(self, found: Found, *, uid: bool, size: bool = False) -> list[Sortable]:
        session = self.session
        assert isinstance(session, Session)
        messages = [(n, m) for n, m in found.messages if isinstance(m, Message)]
        return await session.sortables(messages, uid=uid, size=size)

    async def do_sort(self, cmd: SortCommand) -> _CommandRet:
        if cmd.charset is None:
            return _bad_charset(cmd.command, cmd.tag), None
        found = await self.found_by_search(cmd)
        if not isinstance(found, Found):
            return found, None
        sized = any(criterion.key == b"SIZE" for criterion in cmd.program)
        items = await self._keyed(found, uid=cmd.uid, size=sized)
        program: Sequence[Criterion] = cmd.program
        numbers = await asyncio.to_thread(sorted_numbers, items, program)
        if cmd.returns is not None:  # ESORT (RFC 5267 §3.1)
            esort = esearch_response(cmd.tag, cmd.uid, cmd.returns, found, numbers)
            found.response.add_untagged(esort)
            return found.response, found.updates
        text = b" ".join([b"SORT", *(b"%d" % number for number in numbers)])
        if found.by_modseq and numbers:  # RFC 7162 §3.1.5, as SEARCH
            text += b" (MODSEQ %d)" % wire_modseq(found.highest_modseq())
        found.response.add_untagged(UntaggedResponse(text))
        return found.response, found.updates

    async def do_thread(self, cmd: ThreadCommand) -> _CommandRet:
        if cmd.charset is None:
            return _bad_charset(cmd.command, cmd.tag), None
        found = await self.found_by_search(cmd)
        if not isinstance(found, Found):
            return found, None
        items = await self._keyed(found, uid=cmd.uid)
        threads = await asyncio.to_thread(_threads, cmd.algorithm, items)
        text = b"THREAD"
        if threads:  # thread-data = "THREAD" [SP 1*thread-list] (RFC 5256 §4)
            text += b" " + threads.encode("ascii")
        found.response.add_untagged(UntaggedResponse(text))
        return found.response, found.updates

    async def do_search(self, cmd: SearchCommand) -> _CommandRet:
        """SEARCH, or with RETURN options ESEARCH (RFC 4731 §3.1)."""
        returns = return_options(cmd)
        if not returns:
            return await super().do_search(cmd)
        found = await self.found_by_search(cmd)
        if not isinstance(found, Found):
            return found, None
        found.response.add_untagged(esearch_response(cmd.tag, cmd.uid, returns, found))
        return found.response, found.updates
