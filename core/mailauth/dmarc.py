"""DMARC (RFC 7489): the From domain's policy, and whether what SPF or DKIM proved is
aligned with that domain.

Organizational domains come from the public suffix list (RFC 7489 §3.2), with its
default rule for a name the list does not know (`outside.test` is its own). Records
are read through dnspython's default resolver (core/mailauth/resolver.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Final, Literal

import dns.exception
import dns.resolver
from publicsuffixlist import PublicSuffixList

__all__ = ["Policy", "aligned", "evaluate", "find_policy", "organizational_domain"]

_POLICIES: Final = ("none", "quarantine", "reject")
Mode = Literal["r", "s"]


class DnsTrouble(Exception):
    """No answer could be had: the verdict is `temperror`, not `none`."""


@dataclass(frozen=True, slots=True)
class Policy:
    """The record that governs a From domain (RFC 7489 §6.3)."""

    policy: str  # p=, or sp= when the record is the organizational domain's
    adkim: Mode
    aspf: Mode


@cache
def _suffixes() -> PublicSuffixList:
    return PublicSuffixList()


def organizational_domain(domain: str) -> str:
    domain = domain.lower().rstrip(".")
    return _suffixes().privatesuffix(domain) or domain


def aligned(identifier: str, from_domain: str, mode: Mode) -> bool:
    """RFC 7489 §3.1: strict is the same name, relaxed the same organizational domain."""
    identifier, from_domain = identifier.lower().rstrip("."), from_domain.lower().rstrip(".")
    if not identifier or not from_domain:
        return False
    if mode == "s":
        return identifier == from_domain
    return organizational_domain(identifier) == organizational_domain(from_domain)


def _tags(text: str) -> dict[str, str]:
    tags: dict[str, str] = {}
    for part in text.split(";"):
        name, equals, value = part.partition("=")
        if equals:
            tags.setdefault(name.strip().lower(), value.strip())
    return tags


def _record(name: str, lifetime: float) -> dict[str, str] | None:
    """The one DMARC record at `_dmarc.<name>` (RFC 7489 §6.6.3: none, or several, is
    no record)."""
    try:
        answer = dns.resolver.resolve(f"_dmarc.{name}", "TXT", lifetime=lifetime)
    except (dns.resolver.NXDOMAIN, dns.resolver.NoAnswer):
        return None
    except (dns.exception.Timeout, dns.resolver.NoNameservers) as error:
        raise DnsTrouble(str(error)) from error
    texts = [b"".join(r.strings).decode("utf-8", "replace") for r in answer]
    found = [t for t in texts if t.replace(" ", "").lower().startswith("v=dmarc1")]
    return _tags(found[0]) if len(found) == 1 else None


def _mode(value: str | None) -> Mode:
    return "s" if value == "s" else "r"


def find_policy(from_domain: str, lifetime: float) -> Policy | None:
    """The From domain's record, else its organizational domain's (sp= applies there)."""
    tags = _record(from_domain, lifetime)
    below = False
    organization = organizational_domain(from_domain)
    if tags is None and organization != from_domain:
        tags, below = _record(organization, lifetime), True
    if tags is None:
        return None
    policy = tags.get("p", "none").lower()
    if below:
        policy = tags.get("sp", policy).lower()
    if policy not in _POLICIES:  # §6.6.3: an unknown policy is read as none
        policy = "none"
    return Policy(policy, _mode(tags.get("adkim")), _mode(tags.get("aspf")))


def evaluate(
    from_domain: str, spf_pass_domain: str, dkim_pass_domains: list[str], lifetime: float
) -> tuple[str, str]:
    """(result, policy): `pass` when SPF or a DKIM signature passed for an aligned domain,
    `fail` when neither did, `none` without a record, `temperror` when DNS failed."""
    try:
        found = find_policy(from_domain, lifetime)
    except DnsTrouble:
        return "temperror", ""
    if found is None:
        return "none", ""
    passed = aligned(spf_pass_domain, from_domain, found.aspf) or any(
        aligned(domain, from_domain, found.adkim) for domain in dkim_pass_domains
    )
    return ("pass" if passed else "fail"), found.policy
