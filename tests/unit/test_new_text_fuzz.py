"""Property tests: reading a submitted message never fails and never invents text."""

from __future__ import annotations

from email import policy
from email.message import EmailMessage
from email.parser import BytesParser

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from smtp_in.message import parse_submitted
from smtp_in.new_text import (
    _HEADER,
    HEADER_LINE_CHARS,
    _first_header,
    body_text,
    new_text,
    strip_history,
)

_HEADERS = st.sampled_from(
    [
        b"Content-Type: text/plain; charset=utf-8; format=flowed\r\n",
        b"Content-Type: text/html; charset=iso-8859-1\r\n",
        b"Content-Type: text/plain; charset=x-unknown\r\n",
        b"Content-Type: text/plain; charset=base64\r\n",
        b'Content-Type: multipart/mixed; boundary="b"\r\n',
        b'Content-Type: multipart/alternative; boundary="b"\r\n',
        b"Content-Type: message/rfc822\r\n",
        b"Content-Transfer-Encoding: base64\r\n",
        b"Content-Transfer-Encoding: quoted-printable\r\n",
        b"Content-Disposition: attachment; filename*=utf-8''%E2%82%AC.pdf\r\n",
        b"From: =?utf-8?q?J=C3=BCrgen?= <j@x>\r\n",
        b"From: <<<@@>>>\r\n",
        b"Subject: =?x-bad?b?AAAA?=\r\n",
        b"\r\n--b\r\nContent-Type: image/png; name=a.png\r\n\r\n",
        b"\r\n--b--\r\n",
    ]
)
_LINES = st.sampled_from(
    [
        "Yes, go ahead.",
        "On Mon, Nov 30, 2026 at 10:00 AM Builder <b@x> wrote:",
        "Am Mo., 30. Nov. 2026 um 10:00 Uhr schrieb Builder <b@x>:",
        "From: Builder",
        "Sent: Monday",
        "-----Original Message-----",
        "________________________________",
        "> quoted",
        ">> deeper",
        "-- ",
        "Sent from my iPhone",
        "",
        "    indented code",
    ]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(_HEADERS, st.binary(max_size=80)), max_size=12))
def test_any_bytes_parse_without_raising(pieces: list[bytes]) -> None:
    raw = b"".join(pieces)
    submitted = parse_submitted(raw)
    message = BytesParser(policy=policy.default).parsebytes(raw)
    assert isinstance(message, EmailMessage)
    assert len(submitted.body) <= len(body_text(message))
    assert sum(len(f.data) for f in submitted.attachments) <= len(raw)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_LINES, st.text(max_size=60)), max_size=30))
def test_new_text_is_lines_of_the_body_and_never_longer(lines: list[str]) -> None:
    text = "\n".join(lines)
    result = strip_history(text)
    assert len(result) <= len(text)
    assert bool(result.strip()) == bool(text.strip())
    if result != text.strip():  # else: the whole text kept
        lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        assert set(result.split("\n")) <= {line.rstrip() for line in lines}


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=400))
def test_plain_messages_keep_their_text_length_bound(text: str) -> None:
    message = EmailMessage()
    message["Subject"] = "x"
    message.set_content(text)
    assert len(new_text(message)) <= len(body_text(message)) <= len(text) + 1


_REPLY_LINES = st.sampled_from(
    [
        "On Mon, 30 Nov 2026 at 10:00, Jian Feng <jianf@agentmail.localhost> wrote:",
        "On Mon, 30 Nov 2026 at 10:00, Jian Feng",
        "<jianf@agentmail.localhost> wrote:",
        "Am 30.11.2026 um 10:00 schrieb Jian <j@x>:",
        "Le lun. 30 nov. 2026 à 10:00, Jian <j@x> a écrit :",
        "From: Jian Feng <j@x>",
        "Sent: Monday, November 30, 2026 10:00 AM",
        "Subject: Re: the router",
        "-----Original Message-----",
        "2026年11月30日 10:00 Jian <j@x> 写道\uff1a",
        "> quoted line",
        "> On Sun, Jan 1, 2026 at 9:00 AM Bob <b@x> wrote:",
        "Note: the deploy is at 10:00.",
        "plain words",
        "",
    ]
)


def _first_header_in_whole_text(lines: list[str]) -> tuple[int, int] | None:
    """The reference: the library's pattern searched over the whole text at once."""
    shown = [line.strip() for line in lines]
    text = "\n".join(line if len(line) <= HEADER_LINE_CHARS else "" for line in shown)
    match = _HEADER.search(text)
    if match is None:
        return None
    begin = match.start()
    while begin < match.end() and text[begin] == "\n":
        begin += 1
    start = text.count("\n", 0, begin)
    return start, max(text.count("\n", 0, match.end()) + 1, start + 1)


# Lines as new_text.py makes them (split at "\n"): none holds a "\n" itself (one that
# did would shift the reference's line count, not the code's: a generator's defect).
_ONE_LINE = st.text(alphabet=st.characters(blacklist_characters="\n"), max_size=40)


@given(st.lists(_REPLY_LINES | _ONE_LINE, max_size=30))
@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
def test_the_windowed_header_search_finds_what_a_whole_text_search_finds(
    lines: list[str],
) -> None:
    assert _first_header(lines) == _first_header_in_whole_text(lines)
