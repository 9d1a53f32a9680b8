"""An import batch is cut into transactions by bytes too:
a batch of big messages never becomes one long write that starves the others."""

from __future__ import annotations

from core.archive.write import MAX_TRANSACTION_BYTES, Pending, _by_size


def _pending(size: int, n: int) -> Pending:
    return Pending(key=str(n), raw=b"x" * size, message_id=f"<{n}@x>")


def test_groups_keep_the_order_and_stay_under_the_limit() -> None:
    items = [_pending(size, n) for n, size in enumerate([10, 20, 30, 40, 5, 100, 1])]
    groups = _by_size(items, 50)
    assert [[int(i.key) for i in g] for g in groups] == [[0, 1], [2], [3, 4], [5], [6]]
    assert all(sum(len(i.raw) for i in g) <= 50 or len(g) == 1 for g in groups)


def test_small_messages_stay_one_transaction() -> None:
    items = [_pending(1000, n) for n in range(500)]
    assert len(_by_size(items, MAX_TRANSACTION_BYTES)) == 1
