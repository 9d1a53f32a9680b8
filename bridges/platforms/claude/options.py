"""How the bridge starts a Claude Code session: `ClaudeAgentOptions` for one turn.

The mail tools are served in-process, through the SDK's in-process MCP transport,
by the very server `agentmail mcp` runs (bridges/mcp/server.py, rendered from the
one catalog in bridges/tools): claude-agent-sdk accepts any `mcp.server.Server` as
an SDK server, so the catalog's JSON schemas reach Claude Code unchanged, and the
tools act with the bridge's own client (no key in Claude Code's environment, no
second process). The model sees them as `mcp__agentmail__<tool>`; they are allowed
without a prompt (they act as the agent, within its workspaces), while Claude
Code's own tools keep its permission rules, whose prompts the bridge forwards.
`request_permission` is left out: that is what the bridge does for Claude Code.
"""

from __future__ import annotations

import logging
import warnings
from typing import cast

from claude_agent_sdk import (
    CanUseTool,
    CanUseToolShadowedWarning,
    ClaudeAgentOptions,
    HookCallback,
    HookMatcher,
    McpSdkServerConfig,
)

from bridges.mcp.server import ADDRESSING, build_server
from bridges.platforms.claude.settings import ClaudeSettings
from bridges.tools.catalog import TOOLS
from bridges.tools.definition import ToolContext

SERVER = "agentmail"
BRIDGED_TOOLS = tuple(tool for tool in TOOLS if tool.name != "request_permission")
MAIL_NOTE = """
# Working by mail
You work for humans through AgentMail: each task arrives as a short notice of a mail,
which you read with the mail tools (`mcp__agentmail__read_mail`). Your final answer of the
turn is mailed back to the sender as the reply, so write it for them. When an action needs
permission, just use the tool: the human is asked by mail and decides. When you need the
human's input to go on, ask with AskUserQuestion: the question goes out by mail and their
reply comes back as the answer."""

_log = logging.getLogger("agentmail.bridge.claude.cli")
# The SDK warns that allowing `mcp__agentmail` keeps those calls from can_use_tool: that is
# the point (the mail tools act as the agent, within its workspaces), not a mistake.
warnings.filterwarnings("ignore", category=CanUseToolShadowedWarning)


def mail_tools(context: ToolContext) -> McpSdkServerConfig:
    server = build_server(context, tools=BRIDGED_TOOLS, instructions=ADDRESSING)
    # `alwaysLoad`: Claude Code otherwise defers an MCP server's tools behind its
    # ToolSearch tool (their schemas not sent until searched for), and a mail agent
    # needs read_mail on its first step. The SDK passes the config's keys through.
    config = {"type": "sdk", "name": SERVER, "instance": server, "alwaysLoad": True}
    return cast(McpSdkServerConfig, config)


def options_for(
    settings: ClaudeSettings,
    *,
    cwd: str,
    resume: str | None,
    can_use_tool: CanUseTool,
    after_tool: HookCallback,
    tools: McpSdkServerConfig,
    cli_path: str | None,
) -> ClaudeAgentOptions:
    return ClaudeAgentOptions(
        cwd=cwd,
        resume=resume,
        can_use_tool=can_use_tool,
        hooks={"PostToolUse": [HookMatcher(hooks=[after_tool])]},
        mcp_servers={SERVER: tools},
        allowed_tools=[f"mcp__{SERVER}"],
        system_prompt={"type": "preset", "preset": "claude_code", "append": MAIL_NOTE},
        model=settings.model,
        cli_path=cli_path,
        setting_sources=settings.setting_sources,
        permission_mode=settings.permission_mode,
        env=settings.environment,
        stderr=lambda line: _log.info("%s", line),
    )
