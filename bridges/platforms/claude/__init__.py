"""Claude Code as an AgentMail platform (claude-agent-sdk): `agentmail bridge claude`.

platform.py is the `Platform`; live.py one session at work; prompts.py and
decisions.py translate Claude Code's prompts and a human's decisions; options.py
starts Claude Code with the mail tools in-process; naming.py syncs its session
title with the conversation's alias; memory.py is what survives a restart;
settings.py the `AGENTMAIL_CLAUDE_*` settings. docs/bridges.md#claude-code.
"""

from bridges.platforms.claude.platform import ClaudePlatform, create

__all__ = ["ClaudePlatform", "create"]
