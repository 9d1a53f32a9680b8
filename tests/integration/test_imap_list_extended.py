"""LIST-EXTENDED (RFC 5258), SPECIAL-USE selection (RFC 6154) and LIST-STATUS (RFC 5819):
`LIST (SPECIAL-USE)` and `LIST … RETURN` answered as those RFCs say."""

from __future__ import annotations

import re

from imapclient.response_parser import parse_response

from tests.support.gateway import Api
from tests.support.http import ok
from tests.support.raw_imap import RawImap


def _lists(reply: list[bytes]) -> dict[str, tuple[set[str], bytes]]:
    """Each `* LIST` line by mailbox name: its attributes and any extended data,
    read with imapclient's response parser."""
    found = {}
    for line in reply:
        if line.startswith(b"* LIST "):
            flags, _, name, *extended = parse_response([line[len(b"* LIST ") :].rstrip()])
            found[name.decode()] = ({f.decode() for f in flags}, repr(extended).encode())
    return found


def _statuses(reply: list[bytes]) -> dict[str, dict[str, int]]:
    found = {}
    for line in reply:
        match = re.match(rb'\* STATUS ("?)(.+?)\1 \((.*)\)\r\n', line)
        if match:
            items = match.group(3).split()
            found[match.group(2).decode()] = {
                items[i].decode(): int(items[i + 1]) for i in range(0, len(items), 2)
            }
    return found


async def test_list_extended_selects_returns_and_counts(api: Api) -> None:
    await api.human("jianf")
    builder = await api.agent("builder")
    body = {"to": "jianf@", "subject": "one", "body": "hi", "session_alias": "chat"}
    first = ok(await builder.post("/api/v1/mail/send", json=body))
    reply = {"to": "jianf@", "subject": "two", "body": "hi", "reply_to": first["mail_id"]}
    ok(await builder.post("/api/v1/mail/send", json=reply))
    raw = await RawImap.open(api.gateway.imap_port)
    try:
        await raw.login("jianf")
        special = await raw.command(b'a LIST (SPECIAL-USE) "" "*"')
        assert special[-1].startswith(b"a OK"), special
        listed = _lists(special)
        assert set(listed) == {"Sent", "Drafts", "Archive", "Trash"}, special
        assert "\\Sent" in listed["Sent"][0] and "\\Trash" in listed["Trash"][0]

        everything = await raw.command(
            b'b LIST "" "*" RETURN (SPECIAL-USE CHILDREN STATUS (MESSAGES UNSEEN UIDNEXT))'
        )
        assert everything[-1].startswith(b"b OK"), everything
        listed, counted = _lists(everything), _statuses(everything)
        assert set(listed) == {
            "INBOX",
            "Sent",
            "Drafts",
            "Archive",
            "Trash",
            "Needs decision",
            "Sessions",
            "Sessions/chat",
        }, everything
        assert {"\\Noselect", "\\HasChildren"} <= listed["Sessions"][0]
        assert "\\HasNoChildren" in listed["INBOX"][0]
        assert "Sessions" not in counted  # no STATUS for a \Noselect name (RFC 5819 §2)
        assert counted["INBOX"] == {"MESSAGES": 2, "UNSEEN": 2, "UIDNEXT": 3}
        assert counted["Sessions/chat"]["MESSAGES"] == 2 and counted["Trash"]["MESSAGES"] == 0
        # every STATUS right after its own LIST line
        names = [
            line.split(b'"/" ', 1)[1].strip().strip(b'"')
            for line in everything
            if line.startswith(b"* LIST")
        ]
        statuses = [i for i, line in enumerate(everything) if line.startswith(b"* STATUS")]
        assert all(everything[i - 1].startswith(b"* LIST") for i in statuses)
        assert len(statuses) == len(names) - 1

        subscribed = await raw.command(b'c LIST (SUBSCRIBED) "" "%"')
        listed = _lists(subscribed)
        assert "Sessions" not in listed and "\\Subscribed" in listed["INBOX"][0], subscribed
        recursive = await raw.command(b'd LIST (SUBSCRIBED RECURSIVEMATCH) "" "%"')
        assert b'"CHILDINFO"' in next(line for line in recursive if b"Sessions" in line)

        several = await raw.command(b'e LIST "" (INBOX "Sent" Sent) RETURN (SUBSCRIBED)')
        assert set(_lists(several)) == {"INBOX", "Sent"}, several
        assert "\\Subscribed" in _lists(several)["Sent"][0]

        plain = await raw.command(b'f LIST "" "*"')  # RFC 3501's LIST is unchanged
        assert plain[-1].startswith(b"f OK") and len(_lists(plain)) == 8, plain
        for tag, line in (
            (b"g", b'LIST (RECURSIVEMATCH) "" "*"'),  # RFC 5258 §3: never alone,
            (b"g2", b'LIST (RECURSIVEMATCH REMOTE) "" "%"'),  # nor only with REMOTE
            (b"h", b'LIST (BOGUS) "" "*"'),
            (b"i", b'LIST "" "*" RETURN (BOGUS)'),
            (b"j", b'LIST "" "*" RETURN (STATUS ())'),
        ):
            refused = await raw.command(tag + b" " + line)
            assert refused[-1].startswith(tag + b" BAD"), refused
            assert (await raw.command(tag + b"n NOOP"))[-1].startswith(
                tag + b"n OK"
            )  # 5 BADs end it
        assert (await raw.command(b"k NOOP"))[-1].startswith(b"k OK")
    finally:
        await raw.close()
