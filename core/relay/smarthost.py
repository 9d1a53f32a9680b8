"""One delivery to the smarthost over SMTP (aiosmtplib), and what its reply means.

RFC 5321 §4.2.1: a `4yz` reply is transient (try again later), a `5yz` one permanent.
A network failure or a timeout is transient too, and so is a refused AUTH (`535`):
the fault is the gateway's settings, which an operator fixes, not the recipient's.
Timeouts follow RFC 5321 §4.5.3.2: 5 minutes for the greeting and each command, 10
for the reply to the end of DATA.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import aiosmtplib

from core.outbound.queue import Outcome
from core.outbound_settings import OutboundSettings

__all__ = ["COMMAND_TIMEOUT", "DATA_TIMEOUT", "Smarthost", "deliver"]

log = logging.getLogger(__name__)
COMMAND_TIMEOUT = 300.0  # RFC 5321 §4.5.3.2.1-6: the greeting, MAIL, RCPT, DATA
DATA_TIMEOUT = 600.0  # §4.5.3.2.6: the reply to the final "."


@dataclass(frozen=True, slots=True)
class Smarthost:
    host: str
    port: int
    tls: str  # starttls | implicit | none
    user: str
    password: str
    local_hostname: str  # our EHLO name: the mail domain

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
        )


async def deliver(
    host: Smarthost, envelope_sender: str, recipient: str, message: bytes
) -> tuple[Outcome, str]:
    """Hand one message for one recipient to the smarthost: the outcome and the reply."""
    client = aiosmtplib.SMTP(
        hostname=host.host,
        port=host.port,
        local_hostname=host.local_hostname,
        timeout=COMMAND_TIMEOUT,
        use_tls=host.tls == "implicit",
        start_tls=host.tls == "starttls",  # False, not None: `none` never tries STARTTLS
    )
    try:
        await client.connect()
        if host.user:
            await client.login(host.user, host.password)
        await client.mail(envelope_sender)
        await client.rcpt(recipient)
        reply = await client.data(message, timeout=DATA_TIMEOUT)
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
