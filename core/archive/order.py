"""The order of an import: every parent before its replies, otherwise oldest first.

A reply is threaded under the nearest stored mail it names (core/mail/imported.py),
so its parent must be stored first even when the archive holds them the other way
round (a Maildir lists files by name, an mbox by arrival, clocks lie).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from core.archive.parse import Header

__all__ = ["import_order"]

_NO_DATE = datetime.max.replace(tzinfo=UTC)


def import_order(headers: Sequence[Header]) -> list[int]:
    """Indexes into `headers`: by date (undated last, then source order), each
    message preceded by its not yet placed ancestors within the source.

    Each message's parent is the nearest id it names that another message of the
    source carries; a cycle of references is cut where the walk meets itself.
    """
    first_with: dict[str, int] = {}
    for index, header in enumerate(headers):
        if header.message_id is not None:
            first_with.setdefault(header.message_id, index)
    parent: dict[int, int] = {}
    for index, header in enumerate(headers):
        for message_id in header.replies_to:
            found = first_with.get(message_id)
            if found is not None and found != index:
                parent[index] = found
                break
    by_date = sorted(range(len(headers)), key=lambda i: (headers[i].date or _NO_DATE, i))
    placed: set[int] = set()
    order: list[int] = []
    for index in by_date:
        chain: list[int] = []
        on_chain: set[int] = set()
        current: int | None = index
        while current is not None and current not in placed and current not in on_chain:
            chain.append(current)
            on_chain.add(current)
            current = parent.get(current)
        for member in reversed(chain):
            placed.add(member)
            order.append(member)
    return order
