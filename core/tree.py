"""The conversation tree: a mail's ancestors and descendants, walked from `parent_id`.

Nothing is stored for the tree (ARCHITECTURE.md: one source of truth). Each chunk
is ONE statement (`core/tree_sql.py`) whose recursive CTEs walk at most `limit`
mails each way, so a 10,000-mail thread costs the same first screen as a short
one. The walk crosses conversations (a forward's parent is in another one) and
goes *through* mails the caller cannot see, which are then left out: a visible
reply to an invisible mail still shows, at its true depth.

Order is reading order: ancestors root-side first, then the mail, then its
descendants depth-first (a mail before its replies, replies oldest first).
Cursors are opaque; a down cursor carries the walk's stack of pending branch
points, so the next chunk resumes without re-walking anything.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import Row
from sqlalchemy.orm import Session

from core.errors import InvalidRequest, NotFound
from core.mailbox import mail_view
from core.principal import Principal
from core.store import Store
from core.tree_sql import (
    DEPTH_BASE,
    DOWN,
    ENTRY_WIDTH,
    SELF,
    SEQ_BASE,
    UP,
    tree_statement,
)
from core.views import TreeChunk, TreeMail

Direction = Literal["ancestors", "descendants", "around"]
_UP_CURSOR = re.compile(r"u\.(\d{1,18})\.(-?\d{1,6})")
_DOWN_CURSOR = re.compile(r"d\.(\d{1,18})\.(\d{1,6})((?:\.\d{1,18}-\d{1,6})*)")


@dataclass(frozen=True, slots=True)
class _Start:
    """Where a walk begins: the mail asked about, or the row a cursor names."""

    seq: int | None = None
    depth: int = 0
    stack: str = ""


@dataclass(frozen=True, slots=True)
class _Walked:
    """The rows one direction's walk produced: its seed, the mails walked, one look-ahead."""

    seed: Row[Any] | None
    walked: list[Row[Any]]
    more: bool


def _stack_entries(stack: str) -> list[tuple[int, int]]:
    return [
        (int(stack[i : i + 19]) - SEQ_BASE, int(stack[i + 19 : i + ENTRY_WIDTH]) - DEPTH_BASE)
        for i in range(0, len(stack), ENTRY_WIDTH)
    ]


def _encode(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def _up_cursor(row: Row[Any]) -> str:
    return _encode(f"u.{row.seq}.{row.depth}")


def _down_cursor(row: Row[Any]) -> str:
    pending = "".join(f".{seq}-{depth}" for seq, depth in _stack_entries(row.stack or ""))
    return _encode(f"d.{row.seq}.{row.depth}{pending}")


def _decode(cursor: str, direction: Direction) -> _Start:
    """A cursor back into the row it resumes after; anything malformed is a 422."""
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        text = ""
    if direction == "ancestors" and (up := _UP_CURSOR.fullmatch(text)):
        return _Start(int(up[1]), int(up[2]))
    if direction == "descendants" and (down := _DOWN_CURSOR.fullmatch(text)):
        stack = ""
        for entry in filter(None, down[3].split(".")):
            seq, depth = entry.split("-")
            stack += f"{int(seq) + SEQ_BASE}{int(depth) + DEPTH_BASE}"
        return _Start(int(down[1]), int(down[2]), stack)
    if direction == "around":
        raise InvalidRequest("'around' is a first chunk only: page on with the cursors it returns")
    raise InvalidRequest(f"cursor is not a cursor of this endpoint for direction={direction}")


def _split(rows: list[Row[Any]], part: int, limit: int) -> _Walked:
    mine = sorted((r for r in rows if r.part == part), key=lambda r: r.k)
    seed = mine[0] if mine and mine[0].k == 0 else None
    walked = [r for r in mine if 1 <= r.k <= limit]
    return _Walked(seed, walked, more=any(r.k > limit for r in mine))


def _cursor_row(walk: _Walked, keep: int) -> Row[Any] | None:
    """The row the next chunk resumes after; None when this walk is exhausted."""
    if keep == len(walk.walked) and not walk.more:
        return None
    return walk.walked[keep - 1] if keep else walk.seed


def _around_split(up: int, down: int, budget: int) -> tuple[int, int]:
    """How many walked mails to keep each way: half each, the unused half to the other side."""
    keep_up = min(up, max(budget // 2, budget - down))
    return keep_up, min(down, budget - keep_up)


def _item(row: Row[Any], domain: str, include_body: bool) -> TreeMail:
    view = mail_view(row.Mail, row.alias, domain, row.Delivery, full_body=include_body)
    return TreeMail.model_validate({**view.model_dump(), "depth": row.depth})


async def mail_tree(
    store: Store,
    domain: str,
    principal: Principal,
    mail_id: str,
    *,
    direction: Direction = "around",
    limit: int = 50,
    cursor: str | None = None,
    include_body: bool = False,
) -> TreeChunk:
    """One chunk of the tree around `mail_id`, in one SQL statement; 404 if it is not yours."""
    start = _decode(cursor, direction) if cursor is not None else _Start()
    budget = limit - 1 if direction == "around" else limit
    up_limit = budget if direction != "descendants" else None
    down_limit = budget if direction != "ancestors" else None
    statement = tree_statement(
        up=None if up_limit is None else "cursor" if cursor else "anchor",
        down=None if down_limit is None else "cursor" if cursor else "anchor",
    )
    params = {
        "anchor": mail_id,
        "me": principal.name,
        "up_limit": up_limit or 0,
        "down_limit": down_limit or 0,
        "start_seq": start.seq or 0,
        "start_depth": start.depth,
        "start_stack": start.stack,
    }

    def run(session: Session) -> TreeChunk:
        rows = list(session.execute(statement, params).all())
        anchor = next((r for r in rows if r.part == SELF), None)
        if anchor is None or anchor.Mail is None:
            raise NotFound(f"no mail {mail_id}")
        up = _split(rows, UP, up_limit or 0)
        down = _split(rows, DOWN, down_limit or 0)
        keep_up, keep_down = len(up.walked), len(down.walked)
        if direction == "around":
            keep_up, keep_down = _around_split(keep_up, keep_down, budget)
        shown = up.walked[:keep_up][::-1] + ([anchor] if direction == "around" else [])
        shown += down.walked[:keep_down]
        up_row = _cursor_row(up, keep_up) if up_limit is not None else None
        down_row = _cursor_row(down, keep_down) if down_limit is not None else None
        top = up.walked[-1] if up.walked else up.seed
        return TreeChunk(
            mail_id=mail_id,
            direction=direction,
            mails=[_item(r, domain, include_body) for r in shown if r.Mail is not None],
            root_mail_id=top.id if up_limit is not None and not up.more and top else None,
            next_cursor_up=_up_cursor(up_row) if up_row is not None else None,
            next_cursor_down=_down_cursor(down_row) if down_row is not None else None,
        )

    return await store.read(run)
