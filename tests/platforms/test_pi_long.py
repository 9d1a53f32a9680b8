"""The long kill matrix on the real pi (`make platforms-long`, not CI): cells (a),
(c) decided after the restart, (e), and gateway and bridge restarts in both orders,
as tests/support/kill_cells.py describes them. Cells (b) and (d) run in CI
(test_pi.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.support import kill_cells
from tests.support.kill_world import KillWorld, kill_world

pytestmark = pytest.mark.platform_long


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[KillWorld]:
    async with kill_world(tmp_path, "pi") as running:
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
