"""`BODY[n]` and BODYSTRUCTURE's sizes and lines as RFC 2046 §5.1.1 and Dovecot read them.

The line break before a boundary delimiter belongs to the delimiter: a part's body
ends before it, so its size has no +2 and `BODY[n]` does not end with it. A text
part's line count is the number of line feeds in its body (Dovecot's count; pymap
counted a last line without a line break too). An empty part body is empty (pymap
served the whole message up to its last byte), and a part whose header runs into the
delimiter has a header and an empty body.
"""

from __future__ import annotations

import asyncio
import smtplib

from imapclient.response_parser import parse_fetch_response

from tests.support.gateway import PASSWORD, Api
from tests.support.imap import fetched, imap_login

D = "agentmail.localhost"


def _message(user: str) -> bytes:
    return (
        f"From: {user}\r\nTo: {user}\r\nSubject: parts\r\nMessage-ID: <parts@x.example>\r\n"
        "Date: Tue, 01 Dec 2026 10:00:00 +0000\r\nMIME-Version: 1.0\r\n"
        'Content-Type: multipart/mixed; boundary="outer"\r\n\r\n'
        "preamble\r\n"
        "--outer\r\n"
        "Content-Type: text/plain; charset=us-ascii\r\n\r\n"
        "one\r\ntwo\r\n"  # ends with a line break of its own, then the delimiter's
        "\r\n--outer\r\n"
        "Content-Type: text/plain; charset=us-ascii\r\n\r\n"
        "no final line break"
        "\r\n--outer\r\n"
        "Content-Type: text/plain; charset=us-ascii\r\n\r\n"  # an empty body
        "\r\n--outer\r\n"
        'Content-Type: multipart/alternative; boundary="inner"\r\n\r\n'
        "--inner\r\n"
        "Content-Type: text/html; charset=us-ascii\r\n\r\n"
        "<p>hi</p>"
        "\r\n--inner--\r\n"
        "\r\n--outer--\r\n"
        "epilogue\r\n"
    ).encode()


def _single(user: str) -> bytes:
    return (
        f"From: {user}\r\nTo: {user}\r\nSubject: single\r\nMessage-ID: <single@x.example>\r\n"
        "Date: Tue, 01 Dec 2026 10:01:00 +0000\r\n\r\n"
        "line one\r\nline two\r\n"
    ).encode()


def _deliver(port: int, user: str, messages: list[bytes]) -> None:
    with smtplib.SMTP("127.0.0.1", port, timeout=60) as client:
        client.login(user, PASSWORD)
        for raw in messages:
            client.sendmail(user, [user], raw)


async def test_parts_end_before_the_delimiters_line_break(api: Api) -> None:
    await api.human("alice")
    user = f"alice@{D}"
    await asyncio.to_thread(_deliver, api.gateway.smtp_port, user, [_message(user), _single(user)])
    sections = ["1", "2", "3", "4.1"]
    async with imap_login(api.gateway, "alice") as imap:
        await imap.ok("select", "INBOX")
        items = " ".join(f"BODY.PEEK[{s}]" for s in sections)
        bodies = fetched(await imap.uid("FETCH", "1", f"({items})"))[1]
        single = fetched(await imap.uid("FETCH", "2", "(BODY.PEEK[1] BODY.PEEK[TEXT])"))[2]
        data = await imap.uid("FETCH", "1:2", "(BODYSTRUCTURE)")
    assert bodies["BODY[1]"] == b"one\r\ntwo\r\n"
    assert bodies["BODY[2]"] == b"no final line break"
    assert bodies.get("BODY[3]", b"") == b""
    assert bodies["BODY[4.1]"] == b"<p>hi</p>"
    assert single["BODY[1]"] == single["BODY[TEXT]"] == b"line one\r\nline two\r\n"

    structures = parse_fetch_response(data)
    multipart = structures[1][b"BODYSTRUCTURE"]
    one, two, three, four = multipart[0]
    assert (one[6], one[7]) == (10, 2)  # size, lines
    assert (two[6], two[7]) == (19, 0)
    assert (three[6], three[7]) == (0, 0)
    html = four[0][0]
    assert (html[6], html[7]) == (9, 0)
    plain = structures[2][b"BODYSTRUCTURE"]
    assert (plain[6], plain[7]) == (20, 2)
