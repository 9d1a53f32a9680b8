"""The outside world put together: hosts, DNS records, and what a test does with them.

`running_outside_world()` takes a slot (netns.py), starts the DNS server on the `dns`
host (10.28.<slot>.53), Dovecot with alice's mailbox on the `imap` host (.3: IMAP 143,
LMTP 24) and Postfix on the `mx` host (.2: 25 and 587), publishes the zones' records,
and takes everything down again on the way out, whatever happened. The gateway under
test runs in the root namespace and is `gateway_address` (.1) on the world's network:
the DNS makes it the MX of `gateway_domain`, and Postfix relays that domain's mail to
it on `gateway_port`.
"""

from __future__ import annotations

import asyncio
import errno
import imaplib
import shutil
import tempfile
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiosmtplib

from tests.support.dovecot import Dovecot, Listen, running_dovecot
from tests.support.outside import netns
from tests.support.outside.dkim_keys import DkimKey, make_key
from tests.support.outside.dns import DnsServer, running_dns
from tests.support.outside.postfix import Postfix, PostfixSettings, write_instance

OUTSIDE_DOMAIN = "outside.test"
GATEWAY_DOMAIN = "agentmail.test"
# Where Postfix relays the gateway's mail: its MX port (not the SMTP 2525), one per slot:
# the gateways of worlds running at once (xdist workers) each bind theirs on every address.
GATEWAY_PORT = 2625
HOSTS = {"gateway": 1, "mx": 2, "imap": 3, "dns": 53}
LMTP_PORT = 24
IMAP_PORT = 143
WAIT = 30.0  # the most a wait_for_mail waits: far beyond a delivery on a busy machine
POLL = 0.1


@dataclass
class OutsideWorld:
    slot: netns.Slot
    root: Path
    dns: DnsServer
    postfix: Postfix
    dovecot: Dovecot
    dkim: DkimKey  # outside.test's signing key, published at sel._domainkey.outside.test
    outside_domain: str = OUTSIDE_DOMAIN
    gateway_domain: str = GATEWAY_DOMAIN
    gateway_port: int = GATEWAY_PORT

    def address(self, host: str) -> str:
        """The address of `gateway`, `mx`, `imap` or `dns` on the world's network."""
        return self.slot.address(HOSTS[host])

    def namespace(self, host: str) -> str:
        return self.slot.namespace(host)

    @property
    def gateway_address(self) -> str:
        return self.address("gateway")

    async def send_from_outside(
        self, message: bytes, mail_from: str, rcpt: str | list[str], port: int = 587
    ) -> str:
        """Submit `message` at the outside Postfix as a mail client would; the queue id
        Postfix gives it."""
        recipients = [rcpt] if isinstance(rcpt, str) else rcpt
        async with aiosmtplib.SMTP(
            hostname=self.address("mx"), port=port, timeout=WAIT, start_tls=False
        ) as client:
            _, reply = await client.sendmail(mail_from, recipients, message)
        return reply.rsplit(" ", 1)[-1]

    async def mailbox(self, user: str = "alice") -> list[bytes]:
        """Every message in `user`'s INBOX, raw, read over IMAP as a mail client would."""
        assert user == self.dovecot.user, f"the outside mailbox is {self.dovecot.user}'s"
        return await asyncio.to_thread(
            _fetch_all, self.dovecot.host, self.dovecot.port, user, self.dovecot.password
        )

    async def wait_for_mail(
        self,
        condition: Callable[[bytes], bool] = lambda _: True,
        count: int = 1,
        user: str = "alice",
    ) -> list[bytes]:
        """The messages of `user`'s INBOX meeting `condition`, once there are `count` of
        them; polled, and failing if that takes past WAIT (a failed test's report carries
        the world's logs: fixture.py)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + WAIT
        while True:
            found = [raw for raw in await self.mailbox(user) if condition(raw)]
            if len(found) >= count:
                return found
            if loop.time() > deadline:
                raise AssertionError(f"{len(found)} of {count} mails in {user}'s mailbox")
            await asyncio.sleep(POLL)

    async def postfix_queue(self) -> list[dict[str, Any]]:
        """The outside Postfix's queue (`postqueue -j`): what is deferred and why."""
        return await self.postfix.queue()

    async def connect_from(self, host: str, address: str, port: int) -> None:
        """A TCP connection from inside `host`'s namespace, closed at once; raises the
        OSError that refused it."""
        sock = netns.socket_in(self.namespace(host))
        with sock:
            await asyncio.wait_for(
                asyncio.get_running_loop().sock_connect(sock, (address, port)), WAIT
            )

    def logs(self) -> str:
        """Postfix's log and queue, Dovecot's log and the questions the DNS answered
        (blocking: for a failure's report)."""
        dovecot_log = self.dovecot.root / "dovecot.log"
        sections = {
            f"postfix log ({self.postfix.log_path})": self.postfix.log(),
            "postfix queue (postqueue -j)": self.postfix.queue_now(),
            f"dovecot log ({dovecot_log})": dovecot_log.read_text(errors="replace")
            if dovecot_log.exists()
            else "",
            "dns questions": "\n".join(f"{n} {t}" for n, t in self.dns.zones.queries),
        }
        return "\n".join(f"── {title}\n{text}" for title, text in sections.items())


def _fetch_all(host: str, port: int, user: str, password: str) -> list[bytes]:
    with imaplib.IMAP4(host, port, timeout=WAIT) as imap:
        imap.login(user, password)
        imap.select("INBOX", readonly=True)
        _, found = imap.uid("SEARCH", "ALL")
        messages = []
        for uid in found[0].split():
            _, parts = imap.uid("FETCH", uid.decode(), "(BODY.PEEK[])")
            item = parts[0]
            assert isinstance(item, tuple), parts
            messages.append(item[1])
        return messages


def publish_defaults(world: OutsideWorld) -> None:
    """The records a real outside domain and the gateway's domain would have."""
    dns, outside, gateway = world.dns, world.outside_domain, world.gateway_domain
    for host in ("mx", "imap", "dns"):
        dns.set_a(f"{host}.{outside}", world.address(host))
    dns.set_mx(outside, f"mx.{outside}")
    dns.set_txt(outside, f"v=spf1 ip4:{world.address('mx')} -all")
    dns.set_txt(f"_dmarc.{outside}", "v=DMARC1; p=reject")
    dns.set_txt(world.dkim.record_name, world.dkim.record_text)
    dns.set_a(f"mx.{gateway}", world.gateway_address)
    dns.set_mx(gateway, f"mx.{gateway}")


async def _build_network(slot: netns.Slot) -> None:
    await netns.clear_slot(slot)
    await netns.add_switch(slot, HOSTS["gateway"])
    for host in ("dns", "imap", "mx"):
        await netns.add_host(slot, host, HOSTS[host], slot.address(HOSTS["dns"]))


async def _tear_down(slot: netns.Slot, postfix: Postfix | None) -> None:
    """Give a stopped Postfix the moment it takes to end (its log flushed), then end
    whatever is left anywhere in the world and remove the namespaces."""
    if postfix is not None:
        for _ in range(100):
            if not await netns.namespace_pids(postfix.namespace):
                break
            await asyncio.sleep(0.05)
    await netns.clear_slot(slot)


def _make_root(slot: netns.Slot) -> Path:
    root = Path(tempfile.mkdtemp(prefix=f"agentmail-outside-{slot.number}-"))
    root.chmod(0o755)  # Postfix's and Dovecot's own users go through it
    return root


def _postfix_settings(slot: netns.Slot, user: str, gateway_port: int) -> PostfixSettings:
    return PostfixSettings(
        hostname=f"mx.{OUTSIDE_DOMAIN}",
        domain=OUTSIDE_DOMAIN,
        mailboxes=(user,),
        mailbox_host=slot.address(HOSTS["imap"]),
        lmtp_port=LMTP_PORT,
        network=f"{slot.address(0)}/24",
        gateway_domain=GATEWAY_DOMAIN,
        gateway_port=gateway_port,
    )


@asynccontextmanager
async def running_outside_world(
    gateway_port: int | None = None, keep: Callable[[], bool] = lambda: False
) -> AsyncIterator[OutsideWorld]:
    """A whole outside world, torn down on exit; with `keep()` true then, its files
    (configuration, logs, queue, mailbox) stay where `world.root` and the Dovecot's
    root say."""
    slot = await asyncio.to_thread(netns.take_slot)
    if gateway_port is None:
        gateway_port = GATEWAY_PORT + slot.number
    root = await asyncio.to_thread(_make_root, slot)
    postfix: Postfix | None = None
    try:
        async with AsyncExitStack() as stack:
            await _build_network(slot)
            zones = (OUTSIDE_DOMAIN, GATEWAY_DOMAIN)
            dns_host = (slot.namespace("dns"), slot.address(HOSTS["dns"]))
            dns = await stack.enter_async_context(running_dns(*dns_host, zones))
            imap_host = (slot.address(HOSTS["imap"]), IMAP_PORT, slot.namespace("imap"))
            dovecot = await stack.enter_async_context(
                running_dovecot(
                    root, plaintext=True, listen=Listen(*imap_host, LMTP_PORT), keep=keep
                )
            )
            settings = _postfix_settings(slot, dovecot.user, gateway_port)
            await asyncio.to_thread(write_instance, root / "postfix", settings)
            postfix = Postfix(root / "postfix", slot.namespace("mx"), slot.address(HOSTS["mx"]))
            dkim_key = await asyncio.to_thread(make_key, OUTSIDE_DOMAIN)
            world = OutsideWorld(
                slot, root, dns, postfix, dovecot, dkim_key, gateway_port=gateway_port
            )
            publish_defaults(world)
            await postfix.start()
            try:
                yield world
            finally:
                postfix.stop()  # before Dovecot, which it delivers to
    finally:
        await _tear_down(slot, postfix)
        if not keep():
            await asyncio.to_thread(shutil.rmtree, root, True)
        netns.release_slot(slot)


def unreachable(error: OSError) -> bool:
    """Whether a connect failed for want of a route (no waiting on a silent peer)."""
    return error.errno in (errno.ENETUNREACH, errno.EHOSTUNREACH)


__all__ = ["OutsideWorld", "running_outside_world", "unreachable"]
