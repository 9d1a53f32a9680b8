"""A scripted fake model for the platform tests: real agent platforms talk to it as to
a model provider (OpenAI chat completions or Anthropic Messages), a test's script
decides each reply. No network, no real model. See server.py and script.py."""

from tests.support.fake_model.script import (
    Exchange,
    Message,
    Reply,
    Script,
    ToolCall,
    ToolResult,
    call,
    say,
    steps,
)
from tests.support.fake_model.server import FakeModel, fake_model

__all__ = [
    "Exchange",
    "FakeModel",
    "Message",
    "Reply",
    "Script",
    "ToolCall",
    "ToolResult",
    "call",
    "fake_model",
    "say",
    "steps",
]
