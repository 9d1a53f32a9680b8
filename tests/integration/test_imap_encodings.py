"""Messages a client APPENDs with what the wire allows: an empty Sender, the `binary`
encoding, quoted-printable with transport padding, base64 with junk, an encoding no
one knows. Each FETCH answers (never a dropped connection), as RFC 3501 and RFC 3516
say and as Dovecot answers (imaptest's append-binary, fetch-envelope and
fetch-binary-mime-qp groups found these)."""

from __future__ import annotations

import re

from tests.support.gateway import Api
from tests.support.imap import imap_login

QP = (
    b"From: a@example.org\r\nMIME-Version: 1.0\r\nContent-Type: text/plain\r\n"
    b"Content-Transfer-Encoding: quoted-printable\r\n\r\n"
    b"hello  \r\nbar=\r\n\r\nfoo\t=\r\nbar\r\nfoo\t \t= \r\n=62\r\nfoo = \t\r\nbar\r\n"
)
MESSAGES = {
    "empty sender": b"From: user@domain (Real Name)\r\nSender: \r\nReply-To: \r\n\r\nbody\r\n",
    "route": b"From: <@route:user@domain>\r\n\r\nbody\r\n",
    "binary": b"Content-Transfer-Encoding: binary\r\n\r\nhello\x00world\r\n",
    "base64 junk": b"Content-Transfer-Encoding: base64\r\n\r\naGVs*bG8=\r\n!!\r\n",
    "unknown": b"Content-Transfer-Encoding: x-uuencode\r\n\r\nbegin 644 a\r\n",
}


async def test_every_message_fetches_and_the_session_goes_on(api: Api) -> None:
    await api.human("jianf")
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("create", "Odd")
        for raw in MESSAGES.values():
            await imap.ok("append", "Odd", None, None, raw)
        await imap.ok("select", "Odd")
        envelopes = await imap.ok("fetch", "1:*", "(ENVELOPE BODYSTRUCTURE)")
        assert len([e for e in envelopes if isinstance(e, bytes)]) == len(MESSAGES)
        # RFC 3501 §7.4.2: an empty Sender and Reply-To are the From member.
        members = re.findall(rb'\(\([^()]*"user" "domain"\)\)', envelopes[0])
        assert len(members) == 3 and len(set(members)) == 1, envelopes[0]
        binary = await imap.ok("fetch", "3", "(BINARY.PEEK[1])")
        assert binary[0][1] == b"hello\x00world\r\n"
        base64 = await imap.ok("fetch", "4", "(BINARY.PEEK[1])")
        assert base64[0][1] == b"hello"
        typ, data = await imap("fetch", "5", "(BINARY.PEEK[1])")
        assert typ == "NO" and data[0].startswith(b"[UNKNOWN-CTE]"), data
        await imap.ok("noop")


async def test_quoted_printable_loses_its_transport_padding(api: Api) -> None:
    """RFC 2045 §6.7: trailing white space is deleted, `=` at a line's end joins lines."""
    await api.human("jianf")
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("append", "INBOX", None, None, QP)
        await imap.ok("select", "INBOX")
        [size] = await imap.ok("fetch", "1", "(BINARY.SIZE[1])")
        data = await imap.ok("fetch", "1", "(BINARY.PEEK[1])")
    decoded = b"hello\r\nbar\r\nfoo\tbar\r\nfoo\t \tb\r\nfoo bar\r\n"
    assert data[0][1] == decoded
    assert size.endswith(b"(BINARY.SIZE[1] %d)" % len(decoded)), size
