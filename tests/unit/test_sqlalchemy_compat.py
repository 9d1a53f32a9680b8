"""The SQLAlchemy internals the store uses are checked when a store opens
(core/store/sqlalchemy_compat.py): one taken away fails loudly, with the version."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy
from sqlalchemy.engine import Connection
from sqlalchemy.util import concurrency

from core.store import sqlalchemy_compat
from core.store.engine import Store


def test_the_installed_sqlalchemy_has_them() -> None:
    sqlalchemy_compat.check()


@pytest.mark.parametrize(
    ("owner", "name"), [(Connection, "_has_events"), (concurrency, "greenlet_spawn")]
)
def test_a_store_refuses_to_open_without_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, owner: type, name: str
) -> None:
    monkeypatch.delattr(owner, name)
    with pytest.raises(sqlalchemy_compat.SQLAlchemyChanged) as refused:
        Store(f"sqlite:///{tmp_path / 'agentmail.db'}")
    assert sqlalchemy.__version__ in str(refused.value)
    assert f"{getattr(owner, '__name__', owner)}.{name}" in str(refused.value)
