"""Bounds of the numbers in query strings that reach SQL.

SQLite and PostgreSQL integers are 64-bit: an `offset` of 10**22 used to end in
a 500 (an overflow deep in the driver). Every such number has a limit here, far
beyond any real listing, so it is refused with 422 and documented.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Query

MAX_OFFSET = 2**31 - 1
MAX_EVENT_ID = 2**63 - 1  # the events table's BIGINT id

Offset = Annotated[int, Query(ge=0, le=MAX_OFFSET, description="Items to skip.")]
EventId = Annotated[int | None, Query(ge=0, le=MAX_EVENT_ID, description="Same as Last-Event-ID.")]
