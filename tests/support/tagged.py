"""One IMAP connection that numbers its commands and reads each reply whole, literals
included (tests/support/imap_values.py): the same client for the gateway and for
Dovecot in the differential tests."""

from __future__ import annotations

from tests.support.imap_values import read_response
from tests.support.raw_imap import RawImap

__all__ = ["TaggedClient", "tagged_client"]


class TaggedClient:
    def __init__(self, raw: RawImap) -> None:
        self.raw, self.n = raw, 0

    async def reply(self, line: bytes, *literals: bytes, literal8: bool = False) -> bytes:
        """The whole reply to `line`, each of `literals` sent after it as a LITERAL+
        literal (RFC 7888; `~{n+}`, RFC 3516's literal8, with `literal8`), the first
        at the end of `line`, the others after the text between them (`line` split at
        `%L`)."""
        return await self.reply_with(line, [(literal, literal8) for literal in literals])

    async def reply_with(self, line: bytes, literals: list[tuple[bytes, bool]]) -> bytes:
        """`reply`, each literal a literal8 or not: (octets, literal8)."""
        self.n += 1
        tag = b"t%d" % self.n
        texts = line.split(b"%L") if b"%L" in line else [line, b""]
        assert len(texts) == len(literals) + 1 or not literals, line
        out = tag + b" " + texts[0]
        for (literal, literal8), text in zip(literals, texts[1:], strict=False):
            head = b"~" if literal8 else b""
            out += b" " + head + b"{%d+}\r\n" % len(literal) + literal + text
        await self.raw.send(out + b"\r\n")
        return await read_response(self.raw.reader, tag)

    async def command(self, line: bytes, *literals: bytes, literal8: bool = False) -> bytes:
        """The reply, which must end `OK`."""
        return self._ok(line, await self.reply(line, *literals, literal8=literal8))

    async def command_with(self, line: bytes, literals: list[tuple[bytes, bool]]) -> bytes:
        """`reply_with`'s reply, which must end `OK`."""
        return self._ok(line, await self.reply_with(line, literals))

    def _ok(self, line: bytes, reply: bytes) -> bytes:
        tag = b"t%d" % self.n
        assert reply[reply.rindex(tag + b" ") :].startswith(tag + b" OK"), (line, reply[-500:])
        return reply

    async def close(self) -> None:
        await self.raw.close()


async def tagged_client(port: int, user: str, password: str) -> TaggedClient:
    client = TaggedClient(await RawImap.open(port))
    await client.command(b'LOGIN "%s" "%s"' % (user.encode(), password.encode()))
    return client
