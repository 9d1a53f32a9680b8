"""Binary content as Dovecot 2.3 serves it (RFC 3516; imaptest's append-binary found the
gateway writing a NUL into a `BODY[1]` literal).

The same messages are APPENDed to the gateway and to Dovecot (tests/support/dovecot.py),
then asked the same FETCHes; the answers are the same:

- APPENDed as a literal8 (`~{n}`, RFC 3516 §4.4), a part whose Content-Transfer-Encoding
  is `binary` is stored base64 (its field says so where it stood, 76-column lines), so
  `BODY[]`, `BODY[n]`, RFC822.SIZE and BODYSTRUCTURE show base64 and `BINARY[n]` gives
  the octets back; a multipart marked `binary` stays as it is;
- a message holding a NUL that came as a plain literal is served with 0x80 in its place
  in every `BODY[…]` (RFC 3501 §9: no NUL in a literal), and as it is by `BINARY[…]`;
- `BINARY[]` of a whole message decodes every quoted-printable and base64 part and
  says `Content-Transfer-Encoding: binary` last in its header (pymap kept the header,
  and decoded a single part only).

A message/rfc822 part marked `binary` differs, by design: Dovecot marks it base64 and
leaves its message as it is (a body no client can decode), the gateway leaves it as it
came; a field folded over two lines is not converted by either, and Dovecot then cannot
read it at all (`NO [UNKNOWN-CTE]`), the gateway reads it `binary`. Both databases: the
conversion happens before the message is stored.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.dovecot import running_dovecot
from tests.support.gateway import PASSWORD, Api
from tests.support.imap_values import Value, fetch_items
from tests.support.tagged import TaggedClient, tagged_client

OCTETS = bytes(range(256)) * 2  # NUL, CR and LF among them; 512 octets, 10 base64 lines
LITERAL8 = [
    (  # imaptest's append-binary message
        b"From: user@domain.org\r\nDate: Sat, 24 Mar 2007 23:00:00 +0200\r\nMime-Version: 1.0\r\n"
        b"Content-Type: application/octet-stream\r\nContent-Transfer-Encoding: binary\r\n\r\n"
        b"\x00-\xe4\n\r\n\n"
    ),
    (
        b"From: a@example.org\r\nSubject: parts\r\nMIME-Version: 1.0\r\n"
        b"Content-Type: multipart/mixed; boundary=b\r\n\r\npreamble\r\n"
        b"--b\r\nContent-Transfer-Encoding: binary\r\nContent-Type: application/octet-stream\r\n"
        b"\r\n" + OCTETS + b"\r\n"
        b"--b\r\nContent-Type: text/plain\r\nContent-Transfer-Encoding: BINARY\r\n\r\nhello\r\n"
        b"--b\r\nContent-Type: multipart/alternative; boundary=c\r\n"
        b"Content-Transfer-Encoding: binary\r\n\r\n--c\r\n\r\nx\x00y\r\n--c--\r\n"
        b"--b\r\nContent-Type: text/plain\r\nContent-Transfer-Encoding: 8bit\r\n\r\n\xc3\xa9\r\n"
        b"--b--\r\nepilogue\r\n"
    ),
]
PLAIN = [
    b"From: a@example.org\r\nSubject: nul\r\n\r\nhello\x00world\r\n",
    (
        b"From: a@example.org\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n"
        b"\r\n--b\r\nContent-Type: text/plain\r\nContent-Transfer-Encoding: base64\r\n\r\n"
        b"aGVsbG8gd29ybGQ=\r\n--b\r\nContent-Type: text/plain\r\n"
        b"Content-Transfer-Encoding: quoted-printable\r\nX-After: 1\r\n\r\nhi=3Dthere=\r\nx\r\n"
        b"--b\r\nContent-Type: message/rfc822\r\n\r\nSubject: in\r\nMIME-Version: 1.0\r\n"
        b"Content-Transfer-Encoding: base64\r\n\r\naW5uZXI=\r\n--b--\r\n"
    ),
    (
        b"From: a@example.org\r\nMIME-Version: 1.0\r\nContent-Transfer-Encoding: base64\r\n"
        b"\r\naGVsbG8gd29ybGQ=\r\n"
    ),
]
ITEMS = [
    b"RFC822.SIZE", b"BODYSTRUCTURE", b"BODY.PEEK[]", b"BODY.PEEK[TEXT]", b"BODY.PEEK[1]",
    b"BODY.PEEK[2]", b"BODY.PEEK[1.MIME]", b"BINARY.PEEK[1]", b"BINARY.SIZE[1]",
    b"BINARY.PEEK[2]", b"BINARY.PEEK[]", b"BINARY.SIZE[]",
]  # fmt: skip


def _dovecots_own_size(answers: dict[bytes, Value], name: bytes) -> bool:
    """A BINARY.SIZE of Dovecot's that is not the size of its own BINARY literal (it
    counts 509 for the 512 octets of `OCTETS`): not compared."""
    decoded = answers.get(name.replace(b".SIZE", b""))
    return name.startswith(b"BINARY.SIZE") and not (
        isinstance(decoded, bytes) and answers[name] == len(decoded)
    )


async def _answers(client: TaggedClient) -> list[dict[bytes, Value]]:
    await client.command(b"CREATE binary")
    for message in LITERAL8:
        await client.command(b"APPEND binary", message, literal8=True)
    for message in PLAIN:
        await client.command(b"APPEND binary", message)
    await client.command(b"SELECT binary")
    answers = []
    for n in range(1, len(LITERAL8) + len(PLAIN) + 1):
        fetched = await client.command(b"FETCH %d (%s)" % (n, b" ".join(ITEMS)))
        [found] = fetch_items(fetched).values()
        answers.append({name.replace(b".PEEK", b""): value for name, value in found.items()})
    await client.close()
    return answers


async def test_binary_content_is_served_as_dovecot_serves_it(api: Api, tmp_path: Path) -> None:
    await api.human("alice")
    ours = await _answers(await tagged_client(api.gateway.imap_port, "alice", PASSWORD))
    async with running_dovecot(tmp_path / "dovecot", plaintext=True) as dovecot:
        theirs = await _answers(await tagged_client(dovecot.port, dovecot.user, dovecot.password))
    differences = [
        (n, name, mine.get(name), dovecots.get(name))
        for n, (mine, dovecots) in enumerate(zip(ours, theirs, strict=True), 1)
        for name in sorted(set(mine) | set(dovecots))
        if mine.get(name) != dovecots.get(name) and not _dovecots_own_size(dovecots, name)
    ]
    assert not differences, differences
    for answers in ours:  # RFC 3516 §4.2: the size of what BINARY gives
        for name, value in answers.items():
            if name.startswith(b"BINARY.SIZE"):
                decoded = answers[name.replace(b".SIZE", b"")]
                assert isinstance(decoded, bytes) and value == len(decoded), (name, answers)
    assert b"\x00" not in b"".join(
        value for answers in ours for name, value in answers.items()
        if name.startswith(b"BODY[") and isinstance(value, bytes)
    )  # fmt: skip
    assert ours[1][b"BINARY[1]"] == OCTETS
    assert ours[2][b"BODY[]"] == PLAIN[0].replace(b"\x00", b"\x80")


async def test_what_dovecot_gets_wrong_is_kept_as_it_came(api: Api) -> None:
    """A message/rfc822 part marked `binary` stays so (RFC 2046 §5.2.1: such a part is
    7bit, 8bit or binary; Dovecot marks it base64 and leaves its message as it is), and a
    folded field is read unfolded: `binary`, not converted (Dovecot cannot read it)."""
    await api.human("alice")
    message = (
        b"From: a@example.org\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b"
        b"\r\n\r\n--b\r\nContent-Type: message/rfc822\r\nContent-Transfer-Encoding: binary\r\n"
        b"\r\nSubject: in\r\nContent-Transfer-Encoding: binary\r\n\r\nbody\x00\r\n"
        b"--b\r\nContent-Transfer-Encoding:\r\n binary\r\n\r\nfolded\x00\r\n--b--\r\n"
    )
    client = await tagged_client(api.gateway.imap_port, "alice", PASSWORD)
    await client.command(b"APPEND INBOX", message, literal8=True)
    await client.command(b"SELECT INBOX")
    fetched = await client.command(b"FETCH 1 (BINARY.PEEK[] BODY.PEEK[1] BINARY.PEEK[2])")
    [items] = fetch_items(fetched).values()
    await client.close()
    inner = b"Subject: in\r\nContent-Transfer-Encoding: base64\r\n\r\nYm9keQA="  # body\0
    assert items[b"BODY[1]"] == inner  # the message it carries has its own part converted
    assert items[b"BINARY[2]"] == b"folded\x00"
    assert items[b"BINARY[]"] == message  # the carried part decoded again
