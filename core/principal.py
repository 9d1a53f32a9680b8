"""Who is calling: a human (user) or an agent, as established by core.identity.keys."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True, slots=True)
class Principal:
    kind: Literal["human", "agent"]
    # Lower-case name; for an agent key not yet bound to an agent, "".
    name: str
    key_id: str | None = None
    key_lifecycle: str | None = None
    is_admin: bool = False
    # How a human came in: "login" (web cookie) or "key" (user key).
    via: Literal["login", "key", "password"] = "key"
    # For `via="password"`: a digest of the password hash it matched, so a session it
    # opened can tell when the password has changed since (core/identity/signed_in.py).
    password_stamp: str | None = None

    @property
    def is_human(self) -> bool:
        return self.kind == "human"

    @property
    def is_agent(self) -> bool:
        return self.kind == "agent"

    @property
    def is_enrolment_key(self) -> bool:
        return self.kind == "agent" and self.key_lifecycle == "one_time"
