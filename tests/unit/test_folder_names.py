"""Folder names (core/mailboxes/folder_names.py): what a person's folder may be called,
and its modified UTF-7 form, which the IMAP parser reads back to the same name."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.errors import InvalidRequest, LimitReached, NameTaken
from core.mailboxes.folder_names import MAX_WIRE_OCTETS, modified_utf7, parent_names, personal_name
from imap_view.mailbox_names import decode_modutf7

# What a level may hold: any character but controls, the delimiter and LIST's wildcards.
LEVEL = st.text(
    st.characters(blacklist_categories=("Cc", "Cs"), blacklist_characters="/*%\x7f"),
    min_size=1,
    max_size=20,
)


@given(st.text(st.characters(blacklist_categories=("Cs",)), max_size=60))
def test_the_wire_form_reads_back_as_the_name(name: str) -> None:
    """RFC 3501 §5.1.3, checked by the strict decoder the IMAP commands use."""
    assert decode_modutf7(modified_utf7(name)) == name


@given(st.lists(LEVEL, min_size=1, max_size=5))
def test_a_name_of_allowed_levels_is_taken_as_it_is(levels: list[str]) -> None:
    name = "/".join(levels)
    try:
        kept = personal_name(name)
    except (NameTaken, InvalidRequest):  # a reserved name: INBOX, Sent, …, Sessions/…
        return
    assert kept == name or kept == "INBOX" + name[len("inbox") :]
    assert parent_names(kept) == ["/".join(kept.split("/")[:n]) for n in range(1, len(levels))]


@pytest.mark.parametrize(
    ("name", "error"),
    [
        ("", InvalidRequest),
        ("a//b", InvalidRequest),
        ("/a", InvalidRequest),
        ("a\x01b", InvalidRequest),
        ("a*", InvalidRequest),
        ("50%", InvalidRequest),
        ("Sessions/mine", InvalidRequest),
        ("sessions", NameTaken),
        ("Trash", NameTaken),
        ("needs decision", NameTaken),
        ("x" * 256, LimitReached),
        ("/".join("d" * 17), LimitReached),
        ("/".join(["日本語" * 40] * 4), LimitReached),  # over the wire's octets
    ],
)
def test_names_that_are_refused(name: str, error: type[Exception]) -> None:
    with pytest.raises(error):
        personal_name(name)


def test_names_that_are_kept() -> None:
    assert personal_name("Projects/") == "Projects"  # RFC 3501 §6.3.3
    assert personal_name("inbox/Lists") == "INBOX/Lists"
    assert personal_name("Archive/2025") == "Archive/2025"
    assert personal_name("&Co") == "&Co"
    assert len(modified_utf7("/".join(["日本語" * 40] * 3))) <= MAX_WIRE_OCTETS
