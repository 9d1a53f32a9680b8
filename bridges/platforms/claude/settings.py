"""The Claude Code bridge's settings (`AGENTMAIL_CLAUDE_*`, docs/bridges.md) and the
environment its Claude Code processes run in.

The provider is Claude Code's own business and passes through untouched
(`ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`, `CLAUDE_CONFIG_DIR`, …). What the bridge
adds: no telemetry, no error reports, no auto-update, no non-essential traffic,
unless the environment says otherwise; and the agent's own AgentMail secrets are
blanked, because the model runs shell commands in that environment and a mail must
not be able to ask for `echo $AGENTMAIL_AGENT_KEY` (the mail tools run in the
bridge's process and need no key in Claude Code's).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, cast

SettingSource = Literal["user", "project", "local"]
PermissionMode = Literal["default", "acceptEdits", "plan"]

QUIET = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "DISABLE_AUTOUPDATER": "1",
}
SECRETS = ("AGENTMAIL_AGENT_KEY", "AGENTMAIL_ENROLMENT_KEY")
_SOURCES: tuple[SettingSource, ...] = ("user", "project", "local")
_MODES: tuple[PermissionMode, ...] = ("default", "acceptEdits", "plan")


@dataclass(frozen=True, slots=True)
class ClaudeSettings:
    model: str | None  # None: Claude Code's default model
    cli_path: str | None  # None: the CLI bundled with claude-agent-sdk
    setting_sources: list[SettingSource] | None  # None: all, as `claude` itself loads them
    permission_mode: PermissionMode
    titles: bool  # ask Claude Code for a session title and sync it as the alias
    environment: dict[str, str]  # set for Claude Code's processes

    @classmethod
    def from_environment(cls, environ: Mapping[str, str]) -> ClaudeSettings:
        sources = environ.get("AGENTMAIL_CLAUDE_SETTING_SOURCES")
        mode = environ.get("AGENTMAIL_CLAUDE_PERMISSION_MODE", "default").strip()
        if mode not in _MODES:
            raise ValueError(
                f"AGENTMAIL_CLAUDE_PERMISSION_MODE={mode!r}: one of {', '.join(_MODES)} "
                "(a mode that asks nothing would leave nothing to forward)"
            )
        return cls(
            model=environ.get("AGENTMAIL_CLAUDE_MODEL", "").strip() or None,
            cli_path=environ.get("AGENTMAIL_CLAUDE_CLI", "").strip() or None,
            setting_sources=None if sources is None else _sources(sources),
            permission_mode=mode,
            titles=environ.get("AGENTMAIL_CLAUDE_TITLES", "1").strip() not in ("0", "false", ""),
            environment=process_environment(environ),
        )


def process_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """What Claude Code's processes get on top of the bridge's environment."""
    quiet = {name: value for name, value in QUIET.items() if name not in environ}
    return {**quiet, **{name: "" for name in SECRETS}}


def _sources(text: str) -> list[SettingSource]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in _SOURCES]
    if unknown:
        raise ValueError(
            f"AGENTMAIL_CLAUDE_SETTING_SOURCES: unknown {', '.join(unknown)} "
            f"(a comma-separated list of {', '.join(_SOURCES)}, or empty for none)"
        )
    return [cast(SettingSource, name) for name in names]
