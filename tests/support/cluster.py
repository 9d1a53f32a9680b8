"""Gateway replicas on one PostgreSQL database: each a real `agentmail serve` process.

Separate processes, not three gateways in the test's loop: nothing a replica keeps
in memory (a cache, a throttle, a lock) is shared with another, exactly as on
three machines. They share the database and one attachments directory
(`AGENTMAIL_ATTACHMENTS_DIR`), as docs/deploy.md asks of replicas.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx

from tests.support.serve_process import ServedGateway, serve, serve_env


def replica_env(database_url: str, data_dir: Path) -> dict[str, str]:
    """The environment of one replica of a cluster on `database_url`."""
    values = serve_env(database_url, data_dir)
    values["AGENTMAIL_LOG_LEVEL"] = "warning"
    # Replicas share the key the database's secrets are sealed with (core/secrets/).
    values["AGENTMAIL_SECRET_KEY"] = "the test cluster's shared secret key, 32+ chars"
    # The test server's max_connections (100) is shared with other suites.
    values["AGENTMAIL_DATABASE_CONNECTIONS"] = "12"
    return values


@asynccontextmanager
async def replicas(
    database_url: str, root: Path, count: int, **env: str
) -> AsyncIterator[list[ServedGateway]]:
    """`count` replicas started together (so they race to migrate a new database and
    to create its admin); each writes its output to `root/replica-N.log`."""
    envs = []
    for number in range(1, count + 1):
        values = replica_env(database_url, root / f"replica-{number}")
        values["AGENTMAIL_ATTACHMENTS_DIR"] = str(root / "attachments")
        values.update(env)
        envs.append(values)
    started = await asyncio.gather(
        *(serve(e, log=root / f"replica-{n}.log") for n, e in enumerate(envs, 1)),
        return_exceptions=True,
    )
    running = [s for s in started if isinstance(s, ServedGateway)]
    try:
        failed = [s for s in started if isinstance(s, BaseException)]
        if failed:
            raise failed[0]
        yield running
    finally:
        statuses = await asyncio.gather(*(r.stop() for r in running), return_exceptions=True)
    assert statuses == [0] * count, statuses


_SAMPLE = re.compile(r"^(agentmail_database_\w+_total) (\S+)$", re.MULTILINE)


async def database_counters(replica: ServedGateway) -> dict[str, float]:
    """The replica's failed writes and writes run again (deadlocks), from /metrics."""
    async with httpx.AsyncClient(base_url=replica.http_url, timeout=15) as client:
        text = (await client.get("/metrics")).text
    return {name: float(value) for name, value in _SAMPLE.findall(text)}


def warnings_in(root: Path) -> list[str]:
    """Every WARNING or ERROR line the replicas logged."""
    lines = []
    for log in sorted(root.glob("replica-*.log")):
        with contextlib.suppress(OSError):
            lines += [
                f"{log.name}: {line}"
                for line in log.read_text(errors="replace").splitlines()
                if "WARNING" in line or "ERROR" in line or "Traceback" in line
            ]
    return lines
