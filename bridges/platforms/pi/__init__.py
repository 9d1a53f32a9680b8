"""The pi adapter: pi (pi-coding-agent) driven through its RPC mode, `pi --mode rpc`.

platform.py runs one pi process per conversation's turn; launcher.py starts it (with
spares.py's pi started ahead); rpc.py speaks pi's JSONL protocol; turn.py reads a
turn's events; extension/agentmail.ts is the pi extension that gates pi's tools (its
`tool_call` hook asking `ctx.ui.confirm`), registers the mail tools from the one
catalog and offers the `question` tool; dialogs.py says what each dialog means;
sessions.py maps conversations to pi session files; naming.py syncs the session
name and the alias.
docs/bridges.md ("pi") is the user's side of it.
"""

from bridges.platforms.pi.platform import PiPlatform, create

__all__ = ["PiPlatform", "create"]
