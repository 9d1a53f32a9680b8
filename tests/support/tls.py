"""TLS for tests: a throwaway CA's certificate for the gateway (`trustme`), and an
address of this machine that is not loopback (to see AUTH refused off loopback)."""

from __future__ import annotations

import socket
import ssl
from pathlib import Path

import trustme


def non_loopback_ipv4() -> str | None:
    """An address of this machine that is not loopback (the default route's source)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # nothing is sent: this only picks a route
        except OSError:
            return None
        address: str = probe.getsockname()[0]
    return None if address.startswith("127.") or address == "0.0.0.0" else address


class Certificate:
    """`cert.pem` (chain) and `key.pem` in `directory`, issued for `hosts`."""

    def __init__(self, directory: Path, *hosts: str) -> None:
        self.ca = trustme.CA()
        issued = self.ca.issue_cert(*hosts)
        directory.mkdir(parents=True, exist_ok=True)
        self.cert = directory / "cert.pem"
        self.key = directory / "key.pem"
        self.cert.write_bytes(b"".join(pem.bytes() for pem in issued.cert_chain_pems))
        issued.private_key_pem.write_to_path(str(self.key))

    def client_context(self) -> ssl.SSLContext:
        """A client context that trusts this CA (and verifies the host name)."""
        context = ssl.create_default_context()
        self.ca.configure_trust(context)
        return context
