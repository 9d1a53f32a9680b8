"""The one statement behind each tree chunk: two bounded recursive CTEs and a visibility join.

The same SQL runs on SQLite and PostgreSQL. PostgreSQL allows neither ORDER BY
nor LIMIT in a recursive term, so the depth-first walk cannot be a priority
queue; instead each step computes exactly one next mail, and the row carries
what it needs to get there:

* `child_seq` — the mail's first reply (by `seq`), looked up when the row is made;
* `stack` — the branch points still pending on the way down: for each, the
  sibling to visit once the current branch is done, and its depth. Entries have
  a fixed width (`seq + 10**18` in 19 digits, `depth + 10**6` in 7) so that push
  and pop are `||` and `substr`, which both dialects spell the same.

A step goes to `child_seq` if there is one, else pops the stack; the walk ends
when both are empty. Each step is three index lookups (the next mail by
primary key, its first reply and its next sibling by `parent_id`), whatever the
size of the thread. Walks stop one row past their limit: that look-ahead row
tells whether there is more without a second query.
"""

from __future__ import annotations

from functools import cache
from typing import Literal

from sqlalchemy import (
    CTE,
    BigInteger,
    ColumnElement,
    Integer,
    Select,
    Text,
    and_,
    bindparam,
    case,
    cast,
    func,
    literal,
    null,
    or_,
    select,
    union_all,
)
from sqlalchemy.orm import defer

from core.models import Conversation, Delivery, Mail, table_of

SEQ_BASE = 10**18
DEPTH_BASE = 10**6
ENTRY_WIDTH = 26  # 19 digits of seq + 7 of depth
SELF, UP, DOWN = 0, 1, 2
Seed = Literal["anchor", "cursor"] | None

_mails = table_of(Mail)
_anchor = bindparam("anchor", type_=Text)
_up_limit = bindparam("up_limit", type_=Integer)
_down_limit = bindparam("down_limit", type_=Integer)
_start_seq = bindparam("start_seq", type_=BigInteger)
_start_depth = bindparam("start_depth", type_=Integer)
_start_stack = bindparam("start_stack", type_=Text)


def _int(value: int) -> ColumnElement[int]:
    return literal(value, Integer)


def _first_child(parent_id: ColumnElement[str]) -> ColumnElement[int]:
    child = _mails.alias("child")
    return (
        select(child.c.seq)
        .where(child.c.parent_id == parent_id)
        .order_by(child.c.seq)
        .limit(1)
        .scalar_subquery()
    )


def _next_sibling(parent_id: ColumnElement[str], seq: ColumnElement[int]) -> ColumnElement[int]:
    sibling = _mails.alias("sibling")
    return (
        select(sibling.c.seq)
        .where(sibling.c.parent_id == parent_id, sibling.c.seq > seq)
        .order_by(sibling.c.seq)
        .limit(1)
        .scalar_subquery()
    )


def _up(seed: Literal["anchor", "cursor"]) -> CTE:
    """Ancestors: the parent, its parent, …; `k` counts the steps, `depth` goes negative."""
    start = _mails.alias("up_start")
    first = select(
        start.c.seq,
        start.c.id,
        start.c.parent_id,
        (_int(0) if seed == "anchor" else _start_depth).label("depth"),
        _int(0).label("k"),
    ).where(start.c.id == _anchor if seed == "anchor" else start.c.seq == _start_seq)
    up = first.cte("up", recursive=True)
    parent = _mails.alias("parent")
    step = (
        select(parent.c.seq, parent.c.id, parent.c.parent_id, up.c.depth - 1, up.c.k + 1)
        .select_from(up.join(parent, parent.c.id == up.c.parent_id))
        .where(up.c.k <= _up_limit)
    )
    return up.union_all(step)


def _down(seed: Literal["anchor", "cursor"]) -> CTE:
    """Descendants, depth-first, one mail per step (see the module docstring)."""
    start = _mails.alias("down_start")
    first = select(
        start.c.seq,
        start.c.id,
        start.c.parent_id,
        (_int(0) if seed == "anchor" else _start_depth).label("depth"),
        _first_child(start.c.id).label("child_seq"),
        cast(literal("") if seed == "anchor" else _start_stack, Text).label("stack"),
        _int(0).label("k"),
    ).where(start.c.id == _anchor if seed == "anchor" else start.c.seq == _start_seq)
    down = first.cte("down", recursive=True)
    has_child = down.c.child_seq.is_not(None)
    top_seq = cast(func.nullif(func.substr(down.c.stack, 1, 19), ""), BigInteger) - SEQ_BASE
    top_depth = cast(func.nullif(func.substr(down.c.stack, 20, 7), ""), Integer) - DEPTH_BASE
    depth = case((has_child, down.c.depth + 1), else_=top_depth)
    inherited = case((has_child, down.c.stack), else_=func.substr(down.c.stack, ENTRY_WIDTH + 1))
    nxt = _mails.alias("nxt")
    sibling = _next_sibling(nxt.c.parent_id, nxt.c.seq)
    entry = cast(sibling + SEQ_BASE, Text).concat(cast(depth + DEPTH_BASE, Text))
    step = (
        select(
            nxt.c.seq,
            nxt.c.id,
            nxt.c.parent_id,
            depth,
            _first_child(nxt.c.id),
            cast(func.coalesce(entry, "").concat(inherited), Text),
            down.c.k + 1,
        )
        .select_from(down.join(nxt, nxt.c.seq == func.coalesce(down.c.child_seq, top_seq)))
        .where(down.c.k <= _down_limit)
    )
    return down.union_all(step)


@cache
def tree_statement(up: Seed, down: Seed) -> Select[tuple[object, ...]]:
    """Walk rows (part, k, seq, id, parent_id, depth, stack) with the visible mails joined.

    Mail columns come back only for rows inside the limits that the caller sent
    or received (`emit`); the seed and look-ahead rows come back bare.
    """
    anchor = _mails.alias("anchor")
    parts = [
        select(
            _int(SELF).label("part"),
            _int(0).label("k"),
            anchor.c.seq,
            anchor.c.id,
            anchor.c.parent_id,
            _int(0).label("depth"),
            cast(null(), Text).label("stack"),
            _int(1).label("emit"),
        ).where(anchor.c.id == _anchor)
    ]
    if up is not None:
        walk_up = _up(up)
        emit = case((walk_up.c.k.between(1, _up_limit), 1), else_=0)
        parts.append(
            select(
                _int(UP),
                walk_up.c.k,
                walk_up.c.seq,
                walk_up.c.id,
                walk_up.c.parent_id,
                walk_up.c.depth,
                cast(null(), Text),
                emit,
            )
        )
    if down is not None:
        walk_down = _down(down)
        emit = case((walk_down.c.k.between(1, _down_limit), 1), else_=0)
        parts.append(
            select(
                _int(DOWN),
                walk_down.c.k,
                walk_down.c.seq,
                walk_down.c.id,
                walk_down.c.parent_id,
                walk_down.c.depth,
                walk_down.c.stack,
                emit,
            )
        )
    walk = union_all(*parts).subquery("walk")
    me = bindparam("me", type_=Text)
    mine = and_(Delivery.mail_seq == walk.c.seq, Delivery.recipient == me, walk.c.emit == 1)
    visible = or_(Mail.from_name == me, Delivery.id.is_not(None))
    return (
        select(walk, Mail, Delivery, Conversation.alias)
        .select_from(walk)
        .outerjoin(Delivery, mine)
        .outerjoin(Mail, and_(Mail.seq == walk.c.seq, walk.c.emit == 1, visible))
        .outerjoin(Conversation, Conversation.id == Mail.session_id)
        .options(defer(Mail.raw))
    )
