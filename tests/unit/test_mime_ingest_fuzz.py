"""MIME ingest fuzzed: whatever arrives by SMTP, reading it never raises.

`parse_submitted` runs on every DATA; an exception there used to be a 451 and a
client retrying forever. Truncated messages, huge and 8-bit headers, unknown or
broken charsets and nested multiparts must all yield a `Submitted` (possibly
with empty fields). tests/integration/test_smtp_fuzz.py sends some of them
through a real server.
"""

from __future__ import annotations

import pytest
from hypothesis import given

from smtp_in.message import Submitted, parse_submitted
from tests.support.fuzzing import examples, fuzz_settings
from tests.support.mime_fuzz import messages

pytestmark = pytest.mark.fuzz


@fuzz_settings(examples(300))
@given(messages)
def test_any_message_is_read_without_an_exception(raw: bytes) -> None:
    submitted = parse_submitted(raw)
    assert isinstance(submitted, Submitted)
    for text in (submitted.subject, submitted.body):
        assert isinstance(text, str)
        text.encode("utf-8")  # storable: no lone surrogates
    assert all(isinstance(a, str) for a in submitted.from_addresses + submitted.to_addresses)
    for attachment in submitted.attachments:
        assert isinstance(attachment.filename, str)
