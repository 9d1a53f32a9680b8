"""Fixed statements of the hot paths, built once at import and run the backend's fastest way.

A `Prepared` statement is a Core statement (INSERT, UPDATE, DELETE or SELECT with
bound parameters only, lists for the expanding ones of an `IN`) that the domain
defines once and runs with plain values. Where
it runs is the backend's choice: a backend may register a runner for its
dialect (SQLite's runs it on the driver's cursor, core/store/sqlite/cursor.py);
otherwise it goes through `Connection.execute` as any Core statement. Either
way the SQL and the values are the ones Core would send.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from sqlalchemy import BindParameter, Executable
from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.sql import visitors
from sqlalchemy.sql.dml import UpdateBase
from sqlalchemy.sql.selectable import SelectBase

Row = tuple[Any, ...]
Params = Mapping[str, Any]
_REFUSED_TABLES = frozenset({"keys", "users"})  # core/store/credentials.py watches them


class Prepared:
    """A fixed Core statement; its rows as plain tuples. `forms` is the runner's cache
    (its compiled forms, by parameter names)."""

    def __init__(self, statement: UpdateBase | SelectBase) -> None:
        table = getattr(statement, "table", None)
        if getattr(table, "name", None) in _REFUSED_TABLES:
            raise ValueError("statements on credentials go through Core (credential watch)")
        self.statement = statement
        self.returns = isinstance(statement, SelectBase) or bool(statement.exported_columns)
        # The expanding `IN` parameters (`bindparam(..., expanding=True)`): given lists.
        self.lists = tuple(
            sorted(
                {
                    element.key
                    for element in visitors.iterate(statement)
                    if isinstance(element, BindParameter) and element.expanding
                }
            )
        )
        self.forms: dict[tuple[object, ...], Any] = {}

    def first(self, connection: Connection, params: Params) -> Row | None:
        rows = self.run(connection, params)
        return rows[0] if rows else None

    def run(self, connection: Connection, params: Params | Sequence[Params]) -> list[Row]:
        """Execute with one set of parameters, or several (no RETURNING then)."""
        rows = [params] if isinstance(params, dict | Mapping) else list(params)
        runner = _RUNNERS.get(type(connection.dialect))
        if runner is None or not rows or (len(rows) > 1 and self.returns):
            result = connection.execute(cast(Executable, self.statement), params)
            return [tuple(row) for row in result] if result.returns_rows else []
        return runner(connection, self, rows)


Runner = Callable[[Connection, Prepared, list[Params]], list[Row]]
_RUNNERS: dict[type[Dialect], Runner] = {}


def register_runner(dialect: type[Dialect], runner: Runner) -> None:
    """Run every `Prepared` statement on connections of this dialect through `runner`."""
    _RUNNERS[dialect] = runner
