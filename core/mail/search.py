"""Full-text search over the mail the caller can see: subject, body and addresses.

The security rule is the mailbox's: a mail is found only by its sender or a
recipient (a delivery row of theirs), so a conversation the caller is not in is
never found, whatever the words. Words of three characters or more use the
trigram index (FTS5 `trigram` on SQLite, `pg_trgm` on PostgreSQL; migration
0012s), which finds substrings, Chinese text and paths alike; shorter words
cannot use trigrams and are matched with LIKE over the caller's candidates.
Ranked by relevance (bm25 / word similarity), then newest first, up to
`AGENTMAIL_SEARCH_COUNT_CAP` matches (see search_statements).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    ColumnElement,
    Select,
    String,
    TextClause,
    and_,
    cast,
    column,
    exists,
    false,
    func,
    literal_column,
    or_,
    select,
    table,
    text,
    true,
)
from sqlalchemy.orm import Session, aliased

from core.identity.external import EXTERNAL_NAME, MAILTO
from core.mail.addressed import AgentWorkspaces, agent_workspaces
from core.mail.attachments import attachments_of
from core.mail.excerpt import MAX_PARSED_CHARS, excerpt_of
from core.mail.reading import mail_view
from core.mail.search_query import SearchQuery, parse_query
from core.principal import Principal
from core.store.engine import Store
from core.store.models import Attachment, Conversation, Delivery, Mail
from core.store.search_index import SEARCH_TABLE
from core.views import SearchHit, SearchResults

TRIGRAM = 3  # the shortest substring a trigram index can find
SNIPPET_CHARS = 160
COUNT_CAP = 1000  # AGENTMAIL_SEARCH_COUNT_CAP: matches counted and ranked at most
# For this transaction only. PostgreSQL costs LIKE on a long text as cheap, so
# it picks a parallel sequential scan over the trigram index (docs/performance.md,
# bench/search.py); and a prepared
# statement's generic plan knows nothing of the pattern: plan each search for its own.
_PG_PLANNER = text(
    "SELECT set_config('max_parallel_workers_per_gather', '0', true),"
    " set_config('plan_cache_mode', 'force_custom_plan', true)"
)
_index = table(SEARCH_TABLE, column("rowid"), column("seq"), column("document"))


def _like(value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _name_part(value: str) -> str:
    """`from:`/`to:` match names: `bob`, `bob@anything` and `bob@domain` alike."""
    return value.split("@", 1)[0] or value


def _outside(name: Any, path: Any, value: str) -> ColumnElement[bool]:
    """An outside sender or `to` (the empty name, its address in the path:
    core/identity/external.py) whose address contains the whole value: `from:bob`
    and `from:bob@example.com` both find `bob@example.com`."""
    return and_(name == EXTERNAL_NAME, func.lower(path).like(_like(value), escape="\\"))


def _outside_cc(value: str) -> ColumnElement[bool]:
    """An outside address in the mail's cc list (stored `mailto:bob@example.com`)."""
    pattern = "%" + MAILTO + _like(value)  # `%mailto:%bob%`, over the list's JSON text
    return func.lower(cast(Mail.cc, String)).like(pattern, escape="\\")


def _fts_phrase(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def _filters(query: SearchQuery, mine: Any, me: str) -> list[ColumnElement[bool] | TextClause]:
    """The conditions a mail meets besides its words: mine (sent by me or delivered to
    me, `mine` being my delivery), and the query's from:, to:, #alias, type:, is: and
    has: filters; from: and to: match an outside address too."""
    where: list[ColumnElement[bool] | TextClause] = [
        or_(Mail.from_name == me, mine.id.is_not(None))
    ]
    for sender in query.senders:
        where.append(
            or_(
                func.lower(Mail.from_name).like(_like(_name_part(sender)), escape="\\"),
                _outside(Mail.from_name, Mail.from_path, sender),
            )
        )
    for recipient in query.recipients:
        to = aliased(Delivery)
        pattern = _like(_name_part(recipient))
        where.append(
            or_(
                exists().where(
                    to.mail_seq == Mail.seq, func.lower(to.recipient).like(pattern, "\\")
                ),
                _outside(Mail.to_name, Mail.to_path, recipient),
                _outside_cc(recipient),
            )
        )
    if query.aliases:
        where.append(func.lower(Conversation.alias).in_(query.aliases))
    if query.mail_types:
        where.append(Mail.mail_type.in_(query.mail_types))
    if query.unread is not None:
        where.append(mine.is_read == (false() if query.unread else true()))
    if query.has_attachment:
        where.append(exists().where(Attachment.mail_seq == Mail.seq))
    return where


def search_statements(
    dialect: str,
    principal: Principal,
    query: SearchQuery,
    limit: int,
    offset: int,
    count_cap: int = COUNT_CAP,
) -> tuple[Select[Any], Select[Any], Select[Any]]:
    """The capped count, the ranked page and the newest-first page of a search
    (bench/search.py times exactly these).

    Ranking needs every match scored, and counting a word found in most mail
    reads its whole index entry: over a large mailbox neither is fast. So the count
    stops at `count_cap` + 1 matches, walking the newest first (which the index
    gives in order, stopping early), and a search with more matches than
    `count_cap` is listed newest first instead of ranked: a word that common does not
    rank anything usefully; another word or a filter narrows it.
    """
    mine = aliased(Delivery)
    me = principal.name
    where = _filters(query, mine, me)
    indexed = [t for t in query.terms if len(t) >= TRIGRAM]
    order: list[Any] = []
    joined = False
    if dialect == "sqlite":
        if indexed:
            joined = True
            match = " ".join(_fts_phrase(t) for t in indexed)
            where.append(text(f"{SEARCH_TABLE} MATCH :match").bindparams(match=match))
            # bm25 weights per column (subject, body, addresses); lower is better.
            order.append(func.bm25(literal_column(SEARCH_TABLE), 4.0, 1.0, 2.0))
        for term in query.terms:
            if len(term) < TRIGRAM:
                fields = (Mail.subject, Mail.body, Mail.from_name, Mail.to_name)
                where.append(or_(*(f.like(_like(term), escape="\\") for f in fields)))
    elif query.terms:
        joined = True
        for term in query.terms:
            # The document is stored lower-cased (migration 0012s): LIKE, not ILIKE.
            where.append(_index.c.document.like(func.lower(_like(term)), escape="\\"))
        order.append(func.word_similarity(" ".join(query.terms), _index.c.document).desc())
    newest = _index.c.rowid.desc() if joined and dialect == "sqlite" else Mail.seq.desc()
    order.append(Mail.seq.desc())

    def shaped(statement: Any) -> Select[Any]:
        if joined:
            key = _index.c.rowid if dialect == "sqlite" else _index.c.seq
            statement = statement.select_from(_index).join(Mail, Mail.seq == key)
        else:
            statement = statement.select_from(Mail)
        shaped: Select[Any] = (
            statement.join(Conversation, Conversation.id == Mail.session_id)
            .outerjoin(mine, and_(mine.mail_seq == Mail.seq, mine.recipient == me))
            .where(*where)
        )
        return shaped

    rows = shaped(select(Mail, mine, Conversation.alias))
    ranked = rows.order_by(*order).limit(limit).offset(offset)
    newest_first = rows.order_by(newest).limit(limit).offset(offset)
    capped = shaped(select(Mail.seq)).order_by(newest).limit(count_cap + 1).subquery()
    return select(func.count()).select_from(capped), ranked, newest_first


def snippet(body: str, terms: list[str]) -> str:
    """The body's plain text (no Markdown, core/mail/excerpt.py) around the first term
    found, else its start."""
    flat = excerpt_of(body, limit=MAX_PARSED_CHARS).text
    lowered = flat.lower()
    found = [i for i in (lowered.find(t.lower()) for t in terms) if i >= 0]
    start = max(0, min(found) - SNIPPET_CHARS // 4) if found else 0
    piece = flat[start : start + SNIPPET_CHARS]
    return ("…" if start else "") + piece + ("…" if start + SNIPPET_CHARS < len(flat) else "")


async def search_mail(
    store: Store,
    domain: str,
    principal: Principal,
    q: str,
    *,
    limit: int = 20,
    offset: int = 0,
    count_cap: int = COUNT_CAP,
) -> SearchResults:
    query = parse_query(q)
    count, ranked, newest_first = search_statements(
        store.dialect, principal, query, limit, offset, count_cap
    )

    def run(session: Session) -> tuple[int, list[Any], dict[int, Any], AgentWorkspaces]:
        if store.dialect == "postgresql" and query.terms:
            session.execute(_PG_PLANNER)
        total = int(session.scalar(count) or 0)
        page = ranked if total <= count_cap else newest_first
        rows = list(session.execute(page).all()) if total > offset or total > count_cap else []
        agents = agent_workspaces(session, (row[0] for row in rows))
        return total, rows, attachments_of(session, [row[0].seq for row in rows]), agents

    total, rows, attached, agents = await store.read(run)
    hits = []
    for mail, delivery, alias in rows:
        view = mail_view(
            mail,
            alias,
            domain,
            delivery,
            full_body=False,
            attachments=attached.get(mail.seq),
            agents=agents,
        )
        hits.append(SearchHit(**view.model_dump(), snippet=snippet(mail.body, query.terms)))
    exact = total <= count_cap
    return SearchResults(mails=hits, total=min(total, count_cap), total_exact=exact)
