"""The faster reading of a submitted message gives exactly the old answers.

`smtp_in/message.py` reads the header fields once instead of scanning them per
question, and `smtp_in/new_text.py` skips the history search when a body has no
quote and no line that can end an attribution (`may_hold_history`), stops counting
an attribution's paragraph at four lines, and lower-cases lines only when the text
holds "original message". tests/support/ingest_reference.py keeps the functions as
they were; these compare the two over the MIME fuzz corpus, the client replies and
generated bodies.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.errors import InvalidRequest
from smtp_in.message import Submitted, parse_submitted
from smtp_in.new_text import may_hold_history, strip_history
from tests.support import ingest_reference as old
from tests.support.fuzzing import examples, fuzz_settings
from tests.support.mime_fuzz import messages

REPLIES = Path(__file__).parents[1] / "fixtures" / "replies"

_LINES = st.sampled_from(
    [
        "Yes, go ahead.",
        "plain words, no history here",
        "On Mon, Nov 30, 2026 at 10:00 AM Builder <b@x> wrote:",
        "On Mon, 30 Nov 2026 at 10:00, Jian Feng",
        "<jianf@agentmail.localhost> wrote:",
        "Am Mo., 30. Nov. 2026 um 10:00 Uhr schrieb Builder <b@x>:",
        "* Jian <j@x> [2026-11-30 10:00]:",
        "From: Builder",
        "Sent: Monday",
        "-----Original Message-----",
        "----- ORIGINAL MESSAGE -----",
        "2026年11月30日 10:00 Jian <j@x> 写道\uff1a",
        "________________________________",
        "***",
        "> quoted",
        ">> deeper",
        "  > indented quote",
        "-- ",
        "--",
        "Sent from my iPhone",
        "",
        "   ",
        "\t",
        "    indented code",
        "x" * 450 + ":",
    ]
)
# Bodies with no quote and no colon: the ones the pre-check sends past the search.
_CALM = st.text(alphabet=st.characters(blacklist_characters=":>\uff1a"), max_size=40)
_BODIES = st.lists(_LINES | _CALM | st.text(max_size=40), max_size=30)
_ENDINGS = st.sampled_from(["\n", "\r\n", "\r"])


def _read(raw: bytes) -> Submitted | type[InvalidRequest]:
    try:
        return parse_submitted(raw)
    except InvalidRequest:
        return InvalidRequest


def _read_as_before(raw: bytes) -> Submitted | type[InvalidRequest]:
    try:
        return old.parse_submitted(raw)
    except Exception:  # what the old code mapped to InvalidRequest (its `_PARSER_FAILURES`)
        return InvalidRequest


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_BODIES, _ENDINGS)
def test_the_new_text_is_the_old_one(lines: list[str], ending: str) -> None:
    text = ending.join(lines)
    assert strip_history(text) == old.strip_history(text)


@settings(max_examples=300, deadline=None)
@given(st.lists(_LINES.filter(lambda line: not may_hold_history(line)) | _CALM, max_size=30))
def test_a_body_that_cannot_hold_history_skips_the_search_and_loses_nothing(
    lines: list[str],
) -> None:
    text = "\n".join(lines)
    assert not may_hold_history(text)
    assert strip_history(text) == old.strip_history(text)


def test_the_pre_check_sees_every_kind_of_history() -> None:
    for text in ("> quoted", "a\nOn Mon, Jian wrote:", "x\uff1a", "-----Original Message-----"):
        assert may_hold_history(text), text
    assert not may_hold_history("Yes, go ahead.\n\n-- \nJian\nSent from my iPhone")


@fuzz_settings(examples(300))
@given(messages)
def test_the_fuzz_corpus_reads_as_it_did(raw: bytes) -> None:
    assert _read(raw) == _read_as_before(raw)


@pytest.mark.parametrize("path", sorted(REPLIES.glob("*.eml")), ids=lambda p: p.stem)
def test_each_client_reply_reads_as_it_did(path: Path) -> None:
    raw = path.read_bytes()
    assert _read(raw) == _read_as_before(raw)


@fuzz_settings(examples(200))
@given(
    st.lists(
        st.sampled_from(["From", "from", "FROM", "To", "Cc", "Message-ID", "message-id", "Date"])
        .map(lambda name: name + ": ")
        .flatmap(
            lambda name: st.sampled_from(["a@b", "<x@y>", "=?utf-8?q?J=C3=BC?= <j@x>"]).map(
                name.__add__
            )
        ),
        max_size=8,
    ),
    _BODIES,
)
def test_repeated_and_differently_cased_fields_read_as_they_did(
    fields: list[str], lines: list[str]
) -> None:
    raw = ("\r\n".join(fields) + "\r\n\r\n" + "\r\n".join(lines)).encode()
    assert _read(raw) == _read_as_before(raw)


@pytest.mark.parametrize("length", range(1, 7))
def test_an_attribution_paragraph_of_any_length_reads_as_it_did(length: int) -> None:
    # Only a paragraph of at most 3 lines is an attribution: the count stops at 4.
    paragraph = [f"line {n} of Jian <j@x>" for n in range(length - 1)] + ["said on 30/11:"]
    for after in (["> quoted", "", "my answer"], ["> quoted"], ["", "> quoted", "> more"]):
        text = "\n".join(["", *paragraph, "", *after])
        assert strip_history(text) == old.strip_history(text)
