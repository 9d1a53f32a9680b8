"""The declarative base, the column types every table shares, and the helpers for
ids and times: stored in UTC, always read back timezone-aware, whatever the
dialect does with time zones.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any, ClassVar, cast

from sqlalchemy import (
    JSON,
    BigInteger,
    DateTime,
    Integer,
    Table,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase
from sqlalchemy.types import TypeDecorator

# SQLite only auto-increments an INTEGER PRIMARY KEY (the rowid alias).
SeqType = BigInteger().with_variant(Integer(), "sqlite")


class UTCDateTime(TypeDecorator[datetime]):
    """A timestamp that is stored as UTC and always read back timezone-aware."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTC column")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def utcnow() -> datetime:
    return datetime.now(UTC)


def isoformat(value: datetime) -> str:
    """RFC 3339 in UTC with `Z`, as pydantic writes it in responses."""
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


def new_id() -> str:
    return str(uuid.uuid4())


def table_of(model: type[Base]) -> Table:
    """The Core table of a mapped class, for the hot paths that skip the ORM."""
    return cast(Table, model.__table__)


class Base(DeclarativeBase):
    type_annotation_map: ClassVar[dict[Any, Any]] = {datetime: UTCDateTime, dict[str, Any]: JSON}
