"""Reading a decision out of a reply (core/approvals/decide_by_mail.py): tables and properties."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from core.approvals.decide_by_mail import decision_from_reply, new_text_lines
from core.rendering.parse import parse_rendered
from core.rendering.render import render_mail
from core.store.models import Mail

OPTIONS = ["approve", "reject", "Run  the tests"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1", ("approve", None)),
        ("1.", ("approve", None)),
        ("1)", ("approve", None)),
        ("(2)", ("reject", None)),
        ("[2]", ("reject", None)),
        ("#3", ("Run  the tests", None)),
        ("# 3", ("Run  the tests", None)),
        ("\uff12", ("reject", None)),  # a full-width digit, as CJK input methods type it
        ("APPROVE", ("approve", None)),
        ("  Reject  \r\n", ("reject", None)),
        ("run the TESTS", ("Run  the tests", None)),
        (
            "reject\n\nNot on a Friday.\nAsk again Monday.",
            ("reject", "Not on a Friday.\nAsk again Monday."),
        ),
        ("\n\n1\n", ("approve", None)),
        ("> What do you decide?\n\n2\nbecause", ("reject", "because")),
        ("approve\nok\n-- \nJian F\nCTO", ("approve", "ok")),
        ("1\nfine\n\nOn Mon, 30 Nov 2026, builder wrote:\n> 2. reject", ("approve", "fine")),
        (
            "2\n\nOn Mon, 30 Nov 2026 at 10:00, builder <\nbuilder+ModelRouter@d.test> wrote:\n> 1",
            ("reject", None),
        ),
        ("1\n-----Original Message-----\nFrom: builder\n1. approve", ("approve", None)),
        ("1\n\nLe lun. 30 nov. 2026, builder a écrit :\n> x", ("approve", None)),
    ],
)
def test_a_first_line_naming_an_option_decides(text: str, expected: tuple[str, str | None]) -> None:
    assert decision_from_reply(OPTIONS, text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n  \n",
        "4",  # no fourth option
        "0",
        "1 2",
        "yes",
        "approve it",
        "maybe 1",
        "1 - but only staging",
        "approved",
        "> 1",  # quoted: the request, not the answer
        "> 1\n> approve\n",
        "On Mon, 30 Nov 2026, builder wrote:\n> 1. approve",
        "-- \napprove",
        "12345678901234567890",
        "#",
        "()",
    ],
)
def test_anything_else_decides_nothing(text: str) -> None:
    assert decision_from_reply(OPTIONS, text) is None


def test_text_wins_over_number() -> None:
    assert decision_from_reply(["2", "1"], "1") == ("1", None)
    assert decision_from_reply(["2", "later"], "2") == ("2", None)
    assert decision_from_reply(["2", "later"], "#2") == ("later", None)


def test_a_reply_quoting_the_rendered_request_reads_only_the_new_text() -> None:
    """The request's own footer lists `1. approve` ...; quoted below the answer it is
    history, and a client that quotes without `>` is cut at its separator."""
    mail = Mail(
        id="m1",
        session_id="s1",
        from_name="builder",
        from_path="ModelRouter",
        to_name="jianf",
        to_path="",
        cc=[],
        subject="Deploy?",
        body="Deploy to production?",
        mail_type="permission_request",
        auto=False,
        message_id="<m1@d.test>",
        created_at=datetime(2026, 11, 30, 10, tzinfo=UTC),
        options=["approve", "reject"],
        permission_state="open",
    )
    rendered = parse_rendered(render_mail(mail, "deploy", "d.test"), "d.test")
    original = render_mail(mail, "deploy", "d.test").decode().replace("\r\n", "\n")
    quoted = "\n".join(f"> {line}" for line in original.split("\n"))
    assert rendered.options == ["approve", "reject"]
    reply = f"2\nnot today\n\nOn Mon, 30 Nov 2026 at 10:00, builder wrote:\n{quoted}"
    assert decision_from_reply(mail.options or [], reply) == ("reject", "not today")
    bottom = f"{quoted}\n\nreject"  # quote first, answer below
    assert decision_from_reply(mail.options or [], bottom) == ("reject", None)
    outlook = f"reject\n\n-----Original Message-----\n{original}"
    assert decision_from_reply(mail.options or [], outlook) == ("reject", None)
    assert decision_from_reply(mail.options or [], f"thanks\n\n{quoted}") is None


# Options as core/approvals/permissions.py accepts them: one stripped, non-empty line each,
# different case-insensitively (here also after collapsing white space).
printable = st.characters(exclude_categories=("Cs", "Cc", "Zl", "Zp"))
lines = st.text(printable | st.just("\t"), max_size=40)
option_lists = st.lists(
    st.text(printable, min_size=1, max_size=30).map(str.strip).filter(bool),
    min_size=1,
    max_size=20,
    unique_by=lambda s: " ".join(s.split()).casefold(),
)
texts = st.lists(lines | st.sampled_from(["> 1", "-- ", "On x wrote:", "", "2"]), max_size=8)
_NUMBER_LIKE = re.compile(r"[#(\[]?\s*\d+\s*[.)\]]?")


def _folded(text: str) -> str:
    return " ".join(text.split()).casefold()


@given(option_lists, texts.map("\n".join) | st.text())
def test_never_raises(options: list[str], text: str) -> None:
    result = decision_from_reply(options, text)
    assert result is None or result[0] in options


@given(option_lists, st.data(), texts)
def test_a_first_line_that_is_an_option_or_its_number_chooses_it(
    options: list[str], data: st.DataObject, rest: list[str]
) -> None:
    index = data.draw(st.integers(0, len(options) - 1))
    by_number = data.draw(st.booleans())
    line = str(index + 1) if by_number else options[index]
    if by_number:  # text wins over number
        assume(all(_folded(option) != line for option in options))
    else:  # an option that reads as new text (not a quote, separator or attribution)
        assume(new_text_lines(line) == [line])
    assume(not rest or not rest[0].rstrip().endswith(":"))  # no folded attribution
    result = decision_from_reply(options, "\n".join([line, *rest]))
    assert result is not None
    assert result[0] == options[index]


@given(option_lists, lines, texts)
def test_a_first_line_that_is_something_else_never_decides(
    options: list[str], line: str, rest: list[str]
) -> None:
    assume(line.strip() and not line.strip().startswith(">"))
    assume(all(_folded(option) != _folded(line) for option in options))
    assume(not _NUMBER_LIKE.fullmatch(line.strip()))
    assert decision_from_reply(options, "\n".join([line, *rest])) is None
