"""External participants: people outside the gateway who appear in imported mail.

An archive (mbox, Maildir, IMAP) names addresses at other domains. They are kept
as they are, never made users or agents, and stored so they can never collide
with a name:

* in `from_name`/`to_name`: the empty string (a name has 1-64 characters), with the
  address itself (`bob@example.com`) in `from_path`/`to_path`;
* in a mail's `cc` list and in the native fields of views: `mailto:bob@example.com`
  (RFC 6068), the form core/address/mailto.py parses. `:` never occurs in a name, so it is
  never read as one of ours; sending to it is outbound mail (core/outbound/).

External participants get no delivery and no participant row: nobody logs in as them.
The same holds for the outside recipients of a mail sent from here.
"""

from __future__ import annotations

from typing import Final

from sqlalchemy.orm import Session

from core.address import Address, parse_native, party_address
from core.address.mailto import MAILTO, External
from core.identity.endpoints import Endpoint, resolve_endpoint

__all__ = [
    "EXTERNAL_NAME",
    "MAILTO",
    "External",
    "Party",
    "cc_party",
    "external_endpoint",
    "is_external",
    "is_external_cc",
    "resolve_party",
    "stored_cc",
    "stored_party",
]

EXTERNAL_NAME: Final = ""

Party = Address | External


def external_endpoint(address: str) -> Endpoint:
    return Endpoint(EXTERNAL_NAME, address, None)


def is_external(endpoint: Endpoint) -> bool:
    return endpoint.name == EXTERNAL_NAME


def resolve_party(session: Session, party: Party) -> Endpoint:
    """The endpoint of a send's recipient: ours resolved, an outside one as it is."""
    if isinstance(party, External):
        return external_endpoint(party.address)
    return resolve_endpoint(session, party)


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
