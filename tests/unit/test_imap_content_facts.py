"""SEARCH's size and text tests read once per content (imap_view/content_facts.py) give
pymap's own answers."""

from __future__ import annotations

import pytest
from pymap.message import BaseLoadedMessage
from pymap.mime import MessageContent
from pymap.parsing.specials import FetchRequirement

from imap_view.content_facts import MAX_TEXT_BYTES
from imap_view.message import LoadedMessage, Message

MIXED = (
    b"Subject: Weekly Report\r\nFrom: A <a@example.com>\r\nTo: b@example.com\r\n"
    b"Content-Type: multipart/mixed; boundary=xx\r\n\r\n"
    b"--xx\r\nContent-Type: text/plain\r\n\r\nThe build is FLAKY again, abc \xc3\x89t\xc3\xa9.\r\n"
    b"--xx\r\nContent-Type: application/octet-stream\r\nX-Part: hidden\r\n\r\n"
    b"secret-in-binary\r\n--xx--\r\n"
)
PLAIN = b"Subject: hi\r\n\r\n" + b"line of text\r\n" * (MAX_TEXT_BYTES // 14 + 10)
VALUES = [
    b"flaky",
    b"FLAKY",
    b"weekly report",
    b"secret-in-binary",
    b"x-part",
    b"absent",
    b" ",
    b"",
    b"a.c",
    b"build is",
    b"\xc3\xa9",
]


@pytest.mark.parametrize("raw", [MIXED, PLAIN], ids=["mixed", "over the kept size"])
def test_size_and_text_as_pymap_answers(raw: bytes) -> None:
    content = MessageContent.parse(raw)
    for _ in range(2):  # worked out, then kept
        loaded = LoadedMessage(
            Message(1, frozenset(), mail_seq=1), FetchRequirement.CONTENT, content
        )
        assert loaded.get_size() == BaseLoadedMessage.get_size(loaded) == len(raw)
        for value in VALUES:
            assert loaded.contains(value) == BaseLoadedMessage.contains(loaded, value), value


def test_without_content_nothing_is_found() -> None:
    loaded = LoadedMessage(Message(1, frozenset(), mail_seq=1), FetchRequirement.NONE, None)
    assert loaded.get_size() == BaseLoadedMessage.get_size(loaded) == 0
    assert not loaded.contains(b"a") and not BaseLoadedMessage.contains(loaded, b"a")
