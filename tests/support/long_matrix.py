"""The long kill matrix as tests, the same on every real platform: each
tests/platforms/test_<platform>_long.py imports them and names its `PLATFORM`
(`make platforms-long`, not CI). The cells are in kill_cells.py."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.support import kill_cells
from tests.support.kill_world import KillWorld, kill_world

__all__ = [
    "test_a_killed_before_the_first_model_request",
    "test_c_killed_while_a_permission_is_pending",
    "test_e_killed_after_the_final_summary",
    "test_the_bridge_restarts_then_the_gateway",
    "test_the_gateway_goes_then_the_bridge_restarts",
    "world",
]


@pytest.fixture
async def world(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[KillWorld]:
    async with kill_world(tmp_path, request.module.PLATFORM) as running:
        yield running


async def test_a_killed_before_the_first_model_request(world: KillWorld) -> None:
    await kill_cells.killed_before_the_first_model_request(world)


async def test_c_killed_while_a_permission_is_pending(world: KillWorld) -> None:
    await kill_cells.killed_while_a_permission_is_pending(world)


@pytest.mark.parametrize("record", ["kept", "lost"])
async def test_e_killed_after_the_final_summary(world: KillWorld, record: str) -> None:
    await kill_cells.killed_after_the_final_summary(world, record)


async def test_the_bridge_restarts_then_the_gateway(world: KillWorld) -> None:
    await kill_cells.bridge_then_gateway(world)


async def test_the_gateway_goes_then_the_bridge_restarts(world: KillWorld) -> None:
    await kill_cells.gateway_then_bridge(world)
