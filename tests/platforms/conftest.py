"""The platform suite: real agent platforms (opencode, Claude Code, pi) bridged to a real
gateway, thinking with the scripted fake model (tests/support/fake_model).

It runs offline by construction: `make platforms` starts pytest inside a network
namespace that has only loopback (scripts/offline), with the gateway (SQLite), the
fake model and the bridges inside it too. Run outside one, the suite refuses to
start rather than let a platform reach the network.
"""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator

import pytest

from tests.support.fake_model import FakeModel, fake_model


def _offline() -> str | None:
    """Why this process is not offline, or None when only loopback exists."""
    names = [name for _, name in socket.if_nameindex()]
    if names != ["lo"]:
        return f"network interfaces {names} (only 'lo' is allowed)"
    try:
        socket.create_connection(("192.0.2.1", 80), timeout=1).close()
    except OSError:
        return None
    return "a connection beyond loopback succeeded"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.is_relative_to(config.rootpath / "tests" / "platforms"):
            item.add_marker(pytest.mark.platform)


@pytest.fixture(scope="session", autouse=True)
def offline() -> None:
    reason = _offline()
    if reason is not None:
        pytest.fail(
            f"the platform suite runs offline only ({reason}): use `make platforms`, or "
            "scripts/offline .venv/bin/pytest tests/platforms",
            pytrace=False,
        )


@pytest.fixture
async def model() -> AsyncIterator[FakeModel]:
    """The fake model; a test sets `model.script`. Ends with no script error and no
    request to a path the fake model does not know (what the platform tried is named)."""
    async with fake_model() as running:
        yield running
    assert not running.errors, "the fake model's script failed:\n" + "\n".join(running.errors)
    assert not running.unhandled, f"the platform asked for unknown paths: {running.unhandled}"
