"""The conversation tree: a mail's ancestors and descendants, walked from `parent_id`.

Nothing is stored for the tree (ARCHITECTURE.md: one source of truth). Each chunk
is ONE statement (`core/mail/tree_sql.py`) whose recursive CTEs walk at most `limit`
mails each way, so a 10,000-mail thread costs the same first screen as a short
one. The walk crosses conversations (a forward's parent is in another one) and
goes *through* mails the caller cannot see, which are then left out: a visible
reply to an invisible mail still shows, at its true depth.

Order is reading order: ancestors root-side first, then the mail, then its
descendants depth-first (a mail before its replies, replies oldest first).
Cursors (`core/mail/tree_cursor.py`) are opaque and resume the walk where it stopped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import Row, Select
from sqlalchemy.orm import Session

from core.errors import NotFound
from core.mail.addressed import AgentWorkspaces, joined_agent_workspaces
from core.mail.reading import mail_view
from core.mail.tree_cursor import Start, decode, down_cursor, up_cursor
from core.mail.tree_sql import DOWN, SELF, UP, tree_statement
from core.principal import Principal
from core.store.engine import Store
from core.views import TreeChunk, TreeMail

Direction = Literal["ancestors", "descendants", "around"]
# Steps a chunk may take down, climbs included, per mail it may show: enough to
# climb back out of a branch in a few chunks, few enough to bound the statement.
STEPS_PER_MAIL = 4


@dataclass(frozen=True, slots=True)
class _Walked:
    """What one direction's walk produced: its seed, its rows in step order, the mails it
    visited (rows a client may be shown), and whether a look-ahead row says there is more."""

    seed: Row[Any] | None
    rows: list[Row[Any]]
    visits: list[Row[Any]]
    more: bool


def _split(rows: list[Row[Any]], part: int, limit: int, steps: int) -> _Walked:
    mine = sorted((r for r in rows if r.part == part), key=lambda r: r.steps)
    seed = mine[0] if mine and mine[0].steps == 0 else None
    inside = [r for r in mine if r.steps >= 1 and r.k <= limit and r.steps <= steps]
    visits = [r for r in inside if r.visit == 1]
    return _Walked(seed, inside, visits, more=len(inside) + (seed is not None) < len(mine))


def _cursor_row(walk: _Walked, keep: int) -> Row[Any] | None:
    """The row the next chunk resumes after; None when this walk is exhausted."""
    if keep == len(walk.visits):
        if not walk.more:
            return None
        return walk.rows[-1] if walk.rows else walk.seed
    return walk.visits[keep - 1] if keep else walk.seed


def _around_split(up: int, down: int, budget: int) -> tuple[int, int]:
    """How many walked mails to keep each way: half each, the unused half to the other side."""
    keep_up = min(up, max(budget // 2, budget - down))
    return keep_up, min(down, budget - keep_up)


def _item(row: Row[Any], domain: str, include_body: bool, agents: AgentWorkspaces) -> TreeMail:
    view = mail_view(
        row.Mail, row.alias, domain, row.Delivery, full_body=include_body, agents=agents
    )
    return TreeMail.model_validate({**view.model_dump(), "depth": row.depth})


@dataclass(frozen=True, slots=True)
class ChunkQuery:
    """The one statement of a chunk and its parameters (bench/tree.py times it alone)."""

    statement: Select[tuple[object, ...]]
    params: dict[str, Any]
    up_limit: int | None
    down_limit: int | None
    down_steps: int


def chunk_query(
    name: str, mail_id: str, direction: Direction, limit: int, cursor: str | None = None
) -> ChunkQuery:
    """What to run for a chunk; `around` walks `limit - 1` each way and keeps `limit` in all."""
    start = decode(cursor, direction) if cursor is not None else Start()
    budget = limit - 1 if direction == "around" else limit
    up_limit = budget if direction != "descendants" else None
    down_limit = budget if direction != "ancestors" else None
    down_steps = STEPS_PER_MAIL * (down_limit or 0) + 1
    statement = tree_statement(
        up=None if up_limit is None else "cursor" if cursor else "anchor",
        down=None if down_limit is None else "cursor" if cursor else "anchor",
    )
    params = {
        "anchor": mail_id,
        "me": name,
        "up_limit": up_limit or 0,
        "down_limit": down_limit or 0,
        "down_steps": down_steps,
        "start_seq": start.seq or 0,
        "start_depth": start.depth,
        "start_visit": start.visit,
        "start_stack": start.stack,
        "resume_seq": start.resume_seq,
        "resume_depth": start.resume_depth,
    }
    return ChunkQuery(statement, params, up_limit, down_limit, down_steps)


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
    query = chunk_query(principal.name, mail_id, direction, limit, cursor)
    up_limit, down_limit = query.up_limit, query.down_limit

    def run(session: Session) -> TreeChunk:
        rows = list(session.execute(query.statement, query.params).all())
        anchor = next((r for r in rows if r.part == SELF), None)
        if anchor is None or anchor.Mail is None:
            raise NotFound(f"no mail {mail_id}")
        up = _split(rows, UP, up_limit or 0, up_limit or 0)
        down = _split(rows, DOWN, down_limit or 0, query.down_steps)
        keep_up, keep_down = len(up.visits), len(down.visits)
        if direction == "around":
            keep_up, keep_down = _around_split(keep_up, keep_down, limit - 1)
        shown = up.visits[:keep_up][::-1] + ([anchor] if direction == "around" else [])
        shown += down.visits[:keep_down]
        up_row = _cursor_row(up, keep_up) if up_limit is not None else None
        down_row = _cursor_row(down, keep_down) if down_limit is not None else None
        top = up.rows[-1] if up.rows else up.seed
        mails = [r for r in shown if r.Mail is not None]
        agents = joined_agent_workspaces((r.Mail, r.to_workspaces) for r in mails)
        return TreeChunk(
            mail_id=mail_id,
            direction=direction,
            mails=[_item(r, domain, include_body, agents) for r in mails],
            root_mail_id=top.id if up_limit is not None and not up.more and top else None,
            next_cursor_up=up_cursor(up_row) if up_row is not None else None,
            next_cursor_down=down_cursor(down_row) if down_row is not None else None,
        )

    return await store.read(run)
