"""connect_to_server: check the link to the gateway and mend it.

The same function runs when the MCP server starts: a heartbeat says whether
the key works and is bound; a key not bound yet registers the agent (name and
workspaces from the configuration), after which the heartbeat is tried again.
"""

from __future__ import annotations

from bridges.client import GatewayError, KeyNotRegistered
from bridges.tools.definition import Json, MailTool, ToolContext, ToolError, schema
from bridges.tools.views import as_json


def _unknown_key(context: ToolContext, refusal: GatewayError) -> ToolError:
    key = context.client.key
    if key.source == "generated":
        return ToolError(
            f"this agent's key was generated just now ({key.path}); an admin registers it "
            f"by its SHA-256 (POST /api/v1/admin/agent-keys with key_sha256={key.sha256}), "
            "then call connect_to_server again"
        )
    return ToolError(
        f"the gateway refused the agent key ({refusal.message}): it is revoked, expired or "
        f"unknown (key_sha256={key.sha256}); an admin must issue or register one"
    )


async def ensure_connected(context: ToolContext) -> Json:
    """Heartbeat, registering first when the key is not bound to an agent yet."""
    try:
        beat = await context.client.heartbeat()
    except KeyNotRegistered as refusal:
        raise _unknown_key(context, refusal) from refusal
    except GatewayError as refusal:
        if refusal.status != 403:
            raise
        identity = context.identity
        if identity is None or not identity.workspaces:
            raise ToolError(
                f"{refusal.message}; set AGENTMAIL_AGENT_NAME and give --workspace NAME=PATH "
                "so the agent can register"
            ) from refusal
        await context.client.register(identity.name, identity.workspace_list(), identity.platform)
        beat = await context.client.heartbeat()
    shown = as_json(beat)
    return {
        "gateway": context.client.base_url,
        "status": "connected",
        "agent_status": shown.get("agent_status"),
        "pending_mails": beat.pending_mails,
        "sessions": shown["sessions"],
    }


async def _connect(context: ToolContext, arguments: Json) -> Json:
    return await ensure_connected(context)


connect_to_server = MailTool(
    name="connect_to_server",
    description=(
        "Check the connection to the mail gateway and restore it: re-registers this agent if "
        "the gateway forgot it, and reports how many unread mails wait for you and in which "
        "conversations (with their remaining budgets). Call it when another mail tool says "
        "the gateway cannot be reached or the agent is not registered."
    ),
    input_schema=schema([]),
    run=_connect,
)
