"""The settings of outbound mail (the smarthost, retries, limits), a part of `Settings`.

Kept apart so the settings' module stays one screenful; README.md documents each one,
docs/external-mail.md explains them together.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BeforeValidator, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings

from core.durations import parse_duration
from core.errors import InvalidRequest

__all__ = ["DIRECT", "OutboundSettings", "SmarthostTls"]

DIRECT = "direct"  # AGENTMAIL_SMARTHOST=direct: to each recipient domain's MX, no smarthost

SmarthostTls = Literal["starttls", "implicit", "none"]


def _duration(value: object) -> timedelta:
    if isinstance(value, timedelta):
        return value
    if not isinstance(value, str | int | float):
        raise ValueError("a duration is seconds or text like '30m'")
    try:
        return parse_duration(value)
    except InvalidRequest as error:
        raise ValueError(error.message) from None


Duration = Annotated[timedelta, BeforeValidator(_duration)]


class OutboundSettings(BaseSettings):
    dns_servers: str = Field(
        "",
        description="Name servers asked for the SPF, DKIM and DMARC records of mail from"
        " outside: `address[:port]`, comma-separated; empty = the system's resolver.",
    )
    smarthost: str = Field(
        "",
        description="host:port of the mail server that relays outbound mail (your provider's"
        " submission server); `direct`: no smarthost, each mail goes to its recipient"
        " domain's MX. Empty: no mail leaves the gateway.",
    )
    outbound_mx_port: int = Field(
        25,
        ge=1,
        le=65535,
        description="The port a direct delivery (AGENTMAIL_SMARTHOST=direct) connects to at"
        " each MX host: 25 (RFC 5321); another only for tests.",
    )
    smarthost_tls: SmarthostTls = Field(
        "starttls",
        description="TLS to the smarthost: `starttls` (port 587), `implicit` (port 465) or"
        " `none` (a relay on loopback only).",
    )
    smarthost_user: str = Field("", description="AUTH user at the smarthost; empty: no AUTH.")
    smarthost_password: SecretStr | None = Field(None, description="AUTH password.")
    smarthost_timeout_seconds: float = Field(
        300.0,
        gt=0,
        le=600,
        description="Wait for the smarthost's greeting and each reply (RFC 5321 §4.5.3.2: 5"
        " minutes); twice as long for the reply to the end of the message.",
    )
    outbound_give_up: Duration = Field(
        timedelta(days=5),
        description="How long a mail the smarthost keeps deferring is retried before its"
        " sender gets a notice (RFC 5321 §4.5.4.1: 4-5 days); `90m`, `5d`, ...",
    )
    outbound_retry_minimum: Duration = Field(
        timedelta(minutes=30),
        description="The first wait after a failed try; later ones double, up to 4 times it"
        " (RFC 5321 §4.5.4.1 asks at least 30 minutes; tests shorten it).",
    )
    outbound_per_sender_per_hour: int = Field(
        100, ge=1, description="Outside recipients one user or agent may reach an hour."
    )
    outbound_per_domain_per_hour: int = Field(
        300, ge=1, description="Mails to one recipient domain an hour, from everyone."
    )

    reply_mailbox: str = Field(
        "",
        description="`imaps://user@host[:port]/MAILBOX`: a mailbox at your provider that"
        " receives the domain's reply and bounce addresses, watched over IMAP (IDLE) for"
        " hosts that cannot receive on port 25; there only an aligned DKIM pass decides."
        " Empty: off.",
    )
    reply_mailbox_password: SecretStr | None = Field(None, description="Its IMAP password.")
    reply_mailbox_cafile: Path | None = Field(
        None, description="CA certificates to check its server by (PEM); unset: the system's."
    )
    reply_mailbox_poll_seconds: float = Field(
        60.0,
        gt=0,
        le=3600,
        description="How often it is searched when its server offers no IDLE, and the first"
        " wait after a failed connection (doubling, up to 15 minutes).",
    )

    @field_validator("smarthost")
    @classmethod
    def _host_port(cls, value: str) -> str:
        value = value.strip()
        if value.lower() == DIRECT:
            return DIRECT
        host, colon, port = value.rpartition(":")
        if value and (not colon or not host or not port.isdigit() or not 0 < int(port) < 65536):
            raise ValueError(
                "smarthost is host:port, e.g. smtp.example.com:587, or `direct` (to each MX)"
            )
        return value
