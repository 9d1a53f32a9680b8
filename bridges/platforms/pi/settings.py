"""The pi bridge's settings, from the environment (docs/bridges.md, "pi")."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass

# What pi's own tools may do only with a human's permission: the shell and file changes.
# read, grep, find and ls only look; the mail tools act as the agent through the gateway,
# which has its own rules (budgets, addressing).
DEFAULT_GATED = ("bash", "edit", "write")
_OFF = ("0", "false", "no", "off")


@dataclass(frozen=True, slots=True)
class PiSettings:
    binary: str  # the `pi` command
    provider: str | None  # --provider, else pi's settings decide
    model: str | None  # --model, else pi's settings decide
    gated: tuple[str, ...]  # tools that ask permission
    arguments: tuple[str, ...]  # more arguments for pi (e.g. --no-extensions)
    spare: bool  # keep a pi started ahead in each workspace (spares.py)

    @classmethod
    def from_environment(cls, environ: Mapping[str, str]) -> PiSettings:
        gated = environ.get("AGENTMAIL_PI_GATED_TOOLS")
        return cls(
            binary=environ.get("AGENTMAIL_PI_BINARY", "").strip() or "pi",
            provider=environ.get("AGENTMAIL_PI_PROVIDER", "").strip() or None,
            model=environ.get("AGENTMAIL_PI_MODEL", "").strip() or None,
            gated=DEFAULT_GATED
            if gated is None
            else tuple(name.strip() for name in gated.split(",") if name.strip()),
            arguments=tuple(shlex.split(environ.get("AGENTMAIL_PI_ARGS", ""))),
            spare=environ.get("AGENTMAIL_PI_SPARE", "1").strip().lower() not in _OFF,
        )
