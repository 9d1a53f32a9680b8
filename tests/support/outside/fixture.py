"""The `outside_world` fixture (a pytest plugin: tests/conftest.py loads it).

Each test gets a world of its own, torn down after it. When the test fails, the
world's logs (Postfix's log and queue, Dovecot's log, the DNS questions) are printed
with its report; with AGENTMAIL_OUTSIDE_KEEP=1 the world's files stay on disk too.
Without root or the Debian packages (scripts/ensure-services.sh) the test is skipped,
or fails under CI=true.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator, Generator

import pytest

from tests.support.outside.world import OutsideWorld, running_outside_world

KEEP = "AGENTMAIL_OUTSIDE_KEEP"
NEEDED = ("/usr/sbin/postfix", "/usr/sbin/dovecot", "/usr/lib/dovecot/lmtp")


def _missing() -> str | None:
    if os.geteuid() != 0:
        return "the outside world needs root (network namespaces)"
    if shutil.which("ip") is None:
        return "the outside world needs ip (iproute2)"
    absent = [path for path in NEEDED if not os.path.exists(path)]
    return f"missing {', '.join(absent)}: run scripts/ensure-services.sh" if absent else None


_WORLD = pytest.StashKey[OutsideWorld]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A failed test's report carries its world's logs, as a section of their own."""
    report = yield
    world = item.stash.get(_WORLD, None)
    if world is not None and report.failed:
        kept = f"\n{KEEP}=1: its files stay in {world.root} and {world.dovecot.root}"
        logs = world.logs() + (kept if os.environ.get(KEEP) == "1" else "")
        report.sections.append((f"outside world ({report.when})", logs))
        item.stash[_FAILED] = True
    return report


_FAILED = pytest.StashKey[bool]()


def require_outside_world() -> None:
    """Skip the test when the world cannot be made here (fail it under CI=true)."""
    missing = _missing()
    if missing is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(missing)
        pytest.skip(missing)


@pytest.fixture
async def outside_world(request: pytest.FixtureRequest) -> AsyncIterator[OutsideWorld]:
    require_outside_world()
    keep = os.environ.get(KEEP) == "1"
    node: pytest.Item = request.node

    def keep_files() -> bool:
        return keep and node.stash.get(_FAILED, False)

    async with running_outside_world(keep=keep_files) as world:
        node.stash[_WORLD] = world
        try:
            yield world
        finally:
            del node.stash[_WORLD]
