"""SQLite's runner of `Prepared` statements: compiled once, run on the driver's cursor.

On SQLite a statement is an in-process call of a few microseconds; running it
through `Connection.execute` costs far more (cache key, execution context,
parameter and result processing), and a send runs about ten of them in the one
writer thread. A statement is compiled by SQLAlchemy once per set of parameter
names, with the processors of its types (JSON, UTC times) taken from the
dialect, so the SQL and the values are the ones Core would send; only the
per-call machinery goes.

What stays as it was:
- `before_cursor_execute` / `after_cursor_execute` listeners still see every
  statement (the statement counters of the tests and benches; the credential
  watch, which no prepared statement concerns: `keys` and `users` are refused);
- driver errors are raised as SQLAlchemy's `DBAPIError`s, as from Core.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.sql.dml import UpdateBase
from sqlalchemy.sql.selectable import SelectBase

from core.store.prepared import Params, Prepared, Row
from core.store.sqlalchemy_compat import cursor_listeners, driver_error

_Processor = Callable[[Any], Any] | None


@dataclass(frozen=True, slots=True)
class _Form:
    """The statement compiled for one set of parameter names."""

    sql: str
    names: tuple[str, ...]
    defaults: tuple[Any, ...]  # by position: a name's value when the caller gives none
    binds: tuple[tuple[int, Callable[[Any], Any]], ...]  # by position, the processed ones
    results: tuple[tuple[int, Callable[[Any], Any]], ...]  # the same for a row's columns
    returns: bool  # rows come back (SELECT, RETURNING)

    def bind(self, params: Params) -> list[Any]:
        get = params.get
        pairs = zip(self.names, self.defaults, strict=True)
        values = [get(name, default) for name, default in pairs]
        for index, process in self.binds:
            value = values[index]
            if value is not None:
                values[index] = process(value)
        return values

    def row(self, raw: Row) -> Row:
        if not self.results:
            return raw
        values = list(raw)
        for index, process in self.results:
            value = values[index]
            if value is not None:
                values[index] = process(value)
        return tuple(values)


def _processed(processors: Sequence[_Processor]) -> tuple[tuple[int, Callable[[Any], Any]], ...]:
    return tuple((index, p) for index, p in enumerate(processors) if p is not None)


def run_on_cursor(connection: Connection, prepared: Prepared, rows: list[Params]) -> list[Row]:
    """`prepared` with one set of parameters or several (no RETURNING then)."""
    form: _Form | None = prepared.forms.get(tuple(rows[0]))
    if form is None:
        form = prepared.forms[tuple(rows[0])] = _compile(
            prepared.statement, connection.dialect, rows[0]
        )
    bound = [form.bind(row) for row in rows]
    many = len(bound) > 1
    parameters: Any = bound if many else bound[0]
    fetched = _execute(connection, form.sql, parameters, many, form.returns)
    return [form.row(row) for row in fetched]


def driver_sql(connection: Connection, sql: str) -> None:
    """A fixed statement without parameters (BEGIN, SAVEPOINT) on SQLite's cursor:
    `exec_driver_sql` builds an execution context for it, once or twice per
    transaction of the writer thread. The listeners see it as from Core."""
    _execute(connection, sql, (), many=False, fetch=False)


def _execute(
    connection: Connection, sql: str, parameters: Any, many: bool, fetch: bool
) -> list[Row]:
    before, after = cursor_listeners(connection)
    cursor = connection.connection.driver_connection.cursor()  # type: ignore[union-attr]
    try:
        for listener in before:
            sql, parameters = listener(connection, cursor, sql, parameters, None, many)
        try:
            if many:
                cursor.executemany(sql, parameters)
                fetched: list[Row] = []
            else:
                cursor.execute(sql, parameters)
                fetched = cursor.fetchall() if fetch else []
        except connection.dialect.loaded_dbapi.Error as error:
            dbapi_error = connection.dialect.loaded_dbapi.Error
            raise driver_error(sql, parameters, error, dbapi_error) from error
        for listener in after:
            listener(connection, cursor, sql, parameters, None, many)
    finally:
        cursor.close()
    return fetched


def _compile(statement: UpdateBase | SelectBase, dialect: Dialect, params: Params) -> _Form:
    compiled: Any = statement.compile(dialect=dialect, column_keys=list(params))
    names = tuple(compiled.positiontup or ())
    table = getattr(statement, "table", None)
    defaults: list[Any] = []
    binds: list[_Processor] = []
    for name in names:
        bind = compiled.binds[name]
        if bind.expanding:
            raise ValueError(f"expanding parameter {name!r}: use Core")
        defaults.append(_default(table, name, bind) if name not in params else None)
        binds.append(bind.type.dialect_impl(dialect).bind_processor(dialect))
    returned: Any = statement.selected_columns if isinstance(statement, SelectBase) else ()
    if isinstance(statement, UpdateBase) and statement.exported_columns:
        returned = statement.exported_columns
    results = [
        column.type.dialect_impl(dialect).result_processor(dialect, None) for column in returned
    ]
    return _Form(
        compiled.string,
        names,
        tuple(defaults),
        _processed(binds),
        _processed(results),
        returns=bool(results),
    )


def _default(table: Any, name: str, bind: Any) -> Any:
    """The value Core would bind for a name the caller left out: a column's scalar
    default (INSERT), or the bound literal (`x + 1`)."""
    column = table.c.get(name) if table is not None else None
    default = getattr(column, "default", None)
    if default is not None and bind.value is None:
        if not default.is_scalar:
            raise ValueError(f"column {name!r} has a computed default: give its value")
        return default.arg
    if bind.required:
        raise ValueError(f"parameter {name!r} has no value and no default")
    return bind.effective_value
