"""The subject lines of a bridge's mails (bridges/runtime/subjects.py)."""

from __future__ import annotations

from bridges.platforms.opencode.prompts import question_of as opencode_question
from bridges.platforms.pi.dialogs import question_for as pi_question
from bridges.runtime.subjects import (
    MAX_SUBJECT,
    permission_subject,
    question_subject,
    reply_subject,
    run_question,
)


def test_a_permission_request_names_the_conversation_and_the_command() -> None:
    asked = run_question("npm\n test")
    assert permission_subject("fix-login", "Fix login", asked) == (
        '[needs decision] #fix-login: run "npm test"?'
    )
    assert permission_subject(None, "Fix  login", asked).startswith('[needs decision] "Fix login"')
    assert len(permission_subject("a", "", "x" * 5000)) == MAX_SUBJECT
    assert permission_subject(None, "", "May I?") == "[needs decision] May I?"
    assert permission_subject("b", "", "[needs decision] #a: May I?") == (
        "[needs decision] #a: May I?"
    )
    assert opencode_question({"permission": "bash", "metadata": {"command": "ls"}}) == 'run "ls"?'
    assert opencode_question({"permission": "edit", "patterns": ["a.py"]}) == "edit a.py?"
    assert pi_question("bash", "make test") == 'run "make test"?'
    assert pi_question("write", "write src/a.py") == "write src/a.py?"


def test_a_question_and_a_summary() -> None:
    assert question_subject("fix-login", "t", "\nWhich branch?\nmain or release") == (
        "[question] #fix-login: Which branch?"
    )
    assert reply_subject("Fix login") == "Re: Fix login"
    assert reply_subject("RE: Fix login") == "RE: Fix login"
    assert reply_subject("") == ""
