"""Shared fixtures: every integration test runs against SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from gateway.server import Gateway
from tests.support import databases, fuzzing, packaging, summary  # noqa: F401  (fuzzing loads the hypothesis profile)
from tests.support.gateway import Api, running_gateway
from tests.support.seaweedfs import SeaweedFS

pytest_plugins = [
    "tests.support.file_order",
    "tests.support.outside.fixture",
    "tests.support.cluster_fixture",
]

BACKENDS = ["sqlite", "postgresql"]
E2E = Path(__file__).parent / "e2e"
PLATFORMS = Path(__file__).parent / "platforms"
OUTSIDE = Path(__file__).parent / "outside"
CLUSTER = Path(__file__).parent / "cluster"


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """The browser suite (`make e2e`, after the web build it needs), the platform suite
    (`make platforms`, offline, after the platforms are installed) and the outside
    world's and the cluster world's scenarios (`make test-outside`, `make test-cluster`)
    run on their own: a plain `pytest` leaves tests/e2e, tests/platforms, tests/outside
    and tests/cluster out; naming one (or a file in it) runs it."""
    if collection_path not in (E2E, PLATFORMS, OUTSIDE, CLUSTER):
        return None
    named = (Path(arg.split("::")[0]).resolve() for arg in config.args)
    return not any(
        path == collection_path or path.is_relative_to(collection_path) for path in named
    )


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def database_url(backend: str, tmp_path: Path) -> AsyncIterator[str]:
    if backend == "sqlite":
        yield await databases.create_sqlite_database(tmp_path / "agentmail.db")
        return
    url = await databases.create_postgres_database()
    try:
        yield url
    finally:
        await databases.release_postgres_database(url)


@pytest.fixture
async def empty_database_url(backend: str, tmp_path: Path) -> AsyncIterator[str]:
    """A database with no tables at all: for a migration from an old schema."""
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'empty.db'}"
        return
    url = await databases.create_empty_postgres_database()
    try:
        yield url
    finally:
        await databases.release_postgres_database(url)


@pytest.fixture
async def gateway(database_url: str, tmp_path: Path) -> AsyncIterator[Gateway]:
    async with running_gateway(database_url, tmp_path / "data") as running:
        yield running


@pytest.fixture
async def api(gateway: Gateway) -> AsyncIterator[Api]:
    helper = Api(gateway)
    try:
        yield helper
    finally:
        await helper.close()


@pytest.fixture(scope="module")
def seaweedfs() -> Iterator[SeaweedFS]:
    """An S3-compatible object store (tests/support/seaweedfs.py), one per test module."""
    store = SeaweedFS()
    try:
        store.start()
        yield store
    finally:
        store.close()


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The gateway's wheel with the built web UI, built once a run (tests/support/packaging.py)."""
    packaging.ensure_web_dist()
    return packaging.build_wheel(tmp_path_factory.mktemp("wheel"))


@pytest.fixture(scope="session")
def dependencies(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This run's installed dependencies, for fresh virtualenvs to share."""
    return packaging.dependencies_dir(tmp_path_factory.mktemp("dependencies") / "site")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    with contextlib.suppress(OSError):
        asyncio.run(databases.drop_this_process_databases())


# The summary's lines ride on the test reports, so they also come back from xdist workers.
pytest_runtest_makereport = summary.pytest_runtest_makereport
pytest_runtest_logreport = summary.pytest_runtest_logreport


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    summary.write_summary(terminalreporter)
