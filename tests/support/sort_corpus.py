"""Messages whose headers exercise SORT and THREAD (RFC 5256), and their delivery by SMTP.

Each is `(sender, bytes)`: the gateway user who submits it (SMTP accepts only a From
of the submitter, so From varies by sender: alice, bob, carol, dave, their display
names and the address's case), to alice. The subjects cover the base subject's steps
(§2.1: Re/Fwd leaders with blobs, `(fwd)` trailers, `[fwd: …]`, encoded-words, case,
white space, none at all), the dates §2.2's fallbacks (zones, two-digit years, no day
name, `.` in the time, one that cannot be read, equal ones), To and Cc their first
mailbox (groups, quoted local parts, display names, none), and the identifiers
THREAD=REFERENCES links by (§3: chains, a missing parent and a missing middle,
In-Reply-To alone, a duplicate Message-ID, a loop, a self-reference, an invalid one,
subjects that merge threads). Used by tests/integration/test_imap_sort.py and the
Dovecot differential test, which adds `edge_corpus`: corners of the same readings.
"""

from __future__ import annotations

import smtplib
from itertools import groupby

from tests.support.gateway import PASSWORD

__all__ = ["SENDERS", "deliver", "edge_corpus", "sort_corpus"]

D = "agentmail.localhost"
SENDERS = ("alice", "bob", "carol", "dave")

# (sender, From, To, Cc, Subject, Date, Message-ID, References, In-Reply-To, body lines);
# None leaves the field out (From and Message-ID SMTP adds when missing, Date too).
_Row = tuple[str, str, str | None, str | None, str | None, str, str, str | None, str | None, int]
_ROWS: list[_Row] = [
    ("bob", f"Bob <bob@{D}>", f"alice@{D}", None, "Quarterly plan",
     "Mon, 02 Mar 2020 09:00:00 +0000", "<q1@x.example>", None, None, 3),
    ("carol", f"carol@{D}", f"Alice <alice@{D}>", f"bob@{D}", "Re: Quarterly plan",
     "Mon, 02 Mar 2020 11:30:00 +0200", "<q2@x.example>", "<q1@x.example>", None, 9),
    ("alice", f"\"Alice A.\" <alice@{D}>", "zed@example.com", f"dave@{D}, bob@{D}",
     "RE: Fwd: quarterly PLAN", "2 Mar 2020 10:00 -0500", "<q3@x.example>",
     "<q1@x.example> <q2@x.example>", None, 1),
    ("dave", f"dave@{D}", "undisclosed-recipients:;", None, "[plans] Re: Quarterly plan",
     "Tue, 03 Mar 20 08:15:00 GMT", "<q4@x.example>", None, "<q3@x.example>", 20),
    ("bob", f"Bob <bob@{D}>", "\"Mx. Q\" <quinn@example.com>", None,
     "=?utf-8?q?Caf=C3=A9_menu?=", "Wed, 04 Mar 2020 12:00:00 +0100", "<m1@x.example>",
     None, None, 5),
    ("carol", f"carol@{D}", "\"a b\"@example.com", "Zoe <zoe@example.com>",
     "Re: =?utf-8?b?Q2Fmw6kgbWVudQ==?= (fwd)", "Wed, 04 Mar 2020 12:00:00 +0100",
     "<m2@x.example>", "<m-missing@x.example> <m1@x.example>", None, 2),
    ("alice", f"alice@{D}", "Yann <yann@example.com>", None, "[fwd: Café menu]",
     "Thu, 05 Mar 2020 07:00:00 EST", "<m3@x.example>", "<gone@x.example>", None, 7),
    ("dave", f"Dave <DAVE@{D}>", "bob@example.com", None, "Launch",
     "Fri, 06 Mar 2020 18:45:10 -0800", "<l1@x.example>", None, None, 4),
    ("bob", f"bob@{D}", "carol@example.com", f"alice@{D}", "Launch",
     "not a date at all", "<l2@x.example>", None, None, 6),
    ("carol", f"carol@{D}", "Bob <bob@example.com>", None, "Re: Launch",
     "Sat, 07 Mar 2020 9.05 +0000", "<l3@x.example>", "<l1@x.example>", None, 1),
    ("alice", f"alice@{D}", "dave@example.com", None, "Fw[info]: Launch",
     "07 Mar 2020 09:05:00 +0000", "<l4@x.example>", "<l2@x.example>", None, 11),
    ("bob", f"bob@{D}", "Erin <erin@example.com>", None, "loop one",
     "Sun, 08 Mar 2020 10:00:00 +0000", "<a@loop.example>", "<b@loop.example>", None, 2),
    ("carol", f"carol@{D}", "erin@example.com", None, "loop two",
     "Sun, 08 Mar 2020 10:01:00 +0000", "<b@loop.example>", "<a@loop.example>", None, 2),
    ("dave", f"dave@{D}", "frank@example.com", None, "self",
     "Sun, 08 Mar 2020 11:00:00 +0000", "<s@x.example>", "<s@x.example>", None, 3),
    ("alice", f"alice@{D}", "gus@example.com", None, "Duplicate id",
     "Mon, 09 Mar 2020 08:00:00 +0000", "<dup@x.example>", None, None, 2),
    ("bob", f"bob@{D}", "hal@example.com", None, "Duplicate id again",
     "Mon, 09 Mar 2020 08:00:00 +0000", "<dup@x.example>", None, None, 8),
    ("carol", f"carol@{D}", "ivy@example.com", None, "Re: Duplicate id",
     "Mon, 09 Mar 2020 09:00:00 +0000", "<d3@x.example>", "<dup@x.example>", None, 1),
    ("dave", f"dave@{D}", "jo@example.com", None, "",
     "Tue, 10 Mar 2020 10:00:00 +0000", "not-a-message-id", None, None, 5),
    ("alice", f"alice@{D}", None, None, None,
     "Tue, 10 Mar 2020 10:00:00 +0000", "<nosub@x.example>", None, None, 1),
    ("bob", f"bob@{D}", "kim@example.com", None, "  re:   [x]  spaced   out  (FWD)",
     "Wed, 11 Mar 2020 23:59:59 -1200", "<w1@x.example>", None, "<nowhere@x.example>", 3),
    ("carol", f"carol@{D}", "lee@example.com", None, "Spaced out",
     "Thu, 12 Mar 2020 11:59:59 +1200", "<w2@x.example>", None, None, 12),
    ("dave", f"dave@{D}", "mo@example.com", None, "Ünïcode Straße",
     "Fri, 13 Mar 2020 13:00:00 +0000", "<u1@x.example>", None, None, 2),
    ("alice", f"alice@{D}", "Nia <nia@example.com>", None, "Re: ünïcode straße",
     "Fri, 13 Mar 2020 14:00:00 +0000", "<u2@x.example>", "<u-root@x.example>", None, 4),
    ("bob", f"bob@{D}", "oz@example.com", None, "Re: Re: Re: deep",
     "Sat, 14 Mar 2020 10:00:00 +0000", "<r3@x.example>",
     "<r0@x.example> <r1@x.example> <r2@x.example>", None, 1),
    ("carol", f"carol@{D}", "pat@example.com", None, "deep",
     "Sat, 14 Mar 2020 09:00:00 +0000", "<r1@x.example>", "<r0@x.example>", None, 2),
]  # fmt: skip


def _message(row: _Row, number: int) -> bytes:
    _, sender, to, cc, subject, date, message_id, references, reply_to, lines = row
    fields = [f"From: {sender}"]
    fields += [f"To: {to}"] if to is not None else []
    fields += [f"Cc: {cc}"] if cc is not None else []
    fields += [f"Subject: {subject}"] if subject is not None else []
    fields += [f"Date: {date}", f"Message-ID: {message_id}"]
    fields += [f"References: {references}"] if references is not None else []
    fields += [f"In-Reply-To: {reply_to}"] if reply_to is not None else []
    fields += ["MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8"]
    body = "".join(f"Line {i} of message {number}.\r\n" for i in range(lines))
    return ("\r\n".join(fields) + "\r\n\r\n" + body).encode()


def sort_corpus() -> list[tuple[str, bytes]]:
    """(sender, message) in the order they are delivered: sequence order."""
    return [(row[0], _message(row, number)) for number, row in enumerate(_ROWS, 1)]


# Corners found against Dovecot (each answered alike), bob's to alice: (Subject, To, Date).
_EDGES = [
    ("Re: [fwd: Re: x]", '"a\\"b"@x.example', "Thu, 01 Jan 1970 00:00:01 +0000"),
    ("[fwd: x] (fwd)", "<@route.example:a@b.example>", "1 Jan 71 00:00:00 +0000"),
    ("Fwd[x]: y", "a.b..c@x.example", "Mon, 1 Feb 2021 10:00:00 +0000 (UTC)"),
    ("re re: x", "Foo Bar", "Mon, 1 Feb 2021 10:00:00 a"),
    ("RE:  : x", "<>", "Mon, 1 Feb 2021 10:00:00 z"),
    ("[] x", "foo", "Mon, 1 Feb 2021 10:00:00 m"),
    ("[a] [b]", "(only a comment)", "Mon, 1 Feb 2021 10:00:00 N"),
    ("=?utf-8?q?=5Bfwd=3A_x=5D?=", "group: a@x.example, b@x.example;",
     "Mon,1 Feb 2021 10:00 +0100"),
    ("tab\there", "=?utf-8?q?N=C3=A9?= <ne@x.example>", "1 Feb 2021 10:00:61 +0000"),
    ("ﬁsh and chips", "ÉLODIE@x.example", "1 Feb 2021 10:00 +0000 extra"),
    ("ǆungla", "élodie@x.example", "Feb 1 2021 10:00:00"),
    ("Ⓐ circled", "Émile <emile@x.example>", "2021-02-01T10:00:00Z"),
    ("X (Fwd)", '"" <q@x.example>', "1 Feb 2105 10:00:00 +0000"),
    ("fw: Fw:fw :x", "Zed <zed@x.example>, amy@x.example", "31 Dec 1999 23:59:59 +1400"),
    ("=?iso-8859-1?q?=E9t=E9?=", "elodie@x.example", "1 Jan 2000 00:00:00 -1100"),
    ("=?utf-8?b?invalid***?=", "x@y.example", "Sat, 29 Feb 2020 12:00:00 +0000"),
    ("Re: =?utf-8?q?x?==?utf-8?q?y?=", "x@y.example", "Sun, 29 Feb 2021 12:00:00 +0000"),
    ("[fwd: [fwd: deep]]", "x@y.example", "1 Feb 2021 10:00:00 +0000"),
    ("re:[fwd: re: [list] deep (fwd)](fwd)", "x@y.example", "1 Feb 2021 10:00:00 +0000"),
    ("Re[2]:Re[3]: y", "x@y.example", "1 Feb 2021 09:59:59 +0000"),
]  # fmt: skip


def edge_corpus() -> list[tuple[str, bytes]]:
    """The corners of `_EDGES`, each a message of its own (Message-IDs <e1@x> …)."""
    return [
        (
            "bob",
            f"From: bob@{D}\r\nTo: {to}\r\nSubject: {subject}\r\nDate: {date}\r\n"
            f"Message-ID: <e{n}@x>\r\n\r\nbody {n}\r\n".encode(),
        )
        for n, (subject, to, date) in enumerate(_EDGES, 1)
    ]


def deliver(port: int, messages: list[tuple[str, bytes]], to: str = "alice") -> None:
    """Each message submitted by its sender to `to`, in order (sync: run in a thread)."""
    for sender, group in groupby(messages, key=lambda item: item[0]):
        with smtplib.SMTP("127.0.0.1", port, timeout=60) as client:
            client.login(sender, PASSWORD)
            for _, raw in group:
                client.sendmail(f"{sender}@{D}", [f"{to}@{D}"], raw)
