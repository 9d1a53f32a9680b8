"""The test servers' restartable ports lie where no outgoing connection takes one."""

from __future__ import annotations

import socket

from tests.support.ports import LOWEST, ephemeral_start, steady_ports
from tests.support.seaweedfs import GRPC_OFFSET, weed_ports


def test_ports_are_distinct_free_and_below_the_ephemeral_range() -> None:
    ports = steady_ports(12)
    assert len(set(ports)) == 12
    assert all(LOWEST <= port < ephemeral_start() for port in ports)
    for port in ports:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", port))


def test_an_outgoing_connection_never_takes_one() -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        clients = [socket.create_connection(server.getsockname()) for _ in range(50)]
        try:
            sources = {client.getsockname()[1] for client in clients}
        finally:
            for client in clients:
                client.close()
    assert all(port >= ephemeral_start() for port in sources)


def test_paired_ports_keep_their_partner_free_and_apart() -> None:
    ports = steady_ports(5, offset=GRPC_OFFSET, avoid={20000})
    partners = {port + GRPC_OFFSET for port in ports}
    assert not partners & set(ports)
    assert 20000 not in set(ports) | partners
    assert all(partner < ephemeral_start() for partner in partners)


def test_seaweedfs_gets_every_port_it_opens_with_grpc_at_its_offset() -> None:
    ports = weed_ports("127.0.0.1")
    assert len(set(ports.values())) == len(ports) == 12
    for name in ("master", "volume", "filer", "s3", "admin"):
        assert ports[f"{name}.port.grpc"] == ports[f"{name}.port"] + GRPC_OFFSET
