"""Claude Code's session title as the conversation's alias, and the alias back as its title.

Claude Code names a session with a side request to its model (the "title" prompt:
a short noun phrase for what the session is about). It does so on its own only
with non-essential traffic allowed, which the bridge switches off; so after the
first turn of a session the bridge asks for the title itself, through the same
control request the TypeScript SDK's `generateSessionTitle` sends (claude-agent-sdk
0.2.184 has no method for it), with the task mail's subject and text as what to
name. The gateway then settles the alias (`POST /sessions/{id}/sync`: a taken
alias gets `-2`, a human's rename wins), and the settled alias is written back as
the session's title (`rename_session`, Claude Code's custom title), so the name a
human sees in the mail client is the name Claude Code lists (seeds: one name,
settled once, rather than two names that drift apart).
"""

from __future__ import annotations

import logging
from typing import Any

from claude_agent_sdk import ClaudeSDKClient, rename_session

from bridges.client import AgentClient
from bridges.platforms.aliases import alias_of

_log = logging.getLogger("agentmail.bridge.claude")
MAX_DESCRIPTION = 2000


async def generate_title(sdk: ClaudeSDKClient, description: str) -> str | None:
    """Claude Code's title for a session about `description`; None when it gave none."""
    query: Any = sdk._query  # the SDK's control channel: no public method sends this one
    response = await query._send_control_request(
        {
            "subtype": "generate_session_title",
            "description": description[:MAX_DESCRIPTION],
            "persist": True,
        },
        timeout=120.0,
    )
    title = response.get("title") if isinstance(response, dict) else None
    return " ".join(title.split())[:200] if isinstance(title, str) and title.strip() else None


async def sync_title(client: AgentClient, conversation: str, title: str) -> str | None:
    """Offer the title to the gateway; the alias it settled on (a human's, if renamed)."""
    settled = await client.sync_session(conversation, session_alias=alias_of(title), title=title)
    return settled.session_alias


def write_back(session_id: str, cwd: str, alias: str) -> None:
    """The settled alias as the Claude Code session's title (appended to its transcript)."""
    try:
        rename_session(session_id, alias, directory=cwd)
    except (OSError, ValueError) as error:
        _log.warning("cannot title Claude Code session %s %r: %s", session_id, alias, error)
