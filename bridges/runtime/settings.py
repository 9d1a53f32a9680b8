"""The bridge's settings, from the environment (documented in docs/bridges.md)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from bridges.client.client import DEFAULT_URL, URL_ENV


@dataclass(frozen=True, slots=True)
class BridgeSettings:
    url: str
    data_dir: Path
    workers: int
    turn_timeout: float
    heartbeat: float

    @classmethod
    def from_environment(cls, environ: Mapping[str, str]) -> BridgeSettings:
        data = environ.get("AGENTMAIL_BRIDGE_DATA_DIR", "").strip()
        return cls(
            url=environ.get(URL_ENV, DEFAULT_URL),
            data_dir=Path(data).expanduser() if data else Path.home() / ".agentmail" / "bridge",
            workers=max(1, int(environ.get("AGENTMAIL_BRIDGE_WORKERS", "3"))),
            turn_timeout=float(environ.get("AGENTMAIL_BRIDGE_TURN_TIMEOUT", "600")),
            heartbeat=max(0.1, float(environ.get("AGENTMAIL_BRIDGE_HEARTBEAT", "30"))),
        )
