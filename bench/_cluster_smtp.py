"""bench/cluster.py's SMTP round: mails with an attachment, so the blob store is in the path.

`connections` aiosmtplib clients, spread over a configuration's SMTP ports, each signed
in as the bench's human, send for `seconds` a mail to the human's own address with one
attachment of `attachment_bytes` (random bytes, a new content each mail: the object
store takes one new object a mail). A mail counts at its `250`; its latency is from the
first byte of `MAIL FROM` to the `250`. The human's own address keeps these mails off
the agents' streams, whose deliveries the wrk rounds count.
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass, field
from email.message import EmailMessage

import aiosmtplib
from _cluster_clients import SENDER

DOMAIN = "agentmail.localhost"


@dataclass
class SmtpRun:
    sent: int = 0
    errors: list[str] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    seconds: float = 0.0
    client_cpu: float = 0.0

    @property
    def rate(self) -> float:
        return self.sent / self.seconds if self.seconds else 0.0

    def add(self, other: SmtpRun) -> None:
        self.sent += other.sent
        self.errors += other.errors
        self.latencies += other.latencies
        self.seconds += other.seconds
        self.client_cpu += other.client_cpu


def _message(tag: str, number: int, attachment_bytes: int) -> bytes:
    message = EmailMessage()
    address = f"{SENDER}@{DOMAIN}"
    message["From"], message["To"] = address, address
    message["Subject"] = f"smtp {tag} {number}"
    message["Message-ID"] = f"<cluster-{tag}-{number}@bench.localhost>"
    message.set_content(f"mail {number} of the cluster bench's SMTP round\n")
    message.add_attachment(
        os.urandom(attachment_bytes), maintype="application", subtype="octet-stream",
        filename=f"part-{number}.bin",
    )  # fmt: skip
    return message.as_bytes()


async def smtp_round(
    ports: list[int], key: str, *, seconds: float, connections: int, attachment_bytes: int,
    tag: str,
) -> SmtpRun:  # fmt: skip
    """Send for `seconds` over `connections` clients spread over `ports`."""
    clients = [
        aiosmtplib.SMTP(hostname="127.0.0.1", port=ports[n % len(ports)], timeout=60)
        for n in range(connections)
    ]
    for client in clients:
        await client.connect()
        await client.login(SENDER, key)
    result, counter = SmtpRun(), iter(range(10**9))
    address = f"{SENDER}@{DOMAIN}"
    cpu = time.process_time()
    started = time.perf_counter()
    end = started + seconds

    async def worker(client: aiosmtplib.SMTP) -> None:
        while time.perf_counter() < end:
            raw = _message(tag, next(counter), attachment_bytes)  # new bytes: a new object
            sent_at = time.perf_counter()
            try:
                await client.sendmail(address, [address], raw)
            except aiosmtplib.SMTPException as error:
                result.errors.append(repr(error)[:200])
                continue
            result.latencies.append(time.perf_counter() - sent_at)
            result.sent += 1

    await asyncio.gather(*(worker(client) for client in clients))
    result.seconds = time.perf_counter() - started
    result.client_cpu = time.process_time() - cpu
    for client in clients:
        await client.quit()
    return result
