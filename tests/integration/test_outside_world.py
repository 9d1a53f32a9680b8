"""The outside world's smoke tests: each real part answers as the scenarios need it.

Mail submitted at the outside Postfix lands in alice's Dovecot mailbox; a message
signed with the outside domain's DKIM key verifies with dkimpy against the test DNS;
SPF and DMARC records are answered and changed by the test; no host can reach an
address outside the test network; Postfix relays the gateway's domain to its MX in
the root namespace (an aiosmtpd sink here, the stand-in for the gateway's MX listener);
a world is gone after a test that failed in it.
"""

from __future__ import annotations

import asyncio
from email.message import EmailMessage
from email.utils import make_msgid

import dkim
import pytest
from aiosmtpd.smtp import SMTP, Envelope, Session

from tests.support.outside import OutsideWorld, netns, running_outside_world, unreachable
from tests.support.outside.fixture import require_outside_world

pytestmark = pytest.mark.outside


def _mail(sender: str, recipient: str, subject: str) -> tuple[bytes, str]:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = recipient
    message["Subject"] = subject
    message["Date"] = "Fri, 04 Dec 2026 12:00:00 +0000"
    message["Message-ID"] = message_id = make_msgid(domain="outside.test")
    message.set_content("Hello from outside.\n")
    return message.as_bytes(policy=message.policy.clone(linesep="\r\n")), message_id


async def test_mail_submitted_outside_lands_in_alices_mailbox(
    outside_world: OutsideWorld,
) -> None:
    raw, message_id = _mail("bob@outside.test", "alice@outside.test", "hello")
    queue_id = await outside_world.send_from_outside(raw, "bob@outside.test", "alice@outside.test")
    [stored] = await outside_world.wait_for_mail(lambda mail: message_id.encode() in mail)
    assert b"Subject: hello" in stored
    assert f"with ESMTP id {queue_id}".encode() in stored  # through Postfix, not around it
    assert await outside_world.postfix_queue() == []


async def test_a_dkim_signature_verifies_against_the_test_dns(
    outside_world: OutsideWorld,
) -> None:
    raw, message_id = _mail("alice@outside.test", "alice@outside.test", "signed")
    signed = outside_world.dkim.sign(raw)
    await outside_world.send_from_outside(signed, "alice@outside.test", "alice@outside.test")
    [stored] = await outside_world.wait_for_mail(lambda mail: message_id.encode() in mail)

    def verify(message: bytes) -> bool:
        return bool(dkim.verify(message, dnsfunc=outside_world.dns.dkim_dnsfunc))

    assert await asyncio.to_thread(verify, stored)
    assert not await asyncio.to_thread(verify, stored.replace(b"signed", b"forged"))
    outside_world.dns.remove(outside_world.dkim.record_name)  # the key withdrawn
    assert not await asyncio.to_thread(verify, stored)


async def test_spf_and_dmarc_records_are_answered_and_set_by_the_test(
    outside_world: OutsideWorld,
) -> None:
    dns, mx = outside_world.dns, outside_world.address("mx")
    assert await asyncio.to_thread(dns.txt, "outside.test") == [f"v=spf1 ip4:{mx} -all"]
    assert await asyncio.to_thread(dns.txt, "_dmarc.outside.test") == ["v=DMARC1; p=reject"]
    dns.set_txt("_dmarc.agentmail.test", "v=DMARC1; p=quarantine; adkim=s")
    dns.set_txt("agentmail.test", "v=spf1 -all")
    assert await asyncio.to_thread(dns.txt, "_dmarc.agentmail.test") == [
        "v=DMARC1; p=quarantine; adkim=s"
    ]
    assert await asyncio.to_thread(dns.txt, "agentmail.test") == ["v=spf1 -all"]
    dns.remove("_dmarc.outside.test")
    assert await asyncio.to_thread(dns.txt, "_dmarc.outside.test") == []


async def test_no_host_reaches_beyond_the_test_network(outside_world: OutsideWorld) -> None:
    for host in ("mx", "imap", "dns"):
        with pytest.raises(OSError) as refused:
            await outside_world.connect_from(host, "192.0.2.1", 25)
        assert unreachable(refused.value), (host, refused.value)
        # The world's own network is there: the gateway's address answers (nobody listens).
        with pytest.raises(ConnectionRefusedError):
            await outside_world.connect_from(host, outside_world.gateway_address, 1)


class _Sink:
    """What the gateway's MX listener will be: it keeps each envelope it is given."""

    def __init__(self) -> None:
        self.received: asyncio.Queue[Envelope] = asyncio.Queue()

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        self.received.put_nowait(envelope)
        return "250 2.0.0 Ok"


async def test_postfix_relays_the_gateways_domain_to_its_mx(
    outside_world: OutsideWorld,
) -> None:
    sink = _Sink()
    server = await asyncio.get_running_loop().create_server(
        lambda: SMTP(sink), outside_world.gateway_address, outside_world.gateway_port
    )
    try:
        raw, message_id = _mail("alice@outside.test", "agent@agentmail.test", "to the gateway")
        await outside_world.send_from_outside(
            raw, "alice@outside.test", "agent@agentmail.test", port=25
        )
        envelope = await asyncio.wait_for(sink.received.get(), 30)
    finally:
        server.close()
        await server.wait_closed()
    assert envelope.mail_from == "alice@outside.test"
    assert envelope.rcpt_tos == ["agent@agentmail.test"]
    assert isinstance(envelope.original_content, bytes)
    assert message_id.encode() in envelope.original_content
    assert ("agentmail.test", "MX") in outside_world.dns.zones.queries  # found by its MX


async def test_a_world_is_taken_down_when_its_test_fails() -> None:
    require_outside_world()
    with pytest.raises(RuntimeError, match="the test failed"):
        async with running_outside_world() as world:
            namespaces = [world.namespace(host) for host in ("mx", "imap", "dns", "sw")]
            processes = await netns.namespace_pids(world.namespace("mx"))
            assert processes
            raise RuntimeError("the test failed")
    listed = await netns.ip("netns", "list")
    assert not [name for name in namespaces if name in listed.split()]
    assert not [pid for pid in processes if (await asyncio.to_thread(_alive, pid))]
    assert not world.root.exists()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except OSError:
        return False
