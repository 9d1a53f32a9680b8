"""One delivery to the smarthost over SMTP (aiosmtplib), and what its reply means.

RFC 5321 §4.2.1: a `4yz` reply is transient (try again later), a `5yz` one permanent.
A network failure or a timeout is transient too, and so is a refused AUTH (`535`):
the fault is the gateway's settings, which an operator fixes, not the recipient's.
Timeouts follow RFC 5321 §4.5.3.2: 5 minutes for the greeting and each command, 10
for the reply to the end of DATA (`AGENTMAIL_SMARTHOST_TIMEOUT_SECONDS` and twice it),
and one delivery as a whole is cut at `deadline`: a job's lease outlasts it, so no
other replica takes a job while it is being delivered, and a replica killed mid-job
leaves it to the others soon after.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from datetime import timedelta

import aiosmtplib

from core.outbound.queue import Outcome
from core.settings.outbound import OutboundSettings

__all__ = ["Smarthost", "deliver"]

log = logging.getLogger(__name__)
# Replies a delivery waits for: greeting, EHLO, STARTTLS, EHLO, AUTH, MAIL, RCPT, DATA.
_COMMANDS = 8


@dataclass(frozen=True, slots=True)
class Smarthost:
    host: str
    port: int
    tls: str  # starttls | implicit | none | opportunistic (an MX: STARTTLS when offered)
    user: str
    password: str
    local_hostname: str  # our EHLO name: the mail domain
    timeout: float  # each reply; twice this for the end of DATA

    @property
    def deadline(self) -> float:
        """The longest one delivery may take."""
        return self.timeout * (_COMMANDS + 2)

    @property
    def lease(self) -> timedelta:
        """A job's claim: the deadline and a margin for rendering and settling."""
        return timedelta(seconds=self.deadline * 1.25 + 5)

    @classmethod
    def from_settings(cls, settings: OutboundSettings, domain: str) -> Smarthost:
        host, _, port = settings.smarthost.rpartition(":")
        password = settings.smarthost_password
        return cls(
            host.strip("[]"),
            int(port),
            settings.smarthost_tls,
            settings.smarthost_user,
            password.get_secret_value() if password is not None else "",
            domain,
            settings.smarthost_timeout_seconds,
        )


def _client(host: Smarthost) -> aiosmtplib.SMTP:
    if host.tls == "opportunistic":
        # An MX (RFC 3207, RFC 7435): STARTTLS when the server offers it, its
        # certificate unchecked (no MX name is authenticated without DANE or MTA-STS).
        start_tls: bool | None = None
    else:
        start_tls = host.tls == "starttls"  # False, not None: `none` never tries STARTTLS
    return aiosmtplib.SMTP(
        hostname=host.host,
        port=host.port,
        local_hostname=host.local_hostname,
        timeout=host.timeout,
        use_tls=host.tls == "implicit",
        start_tls=start_tls,
        validate_certs=host.tls != "opportunistic",
    )


async def deliver(
    host: Smarthost, envelope_sender: str, recipient: str, message: bytes, envelope_id: str = ""
) -> tuple[Outcome, str]:
    """Hand one message for one recipient to the smarthost: the outcome and the reply.
    `envelope_id` goes as the ENVID of RFC 3461 where the server offers DSN, so its
    bounce names the job."""
    client = _client(host)
    try:
        async with asyncio.timeout(host.deadline):
            await client.connect()
            if host.user:
                await client.login(host.user, host.password)
            dsn = envelope_id and client.supports_extension("dsn")
            await client.mail(envelope_sender, options=[f"ENVID={envelope_id}"] if dsn else None)
            await client.rcpt(recipient)
            reply = await client.data(message, timeout=host.timeout * 2)
    except aiosmtplib.SMTPAuthenticationError as error:
        log.warning("smarthost refused AUTH: %s %s", error.code, error.message)
        return "retry", f"{error.code} {error.message} (the smarthost refused our login)"
    except aiosmtplib.SMTPResponseException as error:
        outcome: Outcome = "refused" if 500 <= error.code < 600 else "retry"
        return outcome, f"{error.code} {error.message}"
    except (aiosmtplib.SMTPException, OSError, TimeoutError) as error:
        return "retry", f"{type(error).__name__}: {error}"
    finally:
        if client.is_connected:
            try:
                await client.quit()
            except (aiosmtplib.SMTPException, OSError, TimeoutError):
                client.close()
    return "sent", f"{reply.code} {reply.message}"
