"""Addresses outside the gateway: `mailto:x@example.com`, the one parser's other branch.

In the native fields (a send's `to` and `cc`, a stored mail's `cc`, views) an outside
mailbox is written with the `mailto:` scheme (RFC 6068), as imported outside
participants already are. `:` never occurs in a name, so the two forms cannot be
confused; and `x@example.com` without the scheme keeps its native meaning (agent or
human `x`, path `example.com`): it is never read as outside.

The mailbox is checked strictly, as RFC 5321 §4.1.2 `Mailbox` with a `Dot-string`
local part and a `Domain` of `sub-domain`s:

* ASCII only: no SMTPUTF8 local parts (RFC 6531) and no U-labels: an IDN domain is
  written in its A-label form (`xn--...`), which the error says;
* no quoted local parts and no address literals (`[192.0.2.1]`): both are legal and
  almost never meant; refusing them keeps the queue's recipients plain dot-atoms;
* no RFC 6068 extras: one mailbox, no `?headers`, no `%XX` escapes;
* RFC 5321 §4.5.3.1: local part ≤ 64 octets, domain ≤ 255, each label ≤ 63, and the
  whole mailbox ≤ 254 (a path is 256 octets with its angle brackets);
* a fully qualified domain (at least two labels): a bare host is not on the internet.

The domain is stored lower-case (domains compare case-insensitively, RFC 5321 §2.4);
the local part exactly as written (it is the receiving server's to interpret).
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from typing import Final

from core.address import Address, parse_address  # the package: the native branch
from core.errors import InvalidAddress

__all__ = [
    "MAILTO",
    "MAX_MAILBOX_LENGTH",
    "External",
    "is_mailto",
    "parse_mailbox",
    "parse_mailto",
    "parse_recipient",
]

MAILTO: Final = "mailto:"
MAX_LOCAL_LENGTH: Final = 64
MAX_DOMAIN_LENGTH: Final = 255
MAX_MAILBOX_LENGTH: Final = 254
_LABEL_RE: Final = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")
# RFC 5321 §4.1.2 atext less `%` and `?`, which RFC 6068 gives a meaning in a mailto: URI.
_ATEXT: Final = frozenset(string.ascii_letters + string.digits + "!#$&'*+-/=^_`{|}~")


@dataclass(frozen=True, slots=True)
class External:
    """An address outside the gateway, shown and rendered exactly as it came."""

    address: str
    name: str = ""  # no display name of ours: the address says who it is

    # Routing reads these of any recipient: an outside one names no conversation.
    alias: None = None
    is_new: bool = False

    def native(self) -> str:
        return MAILTO + self.address

    def email(self, _domain: str) -> str:
        return self.address

    @property
    def domain(self) -> str:
        return self.address.rpartition("@")[2]


def is_mailto(text: str) -> bool:
    """Whether `text` is written as an outside address (RFC 3986 §3.1: a scheme is
    case-insensitive)."""
    return text.strip()[: len(MAILTO)].lower() == MAILTO


def _refuse(text: str, why: str) -> InvalidAddress:
    return InvalidAddress(f"invalid outside address {text!r}: {why}")


def _check_local(local: str, text: str) -> None:
    if not local:
        raise _refuse(text, "empty local part")
    if len(local) > MAX_LOCAL_LENGTH:
        raise _refuse(text, f"the local part is longer than {MAX_LOCAL_LENGTH} octets")
    if local.startswith('"'):
        raise _refuse(text, "quoted local parts are not sent")
    if local.startswith(".") or local.endswith(".") or ".." in local:
        raise _refuse(text, "a dot may not lead, end or double in the local part")
    bad = next((c for c in local if c != "." and c not in _ATEXT), None)
    if bad is not None:
        raise _refuse(text, f"character {bad!r} is not allowed in the local part")


def _check_domain(domain: str, text: str) -> None:
    if domain.startswith("["):
        raise _refuse(text, "address literals are not sent: give a domain name")
    if not domain or len(domain) > MAX_DOMAIN_LENGTH:
        raise _refuse(text, f"the domain must be 1-{MAX_DOMAIN_LENGTH} octets")
    labels = domain.split(".")
    if len(labels) < 2:
        raise _refuse(text, "the domain must be fully qualified (example.com, not example)")
    for label in labels:
        if not _LABEL_RE.fullmatch(label):
            raise _refuse(
                text,
                f"domain label {label!r} must be 1-63 of letters, digits and inner hyphens",
            )


def parse_mailbox(text: str) -> str:
    """An RFC 5321 mailbox outside (the rules are in the module docstring), canonical:
    the domain lower-cased."""
    if any(not c.isascii() for c in text):
        raise _refuse(
            text,
            "only ASCII addresses are sent; write an international domain in its"
            " A-label form (xn--...)",
        )
    if any(c.isspace() or not c.isprintable() for c in text):
        raise _refuse(text, "white space and control characters (CR, LF) are not allowed")
    local, at, domain = text.rpartition("@")
    if not at:
        raise _refuse(text, "no '@'")
    _check_local(local, text)
    _check_domain(domain, text)
    mailbox = f"{local}@{domain.lower()}"
    if len(mailbox) > MAX_MAILBOX_LENGTH:
        raise _refuse(text, f"the mailbox is longer than {MAX_MAILBOX_LENGTH} octets")
    return mailbox


def parse_mailto(text: str, domain: str) -> External:
    """`mailto:x@example.com` → the outside mailbox it names.

    A mailbox at the gateway's own domain is refused: it names one of ours, and is
    written without the scheme (`name@path` or `name+path@domain`).
    """
    inner = text.strip()
    if not is_mailto(inner):
        raise InvalidAddress(f"{text!r} is not a mailto: address")
    mailbox = parse_mailbox(inner[len(MAILTO) :])
    if mailbox.rpartition("@")[2] == domain.lower():
        raise _refuse(
            text,
            f"it is at this gateway's own domain {domain!r}:"
            " write it without mailto: (name@path or name+path@domain)",
        )
    return External(mailbox)


def parse_recipient(text: str, domain: str) -> Address | External:
    """A recipient as written in `to`/`cc`: `mailto:...` is outside, anything else ours."""
    if is_mailto(text):
        return parse_mailto(text, domain)
    return parse_address(text, domain)
