"""Which listeners expect HAProxy's PROXY protocol header from a trusted proxy, a part of
`Settings`; docs/deploy.md ("Behind nginx or Caddy") and docs/security.md explain it."""

from __future__ import annotations

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings

__all__ = ["PROXIED_LISTENERS", "ProxiedSettings"]

# The TCP listeners a stream proxy may stand in front of (HTTP has X-Forwarded-For).
PROXIED_LISTENERS = ("smtp", "smtps", "imap", "imaps", "mx")


class ProxiedSettings(BaseSettings):
    proxy_protocol: str = Field(
        "",
        description="Comma-separated listeners (smtp, smtps, imap, imaps, mx) whose "
        "connections from AGENTMAIL_TRUSTED_PROXIES start with a PROXY protocol header "
        "(v1 or v2) naming the client; empty = none.",
    )

    @field_validator("proxy_protocol")
    @classmethod
    def _listeners(cls, value: str) -> str:
        names = [item.strip().lower() for item in value.split(",") if item.strip()]
        unknown = [name for name in names if name not in PROXIED_LISTENERS]
        if unknown:
            raise ValueError(
                f"AGENTMAIL_PROXY_PROTOCOL names {', '.join(unknown)}: "
                f"the listeners are {', '.join(PROXIED_LISTENERS)}"
            )
        return ",".join(names)

    @property
    def proxy_protocol_listeners(self) -> frozenset[str]:
        return frozenset(name for name in self.proxy_protocol.split(",") if name)
