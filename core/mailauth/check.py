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
import time
from email.utils import getaddresses
from typing import Final

import dkim
import spf

from core.mailauth.dmarc import evaluate
from core.mailauth.resolver import LOOKUP_SECONDS
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


def _left(end: float) -> float:
    """Seconds before the deadline, as one lookup's limit (at most LOOKUP_SECONDS)."""
    return min(LOOKUP_SECONDS, end - time.monotonic())


def _spf(ip: str, mail_from: str, helo: str, end: float) -> tuple[str, str]:
    sender = mail_from or f"postmaster@{helo}"  # RFC 7208 §2.4: a bounce is its HELO's
    if not ip:
        return "none", sender
    if _left(end) <= 0:
        return "temperror", sender
    total = max(0.5, end - time.monotonic())
    result, _explanation = spf.check2(
        i=ip, s=sender, h=helo, timeout=max(0.5, _left(end)), querytime=total
    )
    return str(result), sender


def _dkim(raw: bytes, end: float) -> tuple[DkimSignature, ...]:
    count = min(len(_SIGNATURE.findall(_header_block(raw))), MAX_SIGNATURES)
    found = []
    for index in range(count):
        if _left(end) <= 0:
            found.append(DkimSignature("", "", "temperror"))
            continue
        checker = dkim.DKIM(raw, minkey=1024, timeout=max(1, int(_left(end))))
        try:
            result = "pass" if checker.verify(idx=index) else "fail"
        except dkim.DnsTimeoutError:
            result = "temperror"
        except dkim.ValidationError:  # the hashes do not match: it did not verify
            result = "fail"
        except dkim.DKIMException:
            result = "permerror"
        fields = checker.signature_fields or {}
        domain = fields.get(b"d", b"").decode("ascii", "replace").lower()
        selector = fields.get(b"s", b"").decode("ascii", "replace")
        found.append(DkimSignature(domain, selector, result))
    return tuple(found)


def judge_now(
    raw: bytes, *, ip: str, helo: str, mail_from: str, deadline: float = DEADLINE_SECONDS
) -> Verdict:
    """The verdict, computed in this thread (blocking: DNS lookups and RSA); what is
    left to look up past `deadline` seconds is `temperror`."""
    end = time.monotonic() + deadline
    spf_result, sender = _spf(ip, mail_from, helo, end)
    signatures = _dkim(raw, end)
    domain = from_domain(raw)
    if domain and _left(end) <= 0:
        dmarc_result, policy = "temperror", ""
    elif domain:
        spf_domain = sender.rpartition("@")[2] if spf_result == "pass" else ""
        passing = [sig.domain for sig in signatures if sig.result == "pass"]
        dmarc_result, policy = evaluate(domain, spf_domain, passing, max(0.5, _left(end)))
    else:
        dmarc_result, policy = "permerror", ""  # RFC 7489 §6.6.1: not exactly one From
    return Verdict(spf_result, sender, signatures, dmarc_result, domain, policy)


async def judge(
    raw: bytes, *, ip: str, helo: str, mail_from: str, deadline: float = DEADLINE_SECONDS
) -> Verdict:
    """The verdict, without blocking the loop; `temperror` everywhere past the deadline
    (the thread stops looking up by then, but for the one lookup under way)."""
    try:
        async with asyncio.timeout(deadline + LOOKUP_SECONDS):
            return await asyncio.to_thread(
                judge_now, raw, ip=ip, helo=helo, mail_from=mail_from, deadline=deadline
            )
    except TimeoutError:
        return Verdict("temperror", mail_from, (), "temperror", from_domain(raw), "")
