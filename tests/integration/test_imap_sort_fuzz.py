"""SORT, THREAD and SEARCH RETURN lines, malformed and random: always an answer, a live gateway.

In the style of test_imap_fuzz.py: every line gets its tagged OK, NO or BAD (never
`SERVERBUG` or a closed connection), a NOOP works after it, and the whole gateway (in a
thread, so a hung loop fails the check instead of the test) still serves HTTP, SMTP and
IMAP with its loop never stalled and its memory bounded (tests/support/liveness.py).
The mailbox holds messages delivered by SMTP (keys parsed from their headers) and
written over REST (keys from columns; SIZE renders them), in INBOX and in Drafts.
"""

from __future__ import annotations

import asyncio
import functools
import imaplib
from pathlib import Path

import pytest
from hypothesis import strategies as st

from tests.support.fuzzing import drawn, examples
from tests.support.gateway import PASSWORD, Api
from tests.support.imap_replay import replay
from tests.support.liveness import baseline
from tests.support.sort_corpus import SENDERS, deliver, sort_corpus
from tests.support.threaded import gateway_in_thread

pytestmark = pytest.mark.fuzz


async def _mailbox(api: Api) -> None:
    for name in SENDERS:
        await api.human(name)
    builder = await api.agent("builder")
    for subject in ("Re: plan", "plan", "Fwd: [x] other (fwd)"):
        sent = await builder.post(
            "/api/v1/mail/send", json={"to": "alice@", "subject": subject, "body": subject}
        )
        assert sent.status_code == 200, sent.text
    await asyncio.to_thread(deliver, api.gateway.smtp_port, sort_corpus()[:12])
    draft = b"Subject: a draft\r\n\r\ntext\r\n"
    await asyncio.to_thread(_append_draft, api.gateway.imap_port, draft)


def _append_draft(port: int, draft: bytes) -> None:
    with imaplib.IMAP4("127.0.0.1", port) as client:
        client.login("alice", PASSWORD)
        client.append("Drafts", None, None, draft)


# The lines written by hand first: each corner of RFC 5256 §4's and RFC 4731's grammar.
CORNERS = [
    b"SORT (DATE) UTF-8 ALL", b"UID SORT (REVERSE SIZE SUBJECT) US-ASCII 1:*",
    b"SORT (ARRIVAL CC DATE FROM SIZE SUBJECT TO) UTF-8 ALL", b"SORT (SIZE) {5+}\r\nUTF-8 ALL",
    b"SORT (DATE) UTF-8 SUBJECT {3+}\r\n\xe2\x82\xac", b"SORT (DATE) UTF-8 MODSEQ 1",
    b"SORT (DATE) \"\" ALL", b"SORT (DATE) UTF-16 ALL", b"SORT () UTF-8 ALL", b"SORT (DATE)",
    b"SORT (" + b"REVERSE " * 2000 + b"DATE) UTF-8 ALL", b"SORT (DATE) UTF-8 " + b"(" * 5000,
    b"SORT (DATE) UTF-8 " + b"NOT " * 5000 + b"ALL", b"SORT (DATE) UTF-8 " + b"ALL " * 5000,
    b"THREAD REFERENCES UTF-8 ALL", b"UID THREAD ORDEREDSUBJECT UTF-8 OR SEEN UNSEEN",
    b"THREAD references utf-8 (SUBJECT plan NOT DELETED)", b"THREAD REFS UTF-8 ALL",
    b"THREAD REFERENCES", b"THREAD REFERENCES UTF-8", b"THREAD ORDEREDSUBJECT BOGUS ALL",
    b"SEARCH RETURN (MIN MAX ALL COUNT) ALL", b"UID SEARCH RETURN () UNSEEN",
    b"SEARCH RETURN (SAVE) ALL", b"SEARCH RETURN (MIN", b"SEARCH RETURN ALL",
    b"SEARCH RETURN (COUNT) MODSEQ 1", b"SEARCH RETURN (MIN) CHARSET BOGUS ALL",
    b"SORT RETURN (MIN MAX ALL COUNT) (DISPLAYFROM) UTF-8 ALL", b"SORT RETURN () (DATE) UTF-8",
    b"UID SORT RETURN (ALL) (REVERSE DISPLAYTO) UTF-8 MODSEQ 1",
    b"SORT RETURN (SAVE) (DATE) UTF-8 ALL",
    b"SORT RETURN (MIN (DATE) UTF-8 ALL", b"SORT RETURN (MIN) UTF-8 ALL",
]  # fmt: skip
COMMANDS = [
    b"SORT", b"UID SORT", b"SORT RETURN", b"THREAD", b"UID THREAD", b"SEARCH RETURN", b"UID SEARCH",
]  # fmt: skip
WORDS = [
    b"(", b")", b"(DATE)", b"(REVERSE SUBJECT FROM)", b"(SIZE TO CC ARRIVAL)", b"REVERSE",
    b"DATE", b"SUBJECT", b"SIZE", b"(DISPLAYFROM DISPLAYTO)", b"ORDEREDSUBJECT", b"REFERENCES",
    b"UTF-8", b"US-ASCII",
    b"BOGUS", b'"UTF-8"', b"ALL", b"UNSEEN", b"NOT", b"OR", b"SUBJECT plan", b"MODSEQ 1",
    b"1:*", b"*", b"0", b"4294967296", b"(MIN MAX)", b"()", b"(COUNT ALL)", b"RETURN",
    b"SINCE 1-Jan-2020", b"LARGER 10", b"HEADER X-Y z", b"\"", b"\\", b"\xff", b"[", b"",
]  # fmt: skip
_noise = st.binary(max_size=10).map(lambda b: b.replace(b"\r", b"").replace(b"\n", b""))
_token = st.one_of(
    st.sampled_from(WORDS),
    st.sampled_from(WORDS),
    _noise,
    st.binary(max_size=12).map(lambda b: b"{%d+}\r\n%b" % (len(b), b)),  # LITERAL+
)
_line = st.tuples(st.sampled_from(COMMANDS), st.lists(_token, max_size=8)).map(
    lambda t: b" ".join([t[0], *t[1]])
)


@functools.cache
def sort_lines(count: int) -> list[bytes]:
    """`count` SORT, THREAD and SEARCH RETURN lines drawn by hypothesis, the same every
    CI run."""
    return drawn(_line, count)


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
async def test_sort_thread_and_esearch_lines_never_stop_the_gateway(
    backend: str, tmp_path: Path
) -> None:
    cases = CORNERS + sort_lines(examples(150))
    with gateway_in_thread(backend, tmp_path, _mailbox) as (running, _):
        since = await baseline(running)
        await replay(running, cases, login=True, since=since)
        await replay(running, CORNERS[:6] + CORNERS[14:16], login=True, mailbox=b"Drafts")
        await replay(running, CORNERS[:3], login=False)  # before login: BAD, nothing else
