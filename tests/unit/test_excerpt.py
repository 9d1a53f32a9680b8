"""Excerpts and task counts (core/mail/excerpt.py): what lists show of a Markdown body.

A table of the cases a person sees in a list, then properties: any body gives an
excerpt (never an exception), bounded in length, on one line; and for bodies built
from simple Markdown around plain words, none of the Markdown markers is left.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.mail.excerpt import EXCERPT_CHARS, MAX_PARSED_CHARS, Excerpt, excerpt_of
from tests.support.fuzzing import examples, fuzz_settings
from tests.unit.test_markdown_fuzz import markdown

CASES = [
    ("plain words", "plain words", 0, 0),
    ("### Heading\n\nText", "Heading Text", 0, 0),
    ("**bold** and _em_ and ~~gone~~", "bold and em and gone", 0, 0),
    ("see [the docs](https://x.example/a) now", "see the docs now", 0, 0),
    ("![a chart](c.png)", "a chart", 0, 0),
    ("`code` stays", "code stays", 0, 0),
    ("before\n\n```python\nprint(1)\n```\n\nafter", "before after", 0, 0),
    ("<div>html</div>\n\ntext", "text", 0, 0),
    ("> quoted\n> more", "quoted more", 0, 0),
    ("- [x] one\n- [ ] two\n- [X] three", "one two three", 2, 3),
    ("1. [ ] first\n2. [x] second", "first second", 1, 2),
    ("- [ ] outer\n  - [x] inner", "outer inner", 1, 2),
    ("```\n- [x] in a fence\n```", "", 0, 0),
    ("a [x] in a line", "a [x] in a line", 0, 0),
    ("- [x]\n- [ ] b", "b", 1, 2),
    ("| a | b |\n|---|---|\n| c | d |", "a b c d", 0, 0),
    ("line one\nline two\n\n---\n\nthree", "line one line two three", 0, 0),
    ("", "", 0, 0),
]


@pytest.mark.parametrize(("body", "text", "done", "total"), CASES)
def test_a_body_as_a_list_shows_it(body: str, text: str, done: int, total: int) -> None:
    assert excerpt_of(body) == Excerpt(text, done, total)


def test_a_long_body_is_cut_with_an_ellipsis_and_parsed_only_so_far() -> None:
    made = excerpt_of("word " * 1000)
    assert len(made.text) == EXCERPT_CHARS
    assert made.text.endswith("…")
    tasks = "- [x] t\n" * (MAX_PARSED_CHARS // 8 + 100)
    assert excerpt_of(tasks).tasks_total <= MAX_PARSED_CHARS // 8


@fuzz_settings(examples(300))
@given(markdown)
def test_any_body_gives_a_bounded_single_line(body: str) -> None:
    made = excerpt_of(body)
    assert len(made.text) <= EXCERPT_CHARS
    assert "\n" not in made.text and made.text == made.text.strip()
    assert 0 <= made.tasks_done <= made.tasks_total


word = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8)
SHAPES = [
    "### {}",
    "## {}",
    "**{}**",
    "__{}__",
    "*{}*",
    "[{}](https://example.com/x)",
    "`{}`",
    "- {}",
    "1. {}",
    "> {}",
    "- [x] {}",
    "- [ ] {}",
]
simple = st.lists(
    st.tuples(st.sampled_from(SHAPES), word).map(lambda pair: pair[0].format(pair[1])),
    min_size=1,
    max_size=12,
).map("\n\n".join)


@fuzz_settings(examples(200))
@given(simple)
def test_simple_markdown_leaves_no_markers(body: str) -> None:
    text = excerpt_of(body).text
    for marker in ("#", "*", "_", "[", "]", "(", "`", ">"):
        assert marker not in text, (body, text)
