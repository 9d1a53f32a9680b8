"""Where a domain's mail goes (RFC 5321 §5.1): its MX hosts by preference, each host's
addresses, looked up through dnspython (the resolver the settings point at,
core/mailauth/resolver.py), never the system's `getaddrinfo`.

- MX records are tried lowest preference first; hosts of one preference in a random
  order, as §5.1 asks, so the load spreads.
- No MX record (the name exists, with other records): the domain itself is the one
  host, its A and AAAA records (the "implicit MX").
- A null MX (`0 .`, RFC 7505) says the domain takes no mail: undeliverable for good,
  and so is a domain that does not exist (NXDOMAIN).
- A lookup that fails (timeout, no server answers) is transient: the job is tried again.

Blocking (dnspython's resolver): run it in a thread.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from itertools import groupby

import dns.exception
import dns.name
import dns.resolver

__all__ = ["MAX_ADDRESSES", "Exchange", "LookupTrouble", "Undeliverable", "mail_exchangers"]

MAX_ADDRESSES = 10  # addresses tried for one delivery: a hostile zone cannot make it more


class Undeliverable(Exception):
    """The domain takes no mail, for good: the text is the notice's reason."""


class LookupTrouble(Exception):
    """The DNS did not answer: try again later."""


@dataclass(frozen=True, slots=True)
class Exchange:
    host: str  # the MX name (or the domain itself, for the implicit MX)
    address: str


def _records(resolver: dns.resolver.Resolver, name: str, rtype: str) -> dns.resolver.Answer | None:
    """The answer, or None when the name has no such records (NoAnswer)."""
    try:
        return resolver.resolve(name, rtype, search=False)
    except dns.resolver.NoAnswer:
        return None
    except (dns.exception.Timeout, dns.resolver.NoNameservers) as error:
        raise LookupTrouble(f"no answer for the {rtype} of {name}: {error}") from error


def _hosts(resolver: dns.resolver.Resolver, domain: str) -> list[str] | None:
    """The MX hosts in the order to try; None when there is no MX record."""
    try:
        answer = _records(resolver, domain, "MX")
    except dns.resolver.NXDOMAIN:
        raise Undeliverable(f"550 5.1.2 {domain} does not exist (NXDOMAIN)") from None
    if answer is None:
        return None
    records = sorted(answer, key=lambda r: r.preference)
    if any(r.exchange == dns.name.root for r in records):
        raise Undeliverable(
            f"556 5.1.10 {domain} accepts no mail: it publishes a null MX (RFC 7505)"
        )
    ordered: list[str] = []
    for _, group in groupby(records, key=lambda r: r.preference):
        names = [r.exchange.to_text(omit_final_dot=True).lower() for r in group]
        random.shuffle(names)  # RFC 5321 §5.1: spread over hosts of one preference
        ordered += [name for name in names if name not in ordered]
    return ordered


def _addresses(resolver: dns.resolver.Resolver, host: str) -> list[str]:
    found: list[str] = []
    for rtype in ("A", "AAAA"):
        try:
            answer = _records(resolver, host, rtype)
        except dns.resolver.NXDOMAIN:
            return found
        found += [r.to_text() for r in answer or ()]
    return found


def mail_exchangers(resolver: dns.resolver.Resolver, domain: str) -> list[Exchange]:
    """The addresses to try for `domain`, in order (at most MAX_ADDRESSES); raises
    Undeliverable or LookupTrouble."""
    hosts = _hosts(resolver, domain)
    implicit = hosts is None
    exchanges: list[Exchange] = []
    trouble: LookupTrouble | None = None
    for host in [domain] if hosts is None else hosts:
        try:
            exchanges += [Exchange(host, address) for address in _addresses(resolver, host)]
        except LookupTrouble as error:
            trouble = error
        if len(exchanges) >= MAX_ADDRESSES:
            break
    if not exchanges and trouble is not None:
        raise trouble
    if not exchanges and implicit:
        raise Undeliverable(f"550 5.1.2 {domain} has neither an MX nor an address record")
    if not exchanges:
        raise LookupTrouble(f"no MX host of {domain} has an address")
    return exchanges[:MAX_ADDRESSES]
