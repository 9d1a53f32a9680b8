"""The cluster world: three gateway replicas that share nothing but PostgreSQL and an
S3-compatible object store, behind nginx.

Each replica is a real `agentmail serve` process with a data dir of its own (no
directory is shared), in a network namespace of its own where the machine allows it
(cluster_network.py says how it reaches the services, and what happens without root).
Attachments live in SeaweedFS (seaweedfs.py, bound to the address the replicas reach);
nginx (nginx.py) balances HTTP, SMTP and IMAP over them. A test reaches a replica
directly (`world.replicas[i]`) or the cluster through nginx (`world.front`), kills,
stops and starts replicas (on another release's code too: `start(program=, cwd=)`),
and stops the object store. The world's files (each replica's log, nginx's config and
logs, SeaweedFS's log) are in `root`, which pytest keeps for the last runs.
"""

from __future__ import annotations

import asyncio
import sys
import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, cast

import asyncpg
from sqlalchemy.engine import make_url

from gateway.server import Gateway
from tests.support import databases
from tests.support.cluster import replica_env
from tests.support.cluster_network import Network, replica_network
from tests.support.gateway import Api
from tests.support.nginx import Backend, Nginx, running_nginx
from tests.support.ports import steady_ports
from tests.support.seaweedfs import BUCKET, SeaweedFS
from tests.support.serve_process import ServedGateway, serve

GATEWAY: tuple[str, ...] = (sys.executable, "-m", "gateway")
NAMES = ("a", "b", "c")


class Entrance(Protocol):
    """Where a client connects: one replica, or nginx in front of them all."""

    @property
    def host(self) -> str: ...
    @property
    def http_url(self) -> str: ...
    @property
    def smtp_port(self) -> int: ...
    @property
    def imap_port(self) -> int: ...


@dataclass
class Replica:
    name: str
    host: str
    ports: tuple[int, int, int]
    env: dict[str, str]
    prefix: tuple[str, ...]  # what runs a program in its network namespace
    log: Path
    served: ServedGateway | None = field(default=None, repr=False)

    @property
    def http_url(self) -> str:
        return f"http://{self.host}:{self.ports[0]}"

    @property
    def smtp_port(self) -> int:
        return self.ports[1]

    @property
    def imap_port(self) -> int:
        return self.ports[2]

    @property
    def running(self) -> bool:
        return self.served is not None and self.served.process.returncode is None


def api(entrance: Entrance) -> Api:
    """The tests' REST helper (tests/support/gateway.py) against `entrance`; it reads
    only `http_url`."""
    return Api(cast(Gateway, entrance))


@dataclass
class ClusterWorld:
    root: Path
    database_url: str  # as this process reaches it
    network: Network
    seaweedfs: SeaweedFS
    blob_prefix: str
    replicas: list[Replica]
    front: Nginx

    def replica(self, name: str) -> Replica:
        return next(r for r in self.replicas if r.name == name)

    async def start(
        self,
        replica: Replica,
        program: Sequence[str | Path] = GATEWAY,
        cwd: Path | None = None,
        **env: str,
    ) -> None:
        """Start `replica` (again) on its address and ports; `program` and `cwd` run
        another release's code."""
        assert not replica.running, f"replica {replica.name} is running"
        replica.served = await serve(
            {**replica.env, **env},
            log=replica.log,
            program=(*replica.prefix, *program),
            cwd=cwd,
        )

    async def kill(self, replica: Replica) -> None:
        """SIGKILL: the machine "crashes"."""
        assert replica.served is not None
        await replica.served.kill()

    async def stop(self, replica: Replica) -> int:
        """SIGTERM, the orderly shutdown an upgrade does; the exit status."""
        assert replica.served is not None
        return await replica.served.stop()

    def stored_blobs(self) -> set[str]:
        """The sha256 of every object under the world's prefix (blocking)."""
        client = self.seaweedfs.client()
        names: set[str] = set()
        for page in client.get_paginator("list_objects_v2").paginate(
            Bucket=BUCKET, Prefix=f"{self.blob_prefix}/"
        ):
            names.update(item["Key"].rsplit("/", 1)[-1] for item in page.get("Contents", []))
        return names

    async def query(self, sql: str, *args: Any) -> list[asyncpg.Record]:
        """Rows of the world's database, read as an operator would (psql)."""
        url = make_url(self.database_url)
        connection = await asyncpg.connect(
            host=url.host, port=url.port or 5432, user=url.username, database=url.database
        )
        try:
            return list(await connection.fetch(sql, *args))
        finally:
            await connection.close()

    def logs(self) -> str:
        """Every replica's log, nginx's error log and SeaweedFS's log tail (blocking)."""
        parts = [f"── {r.log.name}\n{_tail(r.log)}" for r in self.replicas]
        parts.append(f"── nginx error.log\n{self.front.error_log()[-4000:]}")
        parts.append(f"── weed.log\n{self.seaweedfs.log_tail()}")
        return "\n".join(parts)


def _tail(path: Path) -> str:
    return path.read_text(errors="replace")[-6000:] if path.exists() else ""


def _replica_database_url(database_url: str, network: Network) -> str:
    url = make_url(database_url)
    return url.set(host=network.services_host).render_as_string(hide_password=False)


def _replicas(
    root: Path, database_url: str, network: Network, seaweedfs: SeaweedFS, prefix: str
) -> list[Replica]:
    replicas = []
    blob = seaweedfs.settings(prefix)
    for index, name in enumerate(NAMES):
        env = replica_env(_replica_database_url(database_url, network), root / f"replica-{name}")
        http, smtp, imap = network.ports[index]
        env.update(
            {
                "AGENTMAIL_HOST": network.hosts[index],
                "AGENTMAIL_LOG_LEVEL": "info",  # a failed scenario's report shows the way
                # SIGTERM's grace for requests and SMTP DATA in flight (HTTP's, then
                # SMTP's): short, so an orderly stop stays well within ServedGateway.stop's
                # bound on a loaded machine; what it cuts is answered 503 / not acknowledged.
                "AGENTMAIL_SHUTDOWN_GRACE_SECONDS": "5",
                "AGENTMAIL_HTTP_PORT": str(http),
                "AGENTMAIL_SMTP_PORT": str(smtp),
                "AGENTMAIL_IMAP_PORT": str(imap),
                "AGENTMAIL_BLOB_URL": blob["blob_url"],
                "AGENTMAIL_S3_ENDPOINT": blob["s3_endpoint"],
                "AGENTMAIL_S3_ACCESS_KEY": blob["s3_access_key"],
                "AGENTMAIL_S3_SECRET_KEY": blob["s3_secret_key"],
                # Clients come from the world's private network, not from loopback:
                # AUTH without TLS is allowed there, as on a network where TLS ends at
                # the balancer.
                "AGENTMAIL_SMTP_ALLOW_PLAINTEXT_AUTH": "true",
                "AGENTMAIL_IMAP_ALLOW_PLAINTEXT_AUTH": "true",
                # docs/deploy.md's "Scaling out": nginx names the client of each SMTP
                # and IMAP connection in a PROXY header and of each request in
                # X-Forwarded-For, believed from nginx's address alone.
                "AGENTMAIL_PROXY_PROTOCOL": "smtp,imap",
                "AGENTMAIL_TRUSTED_PROXIES": network.balancer,
            }
        )
        log = root / f"replica-{name}.log"
        replicas.append(
            Replica(
                name, network.hosts[index], (http, smtp, imap), env, network.command(index), log
            )
        )
    return replicas


async def _stop_all(replicas: Sequence[Replica]) -> None:
    async def stop(replica: Replica) -> None:
        if replica.served is None:
            return
        try:
            await replica.served.stop()
        except TimeoutError:
            await replica.served.kill()
        await replica.served.logged()

    await asyncio.gather(*(stop(r) for r in replicas))


@asynccontextmanager
async def running_cluster_world(root: Path) -> AsyncIterator[ClusterWorld]:
    """The whole world on a fresh database, torn down on exit whatever happened."""
    database_url = await databases.create_postgres_database()
    url = make_url(database_url)
    async with AsyncExitStack() as stack:
        stack.push_async_callback(databases.release_postgres_database, database_url)
        target = (url.host or "127.0.0.1", url.port or 5432)
        network = await stack.enter_async_context(replica_network(len(NAMES), target))
        seaweedfs = SeaweedFS(host=network.services_host)
        stack.callback(seaweedfs.close)
        await asyncio.to_thread(seaweedfs.start)
        prefix = f"cluster-{uuid.uuid4().hex[:12]}"
        replicas = _replicas(root, database_url, network, seaweedfs, prefix)
        stack.push_async_callback(_stop_all, replicas)
        ports = steady_ports(3)
        front = Nginx(root / "nginx", "127.0.0.1", *ports)
        backends = [Backend(r.host, *r.ports) for r in replicas]
        await stack.enter_async_context(running_nginx(front, backends, network.balancer))
        world = ClusterWorld(root, database_url, network, seaweedfs, prefix, replicas, front)
        await asyncio.gather(*(world.start(r) for r in replicas))
        yield world
