"""The pi bridge's words and its session map, without pi: what a human approves, what
the model reads back, what the turn answers, and the map across a restart."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridges.platforms.aliases import alias_of
from bridges.platforms.pi.dialogs import (
    action_of,
    answer_fields,
    final_text,
    question_text,
    refusal,
    restarted_note,
)
from bridges.platforms.pi.sessions import OpenPrompt, SessionMap
from bridges.platforms.pi.settings import PiSettings
from bridges.runtime.platform import Resume


@pytest.mark.parametrize(
    ("tool", "given", "action"),
    [
        ("bash", {"command": "touch done.txt", "timeout": 5}, "touch done.txt"),
        ("write", {"path": "a.txt", "content": "x"}, "write a.txt"),
        ("edit", {"path": "src/b.py", "edits": []}, "edit src/b.py"),
        ("deploy", {"b": 1, "a": "x"}, 'deploy {"a": "x", "b": 1}'),
        ("bash", "not an object", "bash {}"),
    ],
)
def test_the_action_a_human_approves(tool: str, given: object, action: str) -> None:
    assert action_of(tool, given) == action


def test_what_the_model_reads_about_a_refusal() -> None:
    note = Resume("r", "reject", "  not on a Friday ")
    assert refusal("rm x", note) == "The human rejected `rm x`. Their note: not on a Friday"
    assert refusal("rm x", Resume("r", "reject")) == "The human rejected `rm x`. Do not do it."
    expired = refusal("rm x", Resume("r", "expired"))
    assert expired == "The permission request for `rm x` expired without a decision. Do not do it."


def test_a_turn_run_again_is_told_the_decision() -> None:
    approved = restarted_note("permission", "make", Resume("r", "always allow"))
    assert approved.endswith("The human approved `make`: you may do it now.")
    answered = restarted_note("question", "Which colour?", Resume("r", "answer", "blue"))
    assert answered.endswith("You had asked: Which colour?\nThe human answered: blue")


def test_dialog_answers_and_questions() -> None:
    assert answer_fields("confirm", " Yes ") == {"confirmed": True}
    assert answer_fields("confirm", "no way") == {"confirmed": False}
    assert answer_fields("select", "blue") == {"value": "blue"}
    assert question_text({"title": "Deploy?", "message": "to prod"}) == "Deploy?\n\nto prod"
    assert question_text({"title": "Name?"}) == "Name?"


def test_the_final_answer_is_the_last_assistant_text() -> None:
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "task"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
        {"role": "assistant", "content": [{"type": "toolCall", "id": "c", "name": "bash"}]},
    ]
    assert final_text(messages) == "Done."
    failed = [{"role": "assistant", "content": [], "stopReason": "error", "errorMessage": "429"}]
    assert final_text(failed) == "pi stopped with an error: 429"
    assert final_text([]) == "(pi ended the turn without a final answer)"


def test_a_title_as_an_alias() -> None:
    assert alias_of("Fix the Login bug!") == "fix-the-login-bug"
    assert alias_of("排查登录问题") == "pai-cha-deng-lu-wen-ti"
    assert alias_of("New") is None
    assert alias_of("!!!") is None
    assert len(alias_of("word " * 40) or "") <= 64


def test_settings() -> None:
    default = PiSettings.from_environment({})
    assert (default.binary, default.gated, default.spare) == ("pi", ("bash", "edit", "write"), True)
    given = PiSettings.from_environment(
        {
            "AGENTMAIL_PI_GATED_TOOLS": "",
            "AGENTMAIL_PI_SPARE": "0",
            "AGENTMAIL_PI_ARGS": "--no-extensions --thinking 'low'",
        }
    )
    assert (given.gated, given.spare) == ((), False)
    assert given.arguments == ("--no-extensions", "--thinking", "low")


async def test_the_session_map_survives_a_restart(tmp_path: Path) -> None:
    sessions = await SessionMap.open(tmp_path)
    state = sessions.state("c1")
    state.file, state.title = "/s/one.jsonl", "fix-it"
    state.open = OpenPrompt("abc-1", "permission", "touch x")
    await sessions.save()
    again = await SessionMap.open(tmp_path)
    assert again.state("c1") == state
    assert again.files == tmp_path / "sessions"
    (tmp_path / "conversations.json").write_text("{not json")
    assert (await SessionMap.open(tmp_path)).states == {}  # unreadable: starts afresh
