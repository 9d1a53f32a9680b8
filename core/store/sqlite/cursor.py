"""SQLite's runner of `Prepared` statements: compiled once, run on the driver's cursor.

On SQLite a statement is an in-process call of a few microseconds; running it
through `Connection.execute` costs far more (cache key, execution context,
parameter and result processing), and a send runs about ten of them in the one
writer thread. A statement is compiled by SQLAlchemy once per set of parameter
names, with the processors of its types (JSON, UTC times) taken from the
dialect, so the SQL and the values are the ones Core would send; only the
per-call machinery goes.

A list given for an expanding `IN` parameter (`bindparam(..., expanding=True)`) is
written out as Core writes it, one form per length rounded up to a power of two, the
list padded with its last value (`x IN (a, b, b, b)` is `x IN (a, b)`): a handful of
forms per statement, whatever the lengths. An empty list, a list past `MAX_LISTED`
and several rows with lists go through Core.

What stays as it was:
- `before_cursor_execute` / `after_cursor_execute` listeners still see every
  statement (the statement counters of the tests and benches; the credential
  watch, which no prepared statement concerns: `keys` and `users` are refused);
- driver errors are raised as SQLAlchemy's `DBAPIError`s, as from Core.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import Executable
from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.sql.dml import UpdateBase
from sqlalchemy.sql.selectable import SelectBase

from core.store.prepared import Params, Prepared, Row
from core.store.sqlalchemy_compat import cursor_listeners, driver_error, expanded_in_lists

_Processor = Callable[[Any], Any] | None


@dataclass(frozen=True, slots=True)
class _Form:
    """The statement compiled for one set of parameter names (and list lengths)."""

    sql: str
    names: tuple[str, ...]
    defaults: tuple[Any, ...]  # by position: a name's value when the caller gives none
    binds: tuple[tuple[int, Callable[[Any], Any]], ...]  # by position, the processed ones
    results: tuple[tuple[int, Callable[[Any], Any]], ...]  # the same for a row's columns
    returns: bool  # rows come back (SELECT, RETURNING)
    # By position, the index in its list of an expanded parameter (`names` then holds
    # the list's name), -1 for a plain one; empty when there is none.
    items: tuple[int, ...] = ()

    def bind(self, params: Params) -> list[Any]:
        get = params.get
        pairs = zip(self.names, self.defaults, strict=True)
        values = [get(name, default) for name, default in pairs]
        for position, item in enumerate(self.items):
            if item >= 0:
                listed = values[position]
                values[position] = listed[min(item, len(listed) - 1)]  # padded: the last
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


MAX_LISTED = 4096  # items of one IN list run on the cursor; a longer one goes through Core


def _form_key(params: Params, lists: tuple[str, ...]) -> tuple[object, ...] | None:
    """The names of `params`, and for each list of an expanding parameter its length
    rounded up to a power of two; None for a list Core must expand (empty, or past
    `MAX_LISTED`)."""
    key: list[object] = list(params)
    for name in lists:
        length = len(params[name])
        if not 0 < length <= MAX_LISTED:
            return None
        key.append(1 << (length - 1).bit_length())
    return tuple(key)


def _processed(processors: Sequence[_Processor]) -> tuple[tuple[int, Callable[[Any], Any]], ...]:
    return tuple((index, p) for index, p in enumerate(processors) if p is not None)


def run_on_cursor(connection: Connection, prepared: Prepared, rows: list[Params]) -> list[Row]:
    """`prepared` with one set of parameters or several (no RETURNING then)."""
    key = _form_key(rows[0], prepared.lists)
    if key is None or (len(rows) > 1 and prepared.lists):  # lists in many rows: Core's
        result = connection.execute(cast(Executable, prepared.statement), rows)
        return [tuple(row) for row in result] if result.returns_rows else []
    form: _Form | None = prepared.forms.get(key)
    if form is None:
        form = prepared.forms[key] = _compile(prepared.statement, connection.dialect, rows[0])
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
    sql, names = compiled.string, tuple(compiled.positiontup or ())
    items: tuple[int, ...] = ()
    lists = {name for name in names if compiled.binds[name].expanding}
    if lists:  # each list as long as its form's (a power of two: `_form_key`)
        lengths = {name: 1 << (len(params[name]) - 1).bit_length() for name in lists}
        sample = {name: [None] * lengths[name] for name in lists}
        sql, positions = expanded_in_lists(compiled, {**params, **sample})
        by_position = [_listed(position, lengths) for position in positions]
        names = tuple(name for name, _ in by_position)
        items = tuple(item for _, item in by_position)
    table = getattr(statement, "table", None)
    defaults: list[Any] = []
    binds: list[_Processor] = []
    for name in names:
        bind = compiled.binds[name]
        defaults.append(_default(table, name, bind) if name not in params else None)
        binds.append(bind.type.dialect_impl(dialect).bind_processor(dialect))
    returned: Any = statement.selected_columns if isinstance(statement, SelectBase) else ()
    if isinstance(statement, UpdateBase) and statement.exported_columns:
        returned = statement.exported_columns
    results = [
        column.type.dialect_impl(dialect).result_processor(dialect, None) for column in returned
    ]
    return _Form(
        sql,
        names,
        tuple(defaults),
        _processed(binds),
        _processed(results),
        returns=bool(results),
        items=items,
    )


def _listed(position: str, lengths: dict[str, int]) -> tuple[str, int]:
    """(name, index in its list) of an expanded position (`seqs_3` → `seqs`, 2), or
    (name, -1) of a plain one."""
    name, _, number = position.rpartition("_")
    if name in lengths and number.isdigit() and 0 < int(number) <= lengths[name]:
        return name, int(number) - 1
    return position, -1


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
