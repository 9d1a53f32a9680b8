"""Judging a message from outside: SPF on the connection, each DKIM signature, DMARC on
the From domain.

The libraries block (DNS, RSA), so `judge` runs them in a thread under one deadline;
what they cannot finish in time is `temperror`. Work is bounded: at most
`MAX_SIGNATURES` signatures are checked, and DKIM reads only the message it is given
(the listener has already limited its size).
"""

from __future__ import annotations

import asyncio
import re
from email.utils import getaddresses
from typing import Final

import dkim
import spf
from authheaders import dmarc_per_from
from authres import DKIMAuthenticationResult, SPFAuthenticationResult

from core.mailauth.verdict import DkimSignature, Verdict

__all__ = ["MAX_SIGNATURES", "judge", "judge_now"]

MAX_SIGNATURES: Final = 5
DEADLINE_SECONDS: Final = 20.0
_HEADER_END = re.compile(rb"\r?\n\r?\n")
_SIGNATURE = re.compile(rb"^dkim-signature:", re.IGNORECASE | re.MULTILINE)


def _header_block(raw: bytes) -> bytes:
    end = _HEADER_END.search(raw)
    return raw[: end.start()] if end else raw


def from_domain(raw: bytes) -> str:
    """The domain of the one From address; "" for none, several, or one without `@`
    (RFC 7489 §6.6.1: such a message gets no DMARC pass here)."""
    text = _header_block(raw).decode("utf-8", "replace").replace("\r\n", "\n")
    values = []
    for line in re.split(r"\n(?![ \t])", text):
        name, colon, value = line.partition(":")
        if colon and name.strip().lower() == "from":
            values.append(value.replace("\n", " ").strip())
    addresses = [address for _, address in getaddresses(values) if address]
    if len(values) != 1 or len(addresses) != 1 or "@" not in addresses[0]:
        return ""
    return addresses[0].rpartition("@")[2].strip().lower().rstrip(".")


def _spf(ip: str, mail_from: str, helo: str) -> tuple[str, str]:
    if not ip:
        return "none", mail_from
    sender = mail_from or f"postmaster@{helo}"  # RFC 7208 §2.4: a bounce is its HELO's
    result, _explanation = spf.check2(i=ip, s=sender, h=helo, timeout=DEADLINE_SECONDS / 2)
    return str(result), sender


def _dkim(raw: bytes) -> tuple[DkimSignature, ...]:
    count = min(len(_SIGNATURE.findall(_header_block(raw))), MAX_SIGNATURES)
    found = []
    for index in range(count):
        checker = dkim.DKIM(raw, minkey=1024, timeout=5)
        try:
            result = "pass" if checker.verify(idx=index) else "fail"
        except dkim.DnsTimeoutError:
            result = "temperror"
        except dkim.DKIMException:
            result = "permerror"
        fields = checker.signature_fields or {}
        domain = fields.get(b"d", b"").decode("ascii", "replace").lower()
        selector = fields.get(b"s", b"").decode("ascii", "replace")
        found.append(DkimSignature(domain, selector, result))
    return tuple(found)


def _dmarc(
    domain: str, spf_result: str, sender: str, signatures: tuple[DkimSignature, ...]
) -> tuple[str, str]:
    if not domain:
        return "permerror", ""
    passing: list[DkimSignature | None] = [sig for sig in signatures if sig.result == "pass"]
    verdict, policy = "none", ""
    for sig in passing or [None]:
        found = (
            None if sig is None else DKIMAuthenticationResult(result="pass", header_d=sig.domain)
        )
        # dmarc_per_from rewrites smtp_mailfrom to its domain: a fresh result each round
        spf_copy = SPFAuthenticationResult(result=spf_result, smtp_mailfrom=sender)
        verdict, _comment, _domain, policy = dmarc_per_from(
            domain, spf_result=spf_copy, dkim_result=found
        )
        if verdict == "pass":
            break
    return str(verdict), str(policy or "")


def judge_now(raw: bytes, *, ip: str, helo: str, mail_from: str) -> Verdict:
    """The verdict, computed in this thread (blocking: DNS lookups and RSA)."""
    spf_result, sender = _spf(ip, mail_from, helo)
    signatures = _dkim(raw)
    domain = from_domain(raw)
    try:
        dmarc_result, policy = _dmarc(domain, spf_result, sender, signatures)
    except Exception:  # a DNS failure inside authheaders: not provable now
        dmarc_result, policy = "temperror", ""
    return Verdict(spf_result, sender, signatures, dmarc_result, domain, policy)


async def judge(raw: bytes, *, ip: str, helo: str, mail_from: str) -> Verdict:
    """The verdict, without blocking the loop; `temperror` everywhere past the deadline."""
    try:
        async with asyncio.timeout(DEADLINE_SECONDS):
            return await asyncio.to_thread(judge_now, raw, ip=ip, helo=helo, mail_from=mail_from)
    except TimeoutError:
        return Verdict("temperror", mail_from, (), "temperror", from_domain(raw), "")
