"""What a human's folders are called, and which names a folder of their own may take.

The gateway's folders have fixed names (INBOX, Sent, Drafts, Archive, Trash, "Needs
decision") and a conversation's folder is `Sessions/<alias>`; those names are
reserved. A personal folder's name is Unicode with `/` between levels (the IMAP
hierarchy delimiter), stored as it is; IMAP sends it as modified UTF-7 (RFC 3501
§5.1.3) or UTF-8 after `ENABLE UTF8=ACCEPT` (RFC 6855 §3), the web UI and REST as
JSON text. Every name is bounded: its levels, its depth, and its length on the
wire, so any client can name it again in a command.
"""

from __future__ import annotations

import base64
from typing import Final

from core.errors import FieldProblem, InvalidRequest, LimitReached, NameTaken
from core.mailboxes.uids import ARCHIVE, DECISION, DRAFTS, INBOX, SENT, TRASH

__all__ = [
    "DELIMITER",
    "FIXED_NAMES",
    "MAX_DEPTH",
    "MAX_LEVEL_CHARS",
    "MAX_WIRE_OCTETS",
    "SESSIONS",
    "modified_utf7",
    "parent_names",
    "personal_name",
]

DELIMITER: Final = "/"
SESSIONS: Final = "Sessions"
FIXED_NAMES: Final = {
    INBOX: "INBOX",
    SENT: "Sent",
    DRAFTS: "Drafts",
    ARCHIVE: "Archive",
    TRASH: "Trash",
    DECISION: "Needs decision",
}
# Dovecot refuses a level longer than 255; the wire bound is what the IMAP parser
# takes for a mailbox argument (imap_view/mailbox_names.py).
MAX_LEVEL_CHARS: Final = 255
MAX_DEPTH: Final = 16
MAX_WIRE_OCTETS: Final = 1024
_RESERVED: Final = frozenset(name.casefold() for name in [*FIXED_NAMES.values(), SESSIONS])
_WILDCARDS: Final = frozenset("*%")  # LIST's (RFC 3501 §6.3.8): a name with one cannot be listed
# The refusals' inputs: `name` in the folder requests of the REST API.
_NAME_FORMAT: Final = FieldProblem("name", "format")
_NAME_RESERVED: Final = FieldProblem("name", "reserved")


def personal_name(name: str) -> str:
    """The name a personal folder takes for `name`, or InvalidRequest saying why not.

    One trailing delimiter is dropped (RFC 3501 §6.3.3: it only declares that
    inferior names will follow); `inbox/…` is `INBOX/…` (INBOX is case-insensitive).
    """
    if name.endswith(DELIMITER):
        name = name[: -len(DELIMITER)]
    levels = name.split(DELIMITER)
    if levels[0].casefold() == "inbox":
        levels[0] = "INBOX"
    if any(not level for level in levels):
        raise InvalidRequest(f"a folder name has no empty level: {name!r}", _NAME_FORMAT)
    if any(_control(char) or char in _WILDCARDS for char in name):
        raise InvalidRequest("a folder name holds no control character, '*' or '%'", _NAME_FORMAT)
    if any(len(level) > MAX_LEVEL_CHARS for level in levels):
        raise LimitReached(
            f"a folder name's level is at most {MAX_LEVEL_CHARS} characters",
            FieldProblem("name", "too_long", MAX_LEVEL_CHARS),
        )
    if len(levels) > MAX_DEPTH:
        raise LimitReached(f"folders nest at most {MAX_DEPTH} levels deep")
    if len(modified_utf7(name)) > MAX_WIRE_OCTETS:
        raise LimitReached(f"a folder name is at most {MAX_WIRE_OCTETS} octets in IMAP's form")
    if len(levels) == 1 and levels[0].casefold() in _RESERVED:
        raise NameTaken(f"{name!r} is one of the gateway's folders", _NAME_RESERVED)
    if levels[0].casefold() == SESSIONS.casefold():
        raise InvalidRequest(
            f"{name!r} is the gateway's own: INBOX, Sent, Drafts, Archive, Trash, "
            "Needs decision and Sessions/… are reserved",
            _NAME_RESERVED,
        )
    return DELIMITER.join(levels)


def parent_names(name: str) -> list[str]:
    """`a/b/c` → [`a`, `a/b`]."""
    levels = name.split(DELIMITER)
    return [DELIMITER.join(levels[:depth]) for depth in range(1, len(levels))]


def _control(char: str) -> bool:
    return ord(char) < 0x20 or 0x7F <= ord(char) < 0xA0


def modified_utf7(name: str) -> bytes:
    """RFC 3501 §5.1.3: printable US-ASCII as itself (`&` as `&-`), every other run as
    `&` + modified BASE64 of its UTF-16BE + `-`."""
    out: list[bytes] = []
    run: list[str] = []

    def close() -> None:
        if run:
            octets = "".join(run).encode("utf-16-be")
            encoded = base64.b64encode(octets).rstrip(b"=").replace(b"/", b",")
            out.append(b"&" + encoded + b"-")
            run.clear()

    for char in name:
        if 0x20 <= ord(char) <= 0x7E:
            close()
            out.append(b"&-" if char == "&" else char.encode("ascii"))
        else:
            run.append(char)
    close()
    return b"".join(out)
