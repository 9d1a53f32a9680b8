"""core/rendering/batch.py `header_of`: a message's header section, ending with its empty line."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from core.rendering.batch import header_of

field = st.from_regex(r"[A-Za-z-]{1,10}: [ -~]{0,20}", fullmatch=True)


@given(
    st.lists(field, min_size=1, max_size=5), st.binary(max_size=60), st.sampled_from(["\r\n", "\n"])
)
def test_the_header_section_and_nothing_of_the_body(
    fields: list[str], body: bytes, newline: str
) -> None:
    header = "".join(f + newline for f in fields).encode() + newline.encode()
    assert header_of(header + body) == header


def test_a_message_without_a_body_gets_its_empty_line() -> None:
    assert header_of(b"Subject: x\r\n") == b"Subject: x\r\n\r\n"
