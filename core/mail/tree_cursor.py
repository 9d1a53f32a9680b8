"""Tree cursors: the state of a walk, handed to the client and back, opaque and short.

A cursor says "resume after this row": for the walk up, the mail last walked
and its depth; for the walk down also whether that row was a visit (then its
replies come next), the pending branch points (`core/mail/tree_sql.py`) and the
mail to climb from once they are done. A cursor keeps at most `MAX_PENDING`
branch points, the deepest ones: in a 10,000-mail chain with a forward off
every tenth mail they would otherwise grow by one every ten mails. The ones
left out are found again by climbing from the shallowest dropped one, which
becomes the climb point — so a cursor stays under a kilobyte in any thread.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import Row

from core.errors import InvalidRequest
from core.mail.tree_sql import DEPTH_BASE, ENTRY_WIDTH, SEQ_BASE

MAX_PENDING = 32
_UP = re.compile(r"u\.(\d{1,18})\.(-?\d{1,6})")
_DOWN = re.compile(
    r"d\.(\d{1,18})\.(\d{1,6})\.([01])\.(\d{1,18})\.(\d{1,6})"
    rf"((?:\.\d{{1,18}}-\d{{1,6}}-\d{{1,18}}){{0,{MAX_PENDING}}})"
)


@dataclass(frozen=True, slots=True)
class Start:
    """Where a walk begins: the mail asked about (seq None), or the row a cursor names."""

    seq: int | None = None
    depth: int = 0
    visit: int = 1
    stack: str = ""
    resume_seq: int | None = None
    resume_depth: int = 0


Pending = tuple[int, int, int]  # the sibling to visit, its depth, the mail it follows


def _pending(stack: str) -> list[Pending]:
    def number(at: int, width: int, base: int) -> int:
        return int(stack[at : at + width]) - base

    return [
        (number(i, 19, SEQ_BASE), number(i + 19, 7, DEPTH_BASE), number(i + 26, 19, SEQ_BASE))
        for i in range(0, len(stack), ENTRY_WIDTH)
    ]


def _stack(entries: list[Pending]) -> str:
    return "".join(
        f"{seq + SEQ_BASE}{depth + DEPTH_BASE}{after + SEQ_BASE}" for seq, depth, after in entries
    )


def _encode(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def up_cursor(row: Row[Any]) -> str:
    return _encode(f"u.{row.seq}.{row.depth}")


def down_cursor(row: Row[Any]) -> str:
    pending = _pending(row.stack or "")
    resume_seq, resume_depth = row.resume_seq or 0, row.resume_depth or 0
    if len(pending) > MAX_PENDING:
        # Climbing from the deepest mail left out finds it and everything above it.
        _, resume_depth, resume_seq = pending[MAX_PENDING]
        pending = pending[:MAX_PENDING]
    kept = "".join(f".{seq}-{depth}-{after}" for seq, depth, after in pending)
    return _encode(f"d.{row.seq}.{row.depth}.{row.visit}.{resume_seq}.{resume_depth}{kept}")


def decode(cursor: str, direction: Literal["ancestors", "descendants", "around"]) -> Start:
    """A cursor back into the row it resumes after; anything malformed is a 422."""
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        text = ""
    if direction == "ancestors" and (up := _UP.fullmatch(text)):
        return Start(int(up[1]), int(up[2]))
    if direction == "descendants" and (down := _DOWN.fullmatch(text)):
        entries = [tuple(int(n) for n in e.split("-")) for e in down[6].split(".")[1:]]
        return Start(
            seq=int(down[1]),
            depth=int(down[2]),
            visit=int(down[3]),
            stack=_stack([(s, d, a) for s, d, a in entries]),
            resume_seq=int(down[4]) or None,
            resume_depth=int(down[5]),
        )
    if direction == "around":
        raise InvalidRequest("'around' is a first chunk only: page on with the cursors it returns")
    raise InvalidRequest(f"cursor is not a cursor of this endpoint for direction={direction}")
