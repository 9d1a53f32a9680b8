"""SPF, DKIM and DMARC verdicts (core/mailauth) against records served by the outside
world's DNS server (here on loopback): a reply signed by its domain passes, and each
way of forging one —
a spoofed From without a signature, a signature of another domain, a sending host SPF
does not list, two From fields — gets no DMARC pass; a silent name server is a
`temperror`, never an exception or a stalled loop."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator

import dkim
import dns.resolver
import pytest
from authres import AuthenticationResultsHeader
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from hypothesis import given
from hypothesis import strategies as st

from core.mailauth.check import from_domain, judge
from core.mailauth.resolver import parse_servers, use_resolver
from tests.support.outside.dns import DnsServer, running_dns

SENDER_IP = "192.0.2.25"
OTHER_IP = "198.51.100.7"
_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
PRIVATE_PEM = _KEY.private_bytes(
    serialization.Encoding.PEM,
    serialization.PrivateFormat.TraditionalOpenSSL,
    serialization.NoEncryption(),
)
PUBLIC_B64 = base64.b64encode(
    _KEY.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
).decode()


@pytest.fixture
async def zone() -> AsyncIterator[DnsServer]:
    """The outside world's DNS server, here on loopback: the test zones' records."""
    saved = dns.resolver.default_resolver
    async with running_dns(
        None, "127.0.0.1", ["outside.test", "evil.test", "relay.test"], port=0
    ) as server:
        server.set_txt("outside.test", f"v=spf1 ip4:{SENDER_IP} -all")
        server.set_txt("_dmarc.outside.test", "v=DMARC1; p=reject")
        server.set_txt("sel._domainkey.outside.test", f"v=DKIM1; k=rsa; p={PUBLIC_B64}")
        server.set_txt("sel._domainkey.evil.test", f"v=DKIM1; k=rsa; p={PUBLIC_B64}")
        use_resolver([("127.0.0.1", server.port)])
        try:
            yield server
        finally:
            dns.resolver.default_resolver = saved


def message(sender: str = "Alice <alice@outside.test>", extra: str = "") -> bytes:
    return (
        f"From: {sender}\r\n{extra}To: reply+token@agentmail.test\r\nSubject: Re: may I?\r\n"
        "Date: Fri, 04 Dec 2026 16:00:00 +0000\r\nMessage-ID: <r1@outside.test>\r\n"
        "\r\n1\r\n"
    ).encode()


def signed(raw: bytes, domain: str = "outside.test") -> bytes:
    headers = [b"from", b"to", b"subject", b"date", b"message-id"]
    signature = dkim.sign(raw, b"sel", domain.encode(), PRIVATE_PEM, include_headers=headers)
    return bytes(signature) + raw


async def test_a_reply_signed_and_sent_by_its_domain_passes(zone: DnsServer) -> None:
    found = await judge(
        signed(message()), ip=SENDER_IP, helo="mx.outside.test", mail_from="alice@outside.test"
    )
    assert (found.spf, found.dmarc, found.from_domain, found.policy) == (
        "pass",
        "pass",
        "outside.test",
        "reject",
    )
    assert [(s.domain, s.selector, s.result) for s in found.dkim] == [
        ("outside.test", "sel", "pass")
    ]
    assert found.aligned_dkim_pass()
    header = found.header("agentmail.test")
    parsed = AuthenticationResultsHeader.parse(header)
    assert parsed.authserv_id == "agentmail.test"
    assert [(r.method, r.result) for r in parsed.results] == [
        ("spf", "pass"),
        ("dkim", "pass"),
        ("dmarc", "pass"),
    ]


async def test_a_signature_alone_passes_from_a_host_spf_does_not_list(zone: DnsServer) -> None:
    found = await judge(
        signed(message()), ip=OTHER_IP, helo="relay.test", mail_from="bounce@relay.test"
    )
    assert found.spf in ("none", "neutral") and found.dmarc == "pass"


async def test_a_spoofed_from_without_a_signature_fails(zone: DnsServer) -> None:
    found = await judge(message(), ip=OTHER_IP, helo="evil.test", mail_from="alice@outside.test")
    assert (found.spf, found.dkim, found.dmarc) == ("fail", (), "fail")
    assert not found.aligned_dkim_pass()


async def test_a_signature_of_another_domain_is_not_aligned(zone: DnsServer) -> None:
    raw = signed(message(), domain="evil.test")
    found = await judge(raw, ip=OTHER_IP, helo="evil.test", mail_from="x@evil.test")
    assert [(s.domain, s.result) for s in found.dkim] == [("evil.test", "pass")]
    assert found.dmarc == "fail" and not found.aligned_dkim_pass()


async def test_an_altered_body_breaks_the_signature(zone: DnsServer) -> None:
    raw = signed(message()).replace(b"\r\n1\r\n", b"\r\n3\r\n")
    found = await judge(raw, ip=OTHER_IP, helo="relay.test", mail_from="")
    assert [s.result for s in found.dkim] == ["fail"] and found.dmarc == "fail"


async def test_two_from_fields_get_no_pass(zone: DnsServer) -> None:
    raw = signed(message(extra="From: bob@outside.test\r\n"))
    found = await judge(raw, ip=SENDER_IP, helo="mx.outside.test", mail_from="alice@outside.test")
    assert found.from_domain == "" and found.dmarc == "permerror"
    assert not found.aligned_dkim_pass()


async def test_a_silent_name_server_is_a_temporary_error() -> None:
    saved = dns.resolver.default_resolver
    use_resolver([("127.0.0.1", 9)])  # nothing listens: every lookup is refused
    try:
        found = await judge(
            signed(message()),
            ip=SENDER_IP,
            helo="mx.outside.test",
            mail_from="a@outside.test",
            deadline=1.0,
        )
    finally:
        dns.resolver.default_resolver = saved
    assert found.spf == "temperror" and found.dmarc == "temperror"
    assert all(sig.result == "temperror" for sig in found.dkim)


def test_name_servers_are_addresses_with_optional_ports() -> None:
    assert parse_servers("10.0.0.53, [2001:db8::1]:5353,127.0.0.1:5300") == [
        ("10.0.0.53", 53),
        ("2001:db8::1", 5353),
        ("127.0.0.1", 5300),
    ]
    assert parse_servers("") == []
    for bad in ("ns.example.com", "10.0.0.1:0", "10.0.0.1:99999"):
        with pytest.raises(ValueError):
            parse_servers(bad)


@given(st.binary(max_size=2000))
def test_any_header_block_gives_one_domain_or_none(raw: bytes) -> None:
    domain = from_domain(raw)
    assert domain == "" or ("@" not in domain and domain == domain.lower())
