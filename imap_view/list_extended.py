"""LIST-EXTENDED (RFC 5258) with SPECIAL-USE (RFC 6154) and LIST-STATUS (RFC 5819).

`LIST (SPECIAL-USE) "" "*"` lists only the folders with a special use (Sent, Drafts,
Archive, Trash); `LIST "" "*" RETURN (SPECIAL-USE CHILDREN STATUS (MESSAGES UNSEEN))`
lists every folder with its counts, a `* STATUS` after each `* LIST`, so a client
learns the whole account in one round trip. `SUBSCRIBED` selects the subscribed
names (imap_view/mailbox_set.py) and marks them `\\Subscribed`, `RECURSIVEMATCH` adds
CHILDINFO (imap_view/list_subscribed.py). `\\HasChildren`/`\\HasNoChildren` are always
given (RFC 3348, pymap's list tree). The command replaces pymap's LIST, and `CheckedLsubCommand`
pymap's LSUB, so that both decode their patterns with imap_view/mailbox_names.py: a
pattern that is no valid name lists nothing (as Dovecot), and a LIST whose patterns
are all such answers OK with no lines.
"""

from __future__ import annotations

import re

from pymap.parsing import EndLine, Params, Space
from pymap.parsing.command.auth import ListCommand, LSubCommand
from pymap.parsing.exceptions import NotParseable
from pymap.parsing.primitives import List, String
from pymap.parsing.response.specials import ListResponse
from pymap.parsing.specials import StatusAttribute

from imap_view.mailbox_names import astring, decode_pattern, list_mailbox
from imap_view.status import GatewayStatusAttribute

__all__ = ["CheckedLsubCommand", "ExtendedListCommand", "ExtendedListResponse", "listed_line"]

# RFC 6154 §2's special-use attributes (the folders carry them: imap_view/mailbox_set.py).
SPECIAL_USES = frozenset({b"All", b"Archive", b"Drafts", b"Flagged", b"Junk", b"Sent", b"Trash"})

# RFC 5258 §3.1 (and RFC 6154 §3's SPECIAL-USE); an option not known here is a BAD.
SELECTION = frozenset({b"SUBSCRIBED", b"REMOTE", b"RECURSIVEMATCH", b"SPECIAL-USE"})
# RFC 5258 §3.1: RECURSIVEMATCH modifies another selection option, and "MUST NOT occur
# as the only selection option (or only with REMOTE)"; the options it can modify.
RECURSIVE_BASES = frozenset({b"SUBSCRIBED", b"SPECIAL-USE"})
RETURNS = frozenset({b"SUBSCRIBED", b"CHILDREN", b"SPECIAL-USE", b"STATUS"})
_OPTION = re.compile(rb" *([A-Za-z][A-Za-z0-9.-]*)")
_MAX_PATTERNS = 32


class ExtendedListCommand(ListCommand):
    """`LIST [SP (selection)] SP ref SP (pattern | (patterns)) [SP RETURN (options)]`
    (RFC 5258 §6). A plain RFC 3501 LIST parses to the same object with no options."""

    def __init__(
        self,
        tag: bytes,
        ref_name: str,
        patterns: list[str | None],
        *,
        selection: frozenset[bytes] = frozenset(),
        returns: frozenset[bytes] = frozenset(),
        status: tuple[StatusAttribute, ...] = (),
    ) -> None:
        valid = [pattern for pattern in patterns if pattern is not None]
        super().__init__(tag, ref_name, valid[0] if valid else "")
        self.patterns = valid  # None: a pattern that is no name, which matches nothing
        self.selection = selection
        self.returns = returns
        self.status = status

    @property
    def extended(self) -> bool:
        return bool(self.selection or self.returns) or len(self.patterns) != 1

    @classmethod
    def parse(cls, buf: memoryview, params: Params) -> tuple[ExtendedListCommand, memoryview]:
        _, buf = Space.parse(buf, params)
        selection: frozenset[bytes] = frozenset()
        if _at(buf, b"("):
            names, buf = _options(buf)
            selection = frozenset(names)
            recursive = b"RECURSIVEMATCH" in selection
            if not selection <= SELECTION or (recursive and not selection & RECURSIVE_BASES):
                raise NotParseable(buf)  # RFC 5258 §3: BAD for both
            _, buf = Space.parse(buf, params)
        ref_name, buf = _reference(buf, params)
        _, buf = Space.parse(buf, params)
        patterns, buf = _patterns(buf, params)
        if ref_name is None:  # a reference that is no name: nothing listed, as Dovecot
            ref_name, patterns = "", []
        returns: frozenset[bytes] = frozenset()
        status: tuple[StatusAttribute, ...] = ()
        if bytes(buf[:8]).upper() == b" RETURN ":
            returns, status, buf = _returns(buf[8:], params)
        _, buf = EndLine.parse(buf, params)
        command = cls(
            params.tag,
            ref_name,
            patterns,
            selection=selection,
            returns=returns,
            status=status,
        )
        return command, buf


def _at(buf: memoryview, char: bytes) -> bool:
    return bytes(buf[:1]) == char


def _options(buf: memoryview) -> tuple[list[bytes], memoryview]:
    """`(` atom *(SP atom) `)`, upper-cased."""
    if not _at(buf, b"("):
        raise NotParseable(buf)
    buf = buf[1:]
    names: list[bytes] = []
    while not _at(buf, b")"):
        match = _OPTION.match(buf)
        if match is None or len(names) >= _MAX_PATTERNS:
            raise NotParseable(buf)
        names.append(match.group(1).upper())
        buf = buf[match.end(0) :]
    return names, buf[1:]


def _reference(buf: memoryview, params: Params) -> tuple[str | None, memoryview]:
    """LIST's reference name (RFC 3501 §6.3.8), or None if it is no name."""
    raw, buf = astring(buf, params)
    return ("INBOX" if raw.upper() == b"INBOX" else decode_pattern(raw)), buf


def _pattern(buf: memoryview, params: Params) -> tuple[str | None, memoryview]:
    unquoted = list_mailbox(buf)
    if unquoted is not None:
        return decode_pattern(unquoted[0]), unquoted[1]
    string, buf = String.parse(buf, params)
    return decode_pattern(string.value), buf


def _patterns(buf: memoryview, params: Params) -> tuple[list[str | None], memoryview]:
    if not _at(buf, b"("):
        pattern, buf = _pattern(buf, params)
        return [pattern], buf
    buf = buf[1:]
    patterns: list[str | None] = []
    while True:
        pattern, buf = _pattern(buf, params)
        patterns.append(pattern)
        if _at(buf, b")"):
            return patterns, buf[1:]
        if len(patterns) >= _MAX_PATTERNS:
            raise NotParseable(buf)
        _, buf = Space.parse(buf, params)


class CheckedLsubCommand(LSubCommand):
    """`LSUB SP mailbox SP list-mailbox` (RFC 3501 §6.3.9), decoded as LIST's; if the
    reference or the pattern is no name, `do_list` lists nothing for it."""

    pattern_valid = True

    @classmethod
    def parse(cls, buf: memoryview, params: Params) -> tuple[CheckedLsubCommand, memoryview]:
        _, buf = Space.parse(buf, params)
        ref_name, buf = _reference(buf, params)
        _, buf = Space.parse(buf, params)
        pattern, buf = _pattern(buf, params)
        _, buf = EndLine.parse(buf, params)
        command = cls(params.tag, ref_name or "", pattern or "")
        command.pattern_valid = ref_name is not None and pattern is not None
        return command, buf


def _returns(
    buf: memoryview, params: Params
) -> tuple[frozenset[bytes], tuple[StatusAttribute, ...], memoryview]:
    """`(` return-option *(SP return-option) `)`, `STATUS (` status-att ... `)` among them."""
    if not _at(buf, b"("):
        raise NotParseable(buf)
    buf = buf[1:]
    names: set[bytes] = set()
    status: tuple[StatusAttribute, ...] = ()
    while not _at(buf, b")"):
        match = _OPTION.match(buf)
        if match is None or len(names) >= len(RETURNS):
            raise NotParseable(buf)
        name = match.group(1).upper()
        if name not in RETURNS:
            raise NotParseable(buf)  # RFC 5258 §3.2: an unknown return option is a BAD
        names.add(name)
        buf = buf[match.end(0) :]
        if name == b"STATUS":
            _, buf = Space.parse(buf, params)
            attributes, buf = List.parse(buf, params.copy(expected=[GatewayStatusAttribute]))
            status = tuple(attributes.get_as(StatusAttribute))
            if not status:
                raise NotParseable(buf)
    return frozenset(names), status, buf[1:]


class ExtendedListResponse(ListResponse):
    """A LIST line with RFC 5258 §3.5's extended data, e.g. `("CHILDINFO" ("SUBSCRIBED"))`."""

    def __init__(
        self, mailbox: str, sep: str | None, attrs: list[bytes], extended: bytes = b""
    ) -> None:
        super().__init__(mailbox, sep, attrs)
        self.extended = extended

    @property
    def text(self) -> bytes:
        text = super().text
        return text + b" " + self.extended if self.extended else text


def listed_line(
    cmd: ExtendedListCommand,
    name: str,
    delimiter: str | None,
    attributes: list[bytes],
    *,
    subscribed: bool = True,
    childinfo: bool = False,
) -> ExtendedListResponse | None:
    """One folder's LIST line under the command's options, or None if they leave it out.

    RFC 5258 §3: SUBSCRIBED selects subscribed mailboxes (`subscribed`), and with
    RECURSIVEMATCH the names whose CHILDINFO says a subscribed one is below them
    (`childinfo`, §3.5; imap_view/list_subscribed.py decides both). RFC 6154 §3:
    SPECIAL-USE selects the folders with a special use.
    """
    if b"SPECIAL-USE" in cmd.selection and not SPECIAL_USES & set(attributes):
        return None
    selecting = b"SUBSCRIBED" in cmd.selection
    if selecting and not (subscribed or childinfo):
        return None
    extended = b'("CHILDINFO" ("SUBSCRIBED"))' if childinfo else b""
    if subscribed and (selecting or b"SUBSCRIBED" in cmd.returns):
        attributes = [*attributes, b"Subscribed"]
    return ExtendedListResponse(name, delimiter, attributes, extended)
