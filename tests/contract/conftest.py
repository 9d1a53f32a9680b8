"""A SQLite store and a PostgreSQL store, in process (no gateway), with the same accounts."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.support.two_stores import Stores, two_stores


@pytest.fixture
async def stores(tmp_path: Path) -> AsyncIterator[Stores]:
    async with two_stores(tmp_path) as both:
        yield both
