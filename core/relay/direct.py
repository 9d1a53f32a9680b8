"""Direct delivery (`AGENTMAIL_SMARTHOST=direct`): each mail to its recipient domain's
MX hosts (core/relay/mx.py), no smarthost in between.

RFC 5321 §5.1 and §4.2.1: the addresses are tried in order; a `4yz` reply, a refused or
timed-out connection moves on to the next one, and when none took the mail the job is
tried again later (the queue's schedule, as for a smarthost). A `5yz` reply from any of
them is final, as is a domain with a null MX (RFC 7505) or none at all. TLS is
opportunistic (RFC 3207, RFC 7435): STARTTLS when offered, else plain text; no AUTH.
The port is `AGENTMAIL_OUTBOUND_MX_PORT` (25; tests use another).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace

import dns.resolver

from core.outbound.queue import Outcome
from core.relay.mx import LookupTrouble, Undeliverable, mail_exchangers
from core.relay.smarthost import Smarthost, deliver

__all__ = ["DirectDelivery"]


@dataclass(frozen=True, slots=True)
class DirectDelivery:
    resolver: dns.resolver.Resolver
    template: Smarthost  # port, EHLO name, timeouts; host and TLS set per MX

    @property
    def deadline(self) -> float:
        """The longest one delivery may take, over all its MX hosts."""
        return self.template.deadline

    async def deliver(
        self, envelope_sender: str, recipient: str, message: bytes, envelope_id: str = ""
    ) -> tuple[Outcome, str]:
        domain = recipient.rpartition("@")[2]
        try:
            exchanges = await asyncio.to_thread(mail_exchangers, self.resolver, domain)
        except Undeliverable as error:
            return "refused", str(error)
        except LookupTrouble as error:
            return "retry", str(error)
        tried: list[str] = []
        try:
            async with asyncio.timeout(self.deadline):
                for exchange in exchanges:
                    host = replace(self.template, host=exchange.address, tls="opportunistic")
                    outcome, reply = await deliver(
                        host, envelope_sender, recipient, message, envelope_id
                    )
                    where = f"{exchange.host} [{exchange.address}]"
                    if outcome != "retry":
                        return outcome, f"{reply} (from {where})"
                    tried.append(f"{where}: {reply}")
        except TimeoutError:
            tried.append(f"no MX host took it within {self.deadline:.0f} s")
        return "retry", "; ".join(tried)
