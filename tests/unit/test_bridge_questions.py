"""A platform's question as a mail, and the human's reply read back as its answer."""

from __future__ import annotations

import pytest

from bridges.runtime.questions import answer_of, question_body

OPTIONS = ["main", "release"]


def test_choices_are_numbered_in_the_question_mail() -> None:
    assert question_body("Which?", OPTIONS) == (
        "Which?\n\n1. main\n2. release\n\nReply with a number or with your own answer."
    )
    assert question_body("Free text?", []) == "Free text?"


@pytest.mark.parametrize(
    ("body", "answer"),
    [
        ("2", "release"),
        ("1.", "main"),
        ("RELEASE", "release"),
        ("3", "3"),  # not a choice: the text itself
        ("2\r\n\r\nOn Mon, 1 Dec 2026, builder wrote:\r\n> Which?\r\n> 1. main", "release"),
        ("use main\nbut tag it", "use main\nbut tag it"),
        ("> quoted only", ""),
        ("Am Montag schrieb:\n> x", ""),  # only a quote under its attribution
    ],
)
def test_the_answer_is_the_reply_without_its_quote(body: str, answer: str) -> None:
    assert answer_of(body, OPTIONS) == answer
