"""External participants: people outside the gateway who appear in imported mail.

An archive (mbox, Maildir, IMAP) names addresses at other domains. They are kept
as they are, never made users or agents, and stored so they can never collide
with a name:

* in `from_name`/`to_name`: the empty string (a name has 1-64 characters), with the
  address itself (`bob@example.com`) in `from_path`/`to_path`;
* in a mail's `cc` list and in the native fields of views: `mailto:bob@example.com`
  (RFC 6068). `:` never occurs in a name, so the one parser refuses it as an
  address: replying to it is a clear error, never a delivery to someone else.

External participants get no delivery and no participant row: nobody logs in as them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from core.address import Address, parse_native, party_address
from core.identity.endpoints import Endpoint

__all__ = [
    "EXTERNAL_NAME",
    "MAILTO",
    "External",
    "Party",
    "cc_party",
    "external_endpoint",
    "is_external_cc",
    "stored_cc",
    "stored_party",
]

EXTERNAL_NAME: Final = ""
MAILTO: Final = "mailto:"


@dataclass(frozen=True, slots=True)
class External:
    """An address outside the gateway, shown and rendered exactly as it came."""

    address: str
    name: str = ""  # no display name of ours: the address says who it is

    def native(self) -> str:
        return MAILTO + self.address

    def email(self, _domain: str) -> str:
        return self.address


Party = Address | External


def external_endpoint(address: str) -> Endpoint:
    return Endpoint(EXTERNAL_NAME, address, None)


def is_external_cc(text: str) -> bool:
    return text.startswith(MAILTO)


def stored_cc(endpoint: Endpoint) -> str:
    """How an endpoint is written in a mail's `cc` list."""
    if endpoint.name == EXTERNAL_NAME:
        return MAILTO + endpoint.workspace
    return endpoint.address().native()


def stored_party(name: str, path: str, alias: str | None) -> Party:
    """The sender or `to` of a stored mail (with the conversation's alias when internal)."""
    if name == EXTERNAL_NAME:
        return External(path)
    return party_address(name, path, alias)


def cc_party(text: str, alias: str | None) -> Party:
    """One entry of a stored mail's `cc` list."""
    if is_external_cc(text):
        return External(text[len(MAILTO) :])
    return parse_native(text).with_session(alias)
