"""Drafts as IMAP messages (core/mailboxes/drafts.py): what a client APPENDs is read safely,
and a draft served to a client reads back as the same draft."""

from __future__ import annotations

import operator
from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from core.address import Address, parse_address
from core.mail.draft_messages import parse_draft
from core.mailboxes.drafts import render_draft
from core.store.models import Draft

D = "agentmail.test"
_ALNUM = "abcdefghijklmnopqrstuvwxyz0123456789"


def _word(max_size: int) -> st.SearchStrategy[str]:
    return st.builds(
        operator.add, st.sampled_from(_ALNUM), st.text(_ALNUM + "_-", max_size=max_size - 1)
    )


addresses = st.builds(Address, _word(12), st.just("") | _word(12)).map(Address.native)
printable = st.characters(exclude_categories=("Cs", "Cc", "Zl", "Zp"))
# Subjects are kept on one line with single spaces (what parse_draft makes of them).
subjects = st.text(printable, max_size=120).map(lambda s: " ".join(s.split()))
bodies = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\r\x00"))


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=2000))
def test_any_appended_bytes_read_as_a_draft_or_nothing_worse(raw: bytes) -> None:
    draft, message_id = parse_draft(raw)
    assert "\r\n" not in draft.body and "\n" not in draft.subject
    assert message_id is None or (message_id.startswith("<") and message_id.endswith(">"))


@settings(max_examples=150, deadline=None)
@given(st.none() | addresses, st.lists(addresses, max_size=4), subjects, bodies)
def test_a_served_draft_reads_back_as_the_same_draft(
    to: str | None, cc: list[str], subject: str, body: str
) -> None:
    draft = Draft(
        id="d1",
        owner="jianf",
        to=to,
        cc=cc,
        subject=subject,
        body=body,
        imap_uid=7,
        updated_at=datetime(2026, 11, 30, 9, 0, tzinfo=UTC),
    )
    read, message_id = parse_draft(render_draft(draft, D))
    assert message_id == f"<draft.d1.7@{D}>"
    assert (read.to is None) == (to is None)
    if to is not None and read.to is not None:
        assert parse_address(read.to, D).native() == to
    assert [parse_address(text, D).native() for text in read.cc] == cc
    assert read.subject == subject
    assert read.body.removesuffix("\n") == body.removesuffix("\n")
