"""The bounds of reading a received message: within the MIME bounds (core/mime), the
standard library's parser builds no deeper or bigger a tree than they allow, and over a
bound the text degrades instead of failing."""

from __future__ import annotations

from email.message import Message
from email.parser import BytesParser
from email.policy import default

from hypothesis import given

from core.mail.draft_messages import parse_draft
from core.mail.html_text import MAX_HTML_DEPTH, html_shape, html_text, html_to_markdown
from core.mime.bounds import LIMITS
from core.mime.structure import over_bound
from smtp_in.message import parse_submitted
from tests.support.fuzzing import examples, fuzz_settings
from tests.support.mime_bounds import (
    many_parts,
    nested_divs,
    nested_messages,
    nested_multiparts,
    soft_breaks,
)
from tests.support.mime_fuzz import messages


def _tree(part: Message, depth: int = 0) -> tuple[int, int]:
    """(deepest nesting, entities) of what the parser built."""
    payload = part.get_payload()
    if not isinstance(payload, list):
        return depth, 1
    deepest, count = depth, 1
    for child in payload:
        if isinstance(child, Message):
            child_depth, child_count = _tree(child, depth + 1)
            deepest, count = max(deepest, child_depth), count + child_count
    return deepest, count


@fuzz_settings(examples(300))
@given(messages)
def test_within_the_bounds_the_parser_builds_no_more_than_they_allow(raw: bytes) -> None:
    if over_bound(raw) is not None:
        return
    try:
        depth, parts = _tree(BytesParser(policy=default).parsebytes(raw))
    except Exception:  # the parser's own failures: parse_submitted refuses those
        return
    assert depth <= LIMITS.max_depth and parts <= LIMITS.max_parts, (depth, parts)


def test_nesting_parts_and_lines_over_the_bounds_are_found() -> None:
    assert over_bound(nested_multiparts(10)) is None
    assert over_bound(nested_multiparts(1000)) is not None
    assert over_bound(nested_messages(LIMITS.max_depth + 2)) is not None
    assert over_bound(many_parts(LIMITS.max_parts - 2)) is None
    assert over_bound(many_parts(LIMITS.max_parts)) is not None
    assert over_bound(soft_breaks(LIMITS.max_work)) is not None


def test_a_message_over_the_bounds_is_read_for_its_headers_with_a_note() -> None:
    for raw in (nested_multiparts(1000), nested_messages(300), soft_breaks(LIMITS.max_work)):
        submitted = parse_submitted(raw)
        assert submitted.from_addresses == ["alice@agentmail.localhost"]
        assert submitted.body.startswith("(The gateway did not read the text of this message")
        assert submitted.attachments == []
        draft, message_id = parse_draft(raw)
        assert draft.body.startswith("(The text of this draft was not read") and message_id


def test_html_over_the_bounds_is_read_as_text() -> None:
    assert html_shape("<div>" * 50 + "<p>a<p>b<br><img>" + "</div>" * 50) == (50, 54)
    assert html_shape("<!-- <div><div> --><script><div></script>") == (0, 1)
    assert html_shape("<div>" * 1000)[0] == MAX_HTML_DEPTH + 1  # the count stops
    for depth in (5000, 100_000):
        markup = "<div>" * depth + "deep &amp; inside" + "</div>" * depth
        assert html_to_markdown(markup) == "deep & inside"
    page = "<head><title>t</title><style>p{}</style></head><p>one<br>two</p><td>x</td><td>y"
    assert html_text(page) == "one\ntwo\nx y"
    assert html_text("<" * 100_000 + "<b") == "<" * 100_000
    assert html_text("a " * 10, limit=5) == "a a a"


def test_the_five_thousand_div_message_is_read_as_its_text() -> None:
    assert parse_submitted(nested_divs(5000)).body == "deep inside"
    assert parse_draft(nested_divs(5000))[0].body == "deep inside"
