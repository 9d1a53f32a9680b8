"""The opencode configuration the bridge adds to the user's own (`OPENCODE_CONFIG`).

opencode merges it over the global config and under a project's `opencode.json`
and `OPENCODE_PERMISSION`, so a workspace can still loosen or tighten its rules.
What it says:

* the mail tools as a local MCP server, `agentmail mcp` of this very installation,
  so the one catalog (bridges/tools) serves opencode as it serves every MCP client;
  the agent key is in this file's MCP entry, never in opencode's own environment,
  which the model's shell commands inherit;
* `bash`, `edit` and `webfetch` ask: the prompts the bridge turns into
  permission-request mails (opencode's own permission mechanism, never a tool the
  model must remember to call);
* no self-update in the middle of someone's task, and no share links for mail.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from bridges.platforms.opencode.settings import OpencodeSettings
from bridges.runtime.platform import PlatformContext

MCP_NAME = "agentmail"  # opencode names its tools agentmail_<tool>
ASKING = ("bash", "edit", "webfetch")
# Settings of the bridge's own environment that opencode (and so the model's shell)
# must not inherit: the key acts as the agent.
SECRET_ENV = ("AGENTMAIL_AGENT_KEY", "AGENTMAIL_ENROLMENT_KEY", "AGENTMAIL_OPENCODE_PASSWORD")


def bridge_config(context: PlatformContext, settings: OpencodeSettings) -> dict[str, Any]:
    workspaces = [
        arg for name, path in context.workspaces for arg in ("--workspace", f"{name}={path}")
    ]
    config: dict[str, Any] = {
        "$schema": "https://opencode.ai/config.json",
        "autoupdate": False,
        "share": "disabled",
        "permission": {name: "ask" for name in ASKING},
        "mcp": {
            MCP_NAME: {
                "type": "local",
                "command": [
                    sys.executable,
                    "-m",
                    "gateway",
                    "mcp",
                    "--platform",
                    "opencode",
                    *workspaces,
                ],
                "environment": {"AGENTMAIL_URL": context.url, "AGENTMAIL_AGENT_KEY": context.key},
                "enabled": True,
            }
        },
    }
    if settings.model is not None:
        config["model"] = settings.model
    return config


def write_config(path: Path, config: dict[str, Any]) -> None:
    """Mode 0600 from the start: it holds the agent key."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as stream:
        json.dump(config, stream, indent=1)
    os.replace(temporary, path)
