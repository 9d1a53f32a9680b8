"""Every row of the store, as text that two databases given the same operations agree on.

What each database draws differs and is left out or named by what it points at:
integer keys and sequences (a reference to one becomes the row it names, by its
rank in its table or by its unique columns), uuids (named by order of first
appearance), times (only whether there is one), salted hashes and random tokens.
"""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import DateTime, Integer, Table, select
from sqlalchemy.orm import Session

from core.secrets.box import is_sealed
from core.store.engine import Store
from core.store.models import Base

_ID = re.compile(
    r"[0-9a-f]{64}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32}"
)
# A time as ISO 8601, or as a mail's Date (RFC 5322 §3.3, e.g. in a forward's quote).
_TIME = re.compile(
    r"\d{4}-\d\d-\d\dT[0-9:.]+(?:[+-]\d\d:\d\d|Z)?"
    r"|(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d? [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d [+-]\d{4}"
)
# Drawn at random or from the clock, whatever the database.
_DRAWN = {
    "password_hash",
    "token_sha256",
    "uid_validity",
    "secret",
    "code_sha256",
}  # secret: a webhook's
# `meta` values that name an event id (core/store/events.py): the id itself is the
# database's own number, but which stored events lie at or below it is not.
_EVENT_MARKS = {"events_pruned_through"}
# `meta` values drawn at random: every sealed secret (core/secrets/), each sealed with a
# random nonce.
# Tables whose rows are named by their unique columns rather than their rank: one
# transaction filing mail into several new conversations creates their folders in
# the order of the conversations' random ids (core/mailboxes/uids.py locks and
# creates folders in (owner, key) order), so the rank of a folder is drawn too.
_NATURAL = {"imap_folders": ("owner", "key")}
# Columns drawn at random in one table only (a reply token's id: core/secrets/reply_token.py).
_DRAWN_IN = {("reply_tokens", "id"), ("outside_replies", "token_id")}
Dump = list[tuple[str, list[str]]]


def _integer_key(table: Table) -> str | None:
    keys = list(table.primary_key.columns)
    if len(keys) == 1 and isinstance(keys[0].type, Integer):
        return keys[0].name
    return None


def _in_order(table: Table) -> bool:
    """Whether the table's rows are compared in key order (the order of the operations)."""
    return _integer_key(table) is not None and table.name not in _NATURAL


def _names(table: Table, rows: list[dict[str, Any]]) -> dict[Any, str]:
    """What a reference to each row shows: its rank, or its unique columns."""
    key = _integer_key(table)
    assert key is not None
    unique = _NATURAL.get(table.name)
    if unique is None:
        return {row[key]: f"{table.name}#{n}" for n, row in enumerate(rows)}
    return {row[key]: f"{table.name}{tuple(row[c] for c in unique)}" for row in rows}


def _read(session: Session) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = {}
    for table in Base.metadata.sorted_tables:
        key = _integer_key(table)
        query = select(table).order_by(table.c[key]) if key else select(table)
        found[table.name] = [dict(row) for row in session.execute(query).mappings()]
    return found


def _plain(found: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    """Integer keys out, references by rank (or unique columns), times as presence."""
    names = {
        table.name: _names(table, found[table.name])
        for table in Base.metadata.sorted_tables
        if _integer_key(table) is not None
    }
    plain: dict[str, list[dict[str, Any]]] = {}
    for table in Base.metadata.sorted_tables:
        key = _integer_key(table)
        rows = []
        for row in found[table.name]:
            out: dict[str, Any] = {}
            for column in table.columns:
                value = row[column.name]
                if column.name == key or column.name in _DRAWN:
                    continue
                # A reference to an integer key, by rank; one to a uuid (outbound_jobs'
                # mail_id) is a uuid like any, named by first appearance below.
                targets = [
                    fk.column.table.name
                    for fk in column.foreign_keys
                    if fk.column.name == _integer_key(fk.column.table)
                ]
                if targets and targets[0] in names and value is not None:
                    value = names[targets[0]][value]
                elif isinstance(column.type, DateTime) or "DateTime" in type(column.type).__name__:
                    value = "<time>" if value is not None else None
                out[column.name] = value
            if table.name == "meta" and row["key"] in _EVENT_MARKS:
                mark = int(row["value"])
                below = sum(1 for event in found["events"] if event["id"] <= mark)
                out["value"] = f"<events at or below it: {below}>"
            if table.name == "webhook_deliveries":  # names an event row, without a key
                event = names["events"].get(row["event_id"], "<pruned event>")
                out["event_id"], out["payload"] = event, {**row["payload"], "event_id": event}
            if (table.name, "id") in _DRAWN_IN or table.name == "outside_replies":
                for name in ("id", "token_id"):  # a reply token's random id
                    if (table.name, name) in _DRAWN_IN and out.get(name) is not None:
                        out[name] = "<drawn>"
            if table.name == "meta" and is_sealed(str(row["value"])):
                out["value"] = "<drawn>"
            rows.append(out)
        plain[table.name] = rows
    return plain


async def dump(store: Store) -> Dump:
    """Every table's rows as text: in key order where the table has an integer key
    (the order of the operations; not `_NATURAL` ones), sorted otherwise."""
    plain = _plain(await store.read(_read))
    seen: dict[str, str] = {}

    def text(row: dict[str, Any]) -> str:
        shown = _TIME.sub("<time>", repr(row))
        return _ID.sub(lambda m: seen.setdefault(m.group(), f"<id {len(seen)}>"), shown)

    ordered = [t for t in Base.metadata.sorted_tables if _in_order(t)]
    ordered += [t for t in Base.metadata.sorted_tables if not _in_order(t)]
    result: Dump = []
    for table in ordered:
        rows = plain[table.name]
        if not _in_order(table):  # an order both agree on before naming what they drew
            rows = sorted(rows, key=lambda row: _ID.sub("<id>", _TIME.sub("<time>", repr(row))))
        named = [text(row) for row in rows]
        result.append((table.name, named if _in_order(table) else sorted(named)))
    return sorted(result)


def differences(expected: Dump, found: Dump) -> dict[str, tuple[list[str], list[str]]]:
    """The tables whose rows differ: the rows only `expected` has and those only `found`
    has (both empty when the same rows come in another order)."""
    theirs = dict(found)
    differ: dict[str, tuple[list[str], list[str]]] = {}
    for table, rows in expected:
        other = theirs.pop(table, [])
        if rows != other:
            mine, yours = [r for r in rows if r not in other], [r for r in other if r not in rows]
            differ[table] = (mine, yours)
    for table, other in theirs.items():
        differ[table] = ([], other)
    return differ
