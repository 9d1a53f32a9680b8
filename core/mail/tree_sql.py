"""The one statement behind each tree chunk: two bounded recursive CTEs and a visibility join.

The same SQL runs on SQLite and PostgreSQL. PostgreSQL allows neither ORDER BY
nor LIMIT in a recursive term, so the depth-first walk down cannot be a priority
queue; instead each step computes exactly one next row, and the row carries
what it needs to get there:

* `child_seq` — the mail's first reply (by `seq`), looked up when the row is made;
* `stack` — branch points still pending: for each, the sibling to visit once
  the current branch is done, its depth, and the mail it comes after. Entries
  have a fixed width (numbers offset by 10**18 or 10**6, so always 19 or 7
  digits) so that push and pop are `||` and `substr`, spelled alike in both;
* `resume_seq`, `resume_depth` — a mail whose subtree is done but whose later
  siblings, and its ancestors' up to the mail asked about, are not known: a
  cursor keeps only the deepest `MAX_PENDING` stack entries (so it stays short
  in a deep, branchy thread) and the walk finds the rest again by climbing.

A step goes to `child_seq` if there is one; else pops the stack; else, from the
resume mail, to its next sibling, or up to its parent (a `visit = 0` row, not
shown). The walk ends at the mail asked about. A visit costs three index probes
(the next mail by primary key, its first reply and its next sibling on
`(parent_id, seq)`), whatever the size of the thread. Walks stop one row past
their limits (visits, and steps including climbs): that look-ahead row says
whether there is more without a second query.
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

from core.store.models import Agent, Conversation, Delivery, Mail, table_of

SEQ_BASE = 10**18
DEPTH_BASE = 10**6
ENTRY_WIDTH = 45  # sibling seq (19), its depth (7), the mail it follows (19)
SELF, UP, DOWN = 0, 1, 2
Seed = Literal["anchor", "cursor"] | None

_mails = table_of(Mail)
_anchor = bindparam("anchor", type_=Text)
_up_limit = bindparam("up_limit", type_=Integer)
_down_limit = bindparam("down_limit", type_=Integer)
_down_steps = bindparam("down_steps", type_=Integer)
_start_seq = bindparam("start_seq", type_=BigInteger)
_start_depth = bindparam("start_depth", type_=Integer)
_start_visit = bindparam("start_visit", type_=Integer)
_start_stack = bindparam("start_stack", type_=Text)
_resume_seq = bindparam("resume_seq", type_=BigInteger)
_resume_depth = bindparam("resume_depth", type_=Integer)


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


def _down_seed(seed: Literal["anchor", "cursor"]) -> Select[tuple[object, ...]]:
    start = _mails.alias("down_start")
    anchor = seed == "anchor"
    visit = _int(1) if anchor else _start_visit
    return select(
        start.c.seq,
        start.c.id,
        start.c.parent_id,
        (_int(0) if anchor else _start_depth).label("depth"),
        case((visit == 1, _first_child(start.c.id))).label("child_seq"),
        cast(literal("") if anchor else _start_stack, Text).label("stack"),
        (cast(null(), BigInteger) if anchor else _resume_seq).label("resume_seq"),
        (_int(0) if anchor else _resume_depth).label("resume_depth"),
        visit.label("visit"),
        _int(0).label("k"),
        _int(0).label("steps"),
    ).where(start.c.id == _anchor if anchor else start.c.seq == _start_seq)


def _down(seed: Literal["anchor", "cursor"]) -> CTE:
    """Descendants, depth-first, one row per step (see the module docstring)."""
    down = _down_seed(seed).cte("down", recursive=True)
    resume = _mails.alias("resume")  # the mail to climb from, when the stack is empty
    above = _mails.alias("above")  # its parent
    has_child = down.c.child_seq.is_not(None)
    has_stack = down.c.stack != ""
    top_seq = cast(func.nullif(func.substr(down.c.stack, 1, 19), ""), BigInteger) - SEQ_BASE
    top_depth = cast(func.nullif(func.substr(down.c.stack, 20, 7), ""), Integer) - DEPTH_BASE
    later = _next_sibling(resume.c.parent_id, resume.c.seq)
    climb_to = case((down.c.resume_depth > 0, func.coalesce(later, above.c.seq)))
    nxt = _mails.alias("nxt")
    climbing = and_(~has_child, ~has_stack)
    up_a_level = and_(climbing, nxt.c.seq == func.coalesce(above.c.seq, -1))  # else a visit
    depth = case(
        (has_child, down.c.depth + 1),
        (has_stack, top_depth),
        (up_a_level, down.c.resume_depth - 1),
        else_=down.c.resume_depth,
    )
    sibling = _next_sibling(nxt.c.parent_id, nxt.c.seq)
    entry = (
        cast(sibling + SEQ_BASE, Text)
        .concat(cast(depth + DEPTH_BASE, Text))
        .concat(cast(nxt.c.seq + SEQ_BASE, Text))
    )
    kept = case(
        (has_child, down.c.stack),
        (has_stack, func.substr(down.c.stack, ENTRY_WIDTH + 1)),
        else_="",
    )
    step = (
        select(
            nxt.c.seq,
            nxt.c.id,
            nxt.c.parent_id,
            depth,
            case((~up_a_level, _first_child(nxt.c.id))),
            cast(case((up_a_level, ""), else_=func.coalesce(entry, "")).concat(kept), Text),
            case((climbing, above.c.seq), else_=down.c.resume_seq),
            case((climbing, down.c.resume_depth - 1), else_=down.c.resume_depth),
            case((up_a_level, 0), else_=1),
            down.c.k + case((up_a_level, 0), else_=1),
            down.c.steps + 1,
        )
        .select_from(
            down.outerjoin(resume, resume.c.seq == down.c.resume_seq)
            .outerjoin(above, above.c.id == resume.c.parent_id)
            .join(
                nxt,
                nxt.c.seq
                == case((has_child, down.c.child_seq), (has_stack, top_seq), else_=climb_to),
            )
        )
        .where(down.c.k <= _down_limit, down.c.steps <= _down_steps)
    )
    return down.union_all(step)


def _row(part: int, walk: CTE, emit: ColumnElement[bool]) -> Select[tuple[object, ...]]:
    """One part of the union: the walk's state columns, the same for every part."""
    c, down = walk.c, part == DOWN
    return select(
        _int(part).label("part"),
        c.k,
        (c.steps if down else c.k).label("steps"),
        c.seq,
        c.id,
        c.parent_id,
        c.depth,
        (c.stack if down else cast(null(), Text)).label("stack"),
        (c.resume_seq if down else cast(null(), BigInteger)).label("resume_seq"),
        (c.resume_depth if down else _int(0)).label("resume_depth"),
        (c.visit if down else _int(1)).label("visit"),
        case((emit, 1), else_=0).label("emit"),
    )


@cache
def tree_statement(up: Seed, down: Seed) -> Select[tuple[object, ...]]:
    """Walk rows (part, k, steps, seq, id, depth, stack, resume…) with the visible mails joined.

    Mail columns come back only for rows inside the limits that the caller sent
    or received (`emit`); the seed, climb and look-ahead rows come back bare.
    The mail asked about is part SELF, always, so that a 404 needs no other query.
    """
    anchor = _mails.alias("anchor")
    parts = [
        select(
            _int(SELF).label("part"),
            _int(0).label("k"),
            _int(0).label("steps"),
            anchor.c.seq,
            anchor.c.id,
            anchor.c.parent_id,
            _int(0).label("depth"),
            cast(null(), Text).label("stack"),
            cast(null(), BigInteger).label("resume_seq"),
            _int(0).label("resume_depth"),
            _int(1).label("visit"),
            _int(1).label("emit"),
        ).where(anchor.c.id == _anchor)
    ]
    if up is not None:
        walk_up = _up(up)
        parts.append(_row(UP, walk_up, walk_up.c.k.between(1, _up_limit)))
    if down is not None:
        walk_down = _down(down)
        inside = and_(
            walk_down.c.visit == 1,
            walk_down.c.k.between(1, _down_limit),
            walk_down.c.steps <= _down_steps,
        )
        parts.append(_row(DOWN, walk_down, inside))
    walk = union_all(*parts).subquery("walk")
    me = bindparam("me", type_=Text)
    mine = and_(Delivery.mail_seq == walk.c.seq, Delivery.recipient == me, walk.c.emit == 1)
    visible = or_(Mail.from_name == me, Delivery.id.is_not(None))
    # The addressed agent's workspaces ride along (`to_workspace` of each mail view,
    # core/mail/addressed.py), so the chunk stays one statement.
    return (
        select(walk, Mail, Delivery, Conversation.alias, Agent.workspaces.label("to_workspaces"))
        .select_from(walk)
        .outerjoin(Delivery, mine)
        .outerjoin(Mail, and_(Mail.seq == walk.c.seq, walk.c.emit == 1, visible))
        .outerjoin(Conversation, Conversation.id == Mail.session_id)
        .outerjoin(Agent, Agent.name == Mail.to_name)
    )
