"""The bounds of reading a received message: the MIME scan never counts less than the
standard library's parser builds, and over a bound the text degrades instead of failing."""

from __future__ import annotations

from email.message import Message
from email.parser import BytesParser
from email.policy import default

from hypothesis import given

from core.folders.drafts import parse_draft
from core.mail.html_text import MAX_HTML_DEPTH, html_shape, html_text, html_to_markdown
from core.mail.mime_shape import MAX_DEPTH, MAX_LINES, MAX_PARTS, mime_shape
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
def test_the_scan_counts_at_least_what_the_parser_builds(raw: bytes) -> None:
    shape = mime_shape(raw)
    try:
        depth, parts = _tree(BytesParser(policy=default).parsebytes(raw))
    except Exception:  # the parser's own failures: parse_submitted refuses those
        return
    assert shape.depth >= depth and shape.parts >= parts, (shape, depth, parts)


def test_nesting_and_parts_over_the_bounds_are_found() -> None:
    assert mime_shape(nested_multiparts(MAX_DEPTH)).over is None
    assert mime_shape(nested_multiparts(MAX_DEPTH + 2)).over == (
        f"its MIME parts nest over {MAX_DEPTH} deep"
    )
    assert mime_shape(nested_messages(MAX_DEPTH + 2)).over is not None
    assert mime_shape(many_parts(MAX_PARTS - 1)).over is None
    assert mime_shape(many_parts(MAX_PARTS)).over == f"it has over {MAX_PARTS} MIME parts"
    assert mime_shape(soft_breaks(MAX_LINES)).over == f"it has over {MAX_LINES:,} lines"


def test_a_message_over_the_bounds_is_read_for_its_headers_with_a_note() -> None:
    for raw in (nested_multiparts(1000), nested_messages(300), soft_breaks(MAX_LINES)):
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
