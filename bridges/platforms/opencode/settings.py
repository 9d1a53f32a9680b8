"""The opencode platform's settings, from the bridge's environment (docs/bridges.md#opencode).

The provider, its key and the model list are opencode's own business (its config
files, `opencode auth login`): the bridge only says which model to use, if not the
configured default, and which binary to run.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass

PREFIX = "AGENTMAIL_OPENCODE_"


@dataclass(frozen=True, slots=True)
class OpencodeSettings:
    binary: str  # the `opencode` executable
    model: str | None  # "provider/model", else opencode's configured default
    agent: str | None  # opencode's agent for the turns (its default is `build`)
    password: str  # HTTP basic auth of `opencode serve`: nobody else drives its tools
    port: int  # 0 = opencode picks one
    start_timeout: float

    @classmethod
    def from_environment(cls, environ: Mapping[str, str]) -> OpencodeSettings:
        def value(name: str) -> str:
            return environ.get(PREFIX + name, "").strip()

        model = value("MODEL")
        if model and "/" not in model:
            raise ValueError(f"{PREFIX}MODEL={model!r}: expected provider/model")
        return cls(
            binary=value("BIN") or "opencode",
            model=model or None,
            agent=value("AGENT") or None,
            password=value("PASSWORD") or secrets.token_urlsafe(24),
            port=int(value("PORT") or "0"),
            start_timeout=float(value("START_TIMEOUT") or "60"),
        )

    @property
    def model_ref(self) -> dict[str, str] | None:
        """The model as `prompt_async` takes it."""
        if self.model is None:
            return None
        provider, _, model = self.model.partition("/")
        return {"providerID": provider, "modelID": model}
