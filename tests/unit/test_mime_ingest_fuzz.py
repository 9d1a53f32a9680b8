"""MIME ingest fuzzed: whatever arrives by SMTP is read, or refused for good.

`parse_submitted` runs on every DATA. Truncated messages, huge and 8-bit headers,
unknown or broken charsets and nested multiparts yield a `Submitted` (possibly
with empty fields) of storable text; the few the standard library cannot parse
at all are an InvalidRequest (`550 5.6.0`), never another exception (which was
aiosmtpd's `500 Error: (IndexError)`) nor a 451 that a client retries forever.
tests/integration/test_smtp_fuzz.py sends some of them through a real server.
"""

from __future__ import annotations

from email.parser import BytesParser
from email.policy import default
from email.utils import getaddresses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.errors import InvalidRequest
from smtp_in.message import Submitted, _decoded, parse_submitted
from tests.support.fuzzing import examples, fuzz_settings
from tests.support.mime_fuzz import messages

pytestmark = pytest.mark.fuzz


def test_a_header_the_stdlib_cannot_parse_is_a_permanent_refusal() -> None:
    # Found by `make test-long`: CPython's header parser raised IndexError on it.
    with pytest.raises(InvalidRequest, match="malformed MIME header"):
        parse_submitted(b"Content-Type: text/plain; a*\r\n\r\nbody")


def test_nul_characters_are_not_kept_in_the_text() -> None:
    # Found by `make test-long`: PostgreSQL refused the body, the client got 451.
    submitted = parse_submitted(b"Subject: a\x00b\r\nMIME-Version: base64\r\n\r\n\r\n\x00x")
    assert submitted.subject == "ab" and "\x00" not in submitted.body


@fuzz_settings(examples(300))
@given(messages)
def test_any_message_is_read_or_refused_for_good(raw: bytes) -> None:
    try:
        submitted = parse_submitted(raw)
    except InvalidRequest:
        return  # 550 5.6.0
    assert isinstance(submitted, Submitted)
    for text in (submitted.subject, submitted.body):
        assert isinstance(text, str) and "\x00" not in text
        text.encode("utf-8")  # storable: no lone surrogates
    assert all(isinstance(a, str) for a in submitted.from_addresses + submitted.to_addresses)
    for attachment in submitted.attachments:
        assert isinstance(attachment.filename, str)


_HEADER_TEXT = st.text(alphabet='ab@.<>," ()\\=?:;éQ', max_size=60)


@fuzz_settings(examples(300))
@given(st.lists(_HEADER_TEXT, min_size=1, max_size=3))
def test_address_headers_read_as_getaddresses_does_every_time(values: list[str]) -> None:
    """`From:`/`To:`/`Cc:` are split once per distinct text (smtp_in/message.py): the
    remembered answer is the standard library's, and a caller's list is its own."""
    raw = "".join(f"To: {value}\r\n" for value in values).encode() + b"\r\nbody"
    try:
        first = parse_submitted(raw)
    except InvalidRequest:
        return
    as_read = [v for k, v in BytesParser(policy=default).parsebytes(raw).raw_items() if k == "To"]
    expected = [a for _, a in getaddresses(as_read) if a]
    assert first.to_addresses == expected
    first.to_addresses.append("changed@example.com")
    assert parse_submitted(raw).to_addresses == expected
    for value in values:
        assert _decoded(value) == _decoded.__wrapped__(value)
