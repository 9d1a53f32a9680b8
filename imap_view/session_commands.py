"""The commands pymap 0.36.7 lacks that change only the session: ENABLE, NAMESPACE, UNSELECT.

Parsed here, run by the connection state (imap_view/state.py), registered beside
pymap's own commands (imap_view/config.py).
"""

from __future__ import annotations

from pymap.parsing import EndLine, Params, Space
from pymap.parsing.command import CommandAuth, CommandNoArgs, CommandSelect
from pymap.parsing.exceptions import NotParseable
from pymap.parsing.primitives import Atom

__all__ = ["EnableCommand", "NamespaceCommand", "UnselectCommand"]

_MAX_NAMES = 16  # more than ENABLE could ever mean (RFC 5161 §3.1 names capabilities)


class EnableCommand(CommandAuth):
    """RFC 5161 §3.1: `ENABLE SP capability *(SP capability)`, in the authenticated state."""

    command = b"ENABLE"

    def __init__(self, tag: bytes, names: list[bytes]) -> None:
        super().__init__(tag)
        self.names = names

    @classmethod
    def parse(cls, buf: memoryview, params: Params) -> tuple[EnableCommand, memoryview]:
        names: list[bytes] = []
        while True:
            try:
                _, after = Space.parse(buf, params)
                atom, after = Atom.parse(after, params)
            except NotParseable:
                break
            names.append(atom.value)
            buf = after
            if len(names) > _MAX_NAMES:
                raise NotParseable(buf)
        if not names:
            raise NotParseable(buf)
        _, buf = EndLine.parse(buf, params)
        return cls(params.tag, names), buf


class NamespaceCommand(CommandNoArgs, CommandAuth):
    """RFC 2342 §5: `NAMESPACE`, no arguments."""

    command = b"NAMESPACE"


class UnselectCommand(CommandNoArgs, CommandSelect):
    """RFC 3691 §2: `UNSELECT` closes the mailbox without expunging anything."""

    command = b"UNSELECT"
