"""A tiny authoritative DNS server on loopback for the mail-authentication tests: the
records a test sets (TXT, A, MX), answered over UDP by dnspython's own wire format, in
a thread; every other name is NXDOMAIN."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import dns.flags
import dns.message
import dns.rcode
import dns.rdatatype
import dns.rrset


@dataclass
class Zone:
    """Records by (lower-case name without the final dot, type): each a list of texts in
    zone-file form (`"v=spf1 -all"` quoted for TXT, `10 mx.outside.test.` for MX)."""

    records: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    port: int = 0

    def set_txt(self, name: str, *texts: str) -> None:
        chunks = [" ".join(_quoted(t[i : i + 255]) for i in range(0, len(t), 255)) for t in texts]
        self.records[(name.lower().rstrip("."), "TXT")] = chunks

    def set(self, name: str, kind: str, *values: str) -> None:
        self.records[(name.lower().rstrip("."), kind)] = list(values)

    def answer(self, wire: bytes) -> bytes:
        query = dns.message.from_wire(wire)
        response = dns.message.make_response(query)
        response.flags |= dns.flags.AA
        question = query.question[0]
        name = question.name.to_text().lower().rstrip(".")
        kind = dns.rdatatype.to_text(question.rdtype)
        values = self.records.get((name, kind))
        if values:
            response.answer.append(
                dns.rrset.from_text_list(question.name, 60, "IN", kind, values)
            )
        elif not any(known == name for known, _ in self.records):
            response.set_rcode(dns.rcode.NXDOMAIN)
        return response.to_wire()


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


@contextmanager
def serving(zone: Zone) -> Iterator[Zone]:
    """Serve `zone` on 127.0.0.1 (a free UDP port, set on `zone.port`) until the end."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    sock.settimeout(0.2)
    zone.port = sock.getsockname()[1]
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                wire, peer = sock.recvfrom(4096)
            except TimeoutError:
                continue
            sock.sendto(zone.answer(wire), peer)

    thread = threading.Thread(target=serve, name="dns zone", daemon=True)
    thread.start()
    try:
        yield zone
    finally:
        stop.set()
        thread.join()
        sock.close()
