"""The envelope of outbound mail: a bounce address per job, so a bounce names its job.

Each job is sent `MAIL FROM:<postmaster+<envelope id>@<domain>>` (a VERP address: the
bounce of one job comes back to an address of its own), and, where the server offers
DSN, with `ENVID=<envelope id>` (RFC 3461 §4.4, echoed in the report's
`Original-Envelope-Id`). The envelope id is `<mail id>.<job id>`: the mail id is a
random UUID, so an id cannot be guessed by whoever did not receive the mail, and the
job id picks the one recipient. `postmaster` is a reserved name (core/address): no
user or agent has the address, and RFC 5321 §4.5.1 has it take mail from anyone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.address import POSTMASTER

__all__ = ["EnvelopeId", "bounce_address", "envelope_id_in_address", "parse_envelope_id"]

# xtext-safe (RFC 3461 §4) and a dot-atom local part (RFC 5321 §4.1.2).
_ID = re.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.([0-9]{1,16})")


@dataclass(frozen=True, slots=True)
class EnvelopeId:
    mail_id: str
    job_id: int

    def __str__(self) -> str:
        return f"{self.mail_id}.{self.job_id}"


def bounce_address(envelope_id: EnvelopeId, domain: str) -> str:
    """The MAIL FROM of a job: 11 + 36 + 1 + at most 16 digits = 64 octets before `@`,
    the most RFC 5321 §4.5.3.1.1 allows."""
    return f"{POSTMASTER}+{envelope_id}@{domain}"


def parse_envelope_id(text: str) -> EnvelopeId | None:
    match = _ID.fullmatch(text.strip().lower())
    return EnvelopeId(match[1], int(match[2])) if match else None


def envelope_id_in_address(address: str, domain: str) -> EnvelopeId | None:
    """The envelope id of a bounce address of ours (an RCPT TO of the MX listener), else
    None."""
    local, at, host = address.strip().strip("<>").rpartition("@")
    if not at or host.lower().rstrip(".") != domain.lower():
        return None
    name, plus, tag = local.partition("+")
    if not plus or name.lower() != POSTMASTER:
        return None
    return parse_envelope_id(tag)
