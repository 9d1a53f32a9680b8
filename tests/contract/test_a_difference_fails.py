"""The comparison fails when the backends' rows differ: one deliberate difference,
made on the PostgreSQL store only after the same scenario ran on both, fails it and
names the table where it is."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.orm import Session

from core.store.engine import Store
from core.store.models import Delivery, DeliveryKeyword, Mail
from tests.contract.rows import differences, dump
from tests.contract.scenario import assert_same_rows
from tests.contract.test_mail_operations import sends
from tests.support.two_stores import Stores

_FIRST = select(func.min(Mail.seq)).scalar_subquery()


def _subject_changed(session: Session) -> None:
    session.execute(update(Mail).where(Mail.seq == _FIRST).values(subject="changed"))


def _delivery_gone(session: Session) -> None:
    newest = select(func.max(Delivery.id)).scalar_subquery()
    session.execute(delete(Delivery).where(Delivery.id == newest))


def _keyword_added(session: Session) -> None:
    seq = session.scalar(select(func.min(Mail.seq)))
    session.execute(insert(DeliveryKeyword).values(recipient="ana", mail_seq=seq, keyword="x"))


# One column of one row; one row missing; one row more (in a table without order).
CHANGES: dict[str, Callable[[Session], None]] = {
    "mails": _subject_changed,
    "deliveries": _delivery_gone,
    "delivery_keywords": _keyword_added,
}


@pytest.mark.parametrize("table", CHANGES)
async def test_one_difference_fails_the_comparison(stores: Stores, table: str) -> None:
    change = CHANGES[table]

    async def sends_then_a_difference(store: Store) -> None:
        await sends(store)
        if store.dialect == "postgresql":
            await store.write(change)

    with pytest.raises(AssertionError) as failed:
        await assert_same_rows(stores, sends_then_a_difference)
    assert f"the rows differ in {table}:\n" in str(failed.value)
    assert list(differences(await dump(stores[0]), await dump(stores[1]))) == [table]
