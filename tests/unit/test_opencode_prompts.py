"""What opencode's prompts become in the runtime's terms, and decisions said in words for a
turn run again after opencode forgot its prompt (bridges/platforms/opencode/prompts.py),
and a title's alias (bridges/platforms/aliases.py)."""

from __future__ import annotations

import pytest

from bridges.platforms.aliases import alias_of
from bridges.platforms.opencode.prompts import (
    action_of,
    approves,
    decision_note,
    questions_of,
    rejection_message,
)
from bridges.runtime.platform import ANSWER, Resume


@pytest.mark.parametrize(
    ("request_", "action"),
    [
        (  # the whole command as the model wrote it, not opencode's per-command patterns
            {
                "permission": "bash",
                "patterns": ["cd src", "rm *.o"],
                "metadata": {"command": "cd src && rm *.o"},
            },
            "cd src && rm *.o",
        ),
        ({"permission": "edit", "patterns": ["src/app.py"], "metadata": {}}, "edit: src/app.py"),
        ({"permission": "webfetch", "patterns": [], "metadata": {}}, "webfetch:"),
    ],
)
def test_the_action_is_the_exact_thing_approved(request_: dict[str, object], action: str) -> None:
    assert action_of(request_) == action


def test_one_question_keeps_its_choices_and_several_are_one_text() -> None:
    colour = {
        "question": "Which colour?",
        "header": "Colour",
        "options": [{"label": "red", "description": "warm"}, {"label": "blue", "description": ""}],
    }
    text, choices = questions_of({"questions": [colour]})
    assert text == "Which colour?\n\n- red: warm" and choices == ["red", "blue"]
    size = {"question": "Which size?", "header": "Size", "options": []}
    text, choices = questions_of({"questions": [colour, size]})
    assert text.endswith("Which size?") and choices == []


@pytest.mark.parametrize(
    ("decision", "note", "said"),
    [
        ("approve", "go ahead", "Your request to run `make` was approved (note: go ahead)."),
        ("always allow", None, "Your request to run `make` was approved. It has not run yet"),
        ("reject", "not now", "was not approved (the human rejected it; note: not now): do not"),
        ("expired", None, "was not approved (it expired: nobody decided in time): do not run"),
        (ANSWER, "blue", 'You asked the human "make". Their answer: blue'),
    ],
)
def test_a_decision_in_words(decision: str, note: str | None, said: str) -> None:
    assert said in decision_note(Resume("per_1", decision, note), "permission", "make")


def test_only_approve_and_always_approve() -> None:
    assert [approves(Resume("p", d)) for d in ("approve", "always allow", "reject", "expired")] == [
        True,
        True,
        False,
        False,
    ]
    assert rejection_message(Resume("p", "reject")) == "the human rejected it"


@pytest.mark.parametrize(
    ("title", "alias"),
    [
        ("Weekly report", "weekly-report"),
        ("排查登录问题", "pai-cha-deng-lu-wen-ti"),
        ("New", None),  # reserved: `.new` opens a new conversation
        ("!!!", None),
        ("a" * 80, "a" * 64),
    ],
)
def test_a_title_asks_for_the_gateways_slug(title: str, alias: str | None) -> None:
    assert alias_of(title) == alias
