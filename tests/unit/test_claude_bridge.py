"""The Claude Code bridge's translations, without Claude Code: what a prompt asks for, what
a decision taken while the bridge was down says and presets, the settings and the
environment Claude Code runs in, and what is remembered across a restart.
(The platform itself runs in tests/platforms/test_claude.py.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from claude_agent_sdk import PermissionResultAllow, PermissionResultDeny

from bridges.platforms.claude.decisions import after_restart, permission_result
from bridges.platforms.claude.memory import Memory, PromptRecord, SessionRecord
from bridges.platforms.claude.prompts import action_of, answered, question_of, questions_of
from bridges.platforms.claude.settings import ClaudeSettings
from bridges.runtime.platform import ANSWER, Resume


def test_the_action_is_the_command_or_the_whole_call() -> None:
    assert action_of("Bash", {"command": "touch a b", "description": "x"}) == "touch a b"
    write = action_of("Write", {"file_path": "/w/a.txt", "content": "hi"})
    assert write == 'Write {"content": "hi", "file_path": "/w/a.txt"}'
    assert question_of("Bash", {"command": "npm  test", "description": "x"}, "Run it?") == (
        'run "npm test"?'
    )
    assert question_of("Write", {"description": "Make a"}, None) == "use Write (Make a)?"
    assert question_of("Bash", {}, "Claude wants to  run\nls") == "Claude wants to run ls"
    assert len(question_of("Bash", {}, "x" * 5000)) == 900


def test_each_question_of_a_call_with_its_choices() -> None:
    arguments = {
        "questions": [
            {
                "question": "Which colour?",
                "header": "Colour",
                "options": [{"label": "red", "description": "warm"}, {"label": "blue"}],
                "multiSelect": True,
            },
            {"question": "Why?", "options": []},
            {"header": "no question"},
        ]
    }
    first, second = questions_of(arguments)
    assert first.text == "Which colour?" and first.options == ["red", "blue"]
    assert "- red: warm" in first.body and "More than one" in first.body
    assert (second.text, second.body, second.options) == ("Why?", "Why?", [])
    filled = answered(arguments, {"Which colour?": "red", "Why?": "because"})
    assert filled["answers"] == {"Which colour?": "red", "Why?": "because"}
    assert filled["questions"] == arguments["questions"]


def test_a_decision_live_allows_or_denies_with_the_note() -> None:
    assert isinstance(permission_result(Resume("r", "approve")), PermissionResultAllow)
    assert isinstance(permission_result(Resume("r", "always allow")), PermissionResultAllow)
    denied = permission_result(Resume("r", "reject", "not today"))
    assert isinstance(denied, PermissionResultDeny) and not denied.interrupt
    assert "rejected" in denied.message and '"not today"' in denied.message
    expired = permission_result(Resume("r", "expired"))
    assert isinstance(expired, PermissionResultDeny) and "expired" in expired.message


def test_a_decision_after_a_restart_in_words_and_presets() -> None:
    asked = PromptRecord("r", "c", "ask", "touch a")
    words, presets = after_restart(Resume("r", "approve", "go"), asked)
    assert "approved `touch a`" in words and '"go"' in words and "restarted" in words
    assert isinstance(presets.actions["touch a"], PermissionResultAllow)
    words, presets = after_restart(Resume("r", "reject", "no"), asked)
    assert "rejected" in words and isinstance(presets.actions["touch a"], PermissionResultDeny)
    question = PromptRecord("q", "c", "question", "Which colour?")
    words, presets = after_restart(Resume("q", ANSWER, "blue"), question)
    assert presets.answers == {"Which colour?": "blue"} and '"blue"' in words
    words, presets = after_restart(Resume("x", "approve"), None)
    assert "approve" in words and not presets.actions and not presets.answers


def test_settings_and_the_environment_of_claude_code() -> None:
    settings = ClaudeSettings.from_environment(
        {
            "AGENTMAIL_CLAUDE_MODEL": "claude-x",
            "AGENTMAIL_CLAUDE_SETTING_SOURCES": "project, local",
            "DISABLE_TELEMETRY": "0",
            "AGENTMAIL_AGENT_KEY": "amk_secret",
        }
    )
    assert settings.model == "claude-x" and settings.setting_sources == ["project", "local"]
    assert settings.permission_mode == "default" and settings.titles and not settings.cli_path
    environment = settings.environment
    assert environment["AGENTMAIL_AGENT_KEY"] == "" and environment["AGENTMAIL_ENROLMENT_KEY"] == ""
    assert environment["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] == "1"
    assert "DISABLE_TELEMETRY" not in environment  # the user's own setting stands
    assert ClaudeSettings.from_environment({}).setting_sources is None
    assert (
        ClaudeSettings.from_environment({"AGENTMAIL_CLAUDE_SETTING_SOURCES": ""}).setting_sources
        == []
    )
    with pytest.raises(ValueError, match="PERMISSION_MODE"):
        ClaudeSettings.from_environment({"AGENTMAIL_CLAUDE_PERMISSION_MODE": "bypassPermissions"})
    with pytest.raises(ValueError, match="unknown global"):
        ClaudeSettings.from_environment({"AGENTMAIL_CLAUDE_SETTING_SOURCES": "global"})


async def test_memory_survives_a_reopen_and_forgets_answered_prompts(tmp_path: Path) -> None:
    memory = await Memory.open(tmp_path)
    await memory.remember_session(SessionRecord("c1", "s1", "/w"))
    await memory.remember_session(SessionRecord("c1", "s1", "/w", "the-alias"))
    await memory.remember_prompt(PromptRecord("p1", "c1", "ask", "touch a"))
    await memory.remember_prompt(PromptRecord("p2", "c1", "question", "Why?"))
    await memory.forget_prompt("p1")
    with (tmp_path / "claude.jsonl").open("a") as journal:
        journal.write('{"type": "session", "conversation"')  # a crash mid-write
    again = await Memory.open(tmp_path)
    assert again.session("c1") == SessionRecord("c1", "s1", "/w", "the-alias")
    assert again.prompt("p1") is None and again.prompt("p2") is not None
    await again.compact()
    lines = (tmp_path / "claude.jsonl").read_text().splitlines()
    assert len(lines) == 2
    assert (await Memory.open(tmp_path)).session("c1") == again.session("c1")


def test_every_claude_setting_is_documented() -> None:
    root = Path(__file__).resolve().parents[2]
    source = (root / "bridges/platforms/claude/settings.py").read_text(encoding="utf-8")
    names = set(re.findall(r"AGENTMAIL_CLAUDE_[A-Z_]+", source))
    documented = (root / "docs/bridges.md").read_text(encoding="utf-8")
    assert len(names) >= 5
    assert [name for name in sorted(names) if f"`{name}`" not in documented] == []
