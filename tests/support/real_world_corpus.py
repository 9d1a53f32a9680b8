"""Mail of the shapes a real mailbox holds, generated deterministically (a seed, no files).

bench/imap_fetch_structure.py fills a gateway and a Dovecot with 1,000 of these (about
21 MB) and times `FETCH 1:* (FLAGS ENVELOPE BODYSTRUCTURE)` on both; the Dovecot
differential test (tests/integration/test_imap_dovecot_diff.py) compares one of each
shape, with small attachments. The shapes are what clients meet every day, not edge
cases (tests/support/mime_corpus.py has those): plain 7-bit text, 8-bit UTF-8,
quoted-printable, HTML with its text alternative (newsletters, with `List-*` headers),
attachments from a few KB to 1.5 MB in base64 (RFC 2231 and encoded-word file names),
an HTML part with inline images (`multipart/related`), a forwarded `message/rfc822`,
Chinese subjects and names as RFC 2047 encoded-words (UTF-8 and GB2312, base64 and Q)
and as raw UTF-8 (RFC 6532), replies in threads (`In-Reply-To`, `References`), and the
trace headers real mail carries (`Received`, `DKIM-Signature`). CRLF line ends.
"""

from __future__ import annotations

import base64
import quopri
import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.header import Header
from email.utils import format_datetime
from typing import Final

__all__ = ["SHAPES", "Generated", "real_world_corpus"]

SHAPES: Final = (
    "plain", "8bit", "quoted-printable", "alternative", "newsletter", "attachments",
    "related", "forwarded", "reply",
)  # fmt: skip
# How many of every 100 messages have each shape (the sum is 100).
_WEIGHTS: Final = (23, 10, 8, 18, 10, 7, 4, 5, 15)
_WORDS: Final = (
    "the", "build", "report", "release", "tests", "deploy", "server", "review", "change",
    "branch", "merge", "schedule", "meeting", "budget", "quarter", "plan", "customer",
    "invoice", "contract", "draft", "update", "issue", "ticket", "latency", "memory",
    "database", "migration", "backup", "archive", "project", "team", "notes", "agenda",
)  # fmt: skip
_HANZI: Final = (
    "项目进度报告会议纪要请查收附件本周总结客户需求测试发布服务器数据库迁移备份计划预算合同"
)
_PEOPLE: Final = (
    ("张三", "zhang.san@example.cn"), ("李四", "li.si@example.cn"),
    ("王小明", "wang.xm@corp.example"), ("Jörg Müller", "joerg@example.de"),
    ("Marie Dupont", "marie.dupont@example.fr"), ("Bob Stone", "bob@example.com"),
    ("Carol Lee", "carol@example.org"), ("", "noreply@updates.example.com"),
)  # fmt: skip
_ATTACHMENTS: Final = (
    ("application", "pdf", "report.pdf"), ("image", "jpeg", "photo.jpg"),
    ("application", "zip", "logs.zip"), ("image", "png", "screenshot.png"),
    ("application", "vnd.openxmlformats-officedocument.wordprocessingml.document", "合同.docx"),
    ("text", "csv", "数据.csv"),
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Generated:
    shape: str
    raw: bytes


def real_world_corpus(
    recipient: str, count: int = 1000, *, seed: int = 2026, max_attachment: int = 1_500_000
) -> list[Generated]:
    """`count` messages to `recipient`, the same for the same arguments; the n-th has
    the n-th shape when `count` ≤ len(SHAPES) (one of each), else shapes by weight."""
    rng = random.Random(seed)
    writer = _Writer(rng, recipient, max_attachment)
    out: list[Generated] = []
    for n in range(count):
        shape = SHAPES[n] if count <= len(SHAPES) else rng.choices(SHAPES, _WEIGHTS)[0]
        out.append(Generated(shape, writer.message(n, shape)))
    return out


def _lines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


def _b64(data: bytes) -> str:
    return base64.encodebytes(data).decode("ascii").replace("\n", "\r\n")


def _qp(text: str) -> str:
    encoded = quopri.encodestring(text.encode("utf-8")).decode("ascii")
    return _lines(encoded)


class _Writer:
    def __init__(self, rng: random.Random, recipient: str, max_attachment: int) -> None:
        self.rng, self.recipient, self.max_attachment = rng, recipient, max_attachment
        self.ids: list[tuple[str, str, list[str]]] = []  # (message-id, subject, references)
        self.start = datetime(2026, 3, 1, 8, 0, tzinfo=UTC)

    def words(self, count: int) -> str:
        return " ".join(self.rng.choice(_WORDS) for _ in range(count))

    def paragraphs(self, count: int, chinese: bool = False) -> str:
        out = []
        for _ in range(count):
            if chinese:
                out.append(
                    "".join(self.rng.choice(_HANZI) for _ in range(self.rng.randint(30, 90)))
                )
            else:
                sentence = self.words(self.rng.randint(40, 120)).capitalize()
                out.append("\n".join(_wrapped(sentence + ".")))
        return "\n\n".join(out) + "\n"

    def subject(self, n: int) -> str:
        kind = self.rng.random()
        if kind < 0.12:
            text = "".join(self.rng.choice(_HANZI) for _ in range(self.rng.randint(6, 30)))
            return _encoded(text, "utf-8" if n % 3 else "gb2312", n % 2 == 0)
        if kind < 0.2:  # raw UTF-8 (RFC 6532)
            return "".join(self.rng.choice(_HANZI) for _ in range(self.rng.randint(4, 12)))
        return f"{self.words(self.rng.randint(3, 9)).capitalize()} #{n}"

    def person(self) -> str:
        name, address = self.rng.choice(_PEOPLE)
        if not name:
            return address
        if name.isascii():
            return f'"{name}" <{address}>'
        if self.rng.random() < 0.3:
            return f'"{name}" <{address}>'  # raw UTF-8 (RFC 6532)
        return f"{_encoded(name, 'utf-8', self.rng.random() < 0.5)} <{address}>"

    def head(self, n: int, shape: str, content: str) -> str:
        when = self.start + timedelta(minutes=37 * n + self.rng.randint(0, 30))
        sender = self.person()
        host = f"mail-{self.rng.randint(1, 40)}.example.net"
        message_id = f"<{n:05d}.{self.rng.getrandbits(40):x}@{host}>"
        subject = self.subject(n)
        references: list[str] = []
        if shape == "reply" and self.ids:
            parent, parent_subject, chain = self.rng.choice(self.ids[-50:])
            references = [*chain[-9:], parent]
            subject = "Re: " + parent_subject
        self.ids.append((message_id, subject, references))
        lines = [f"Return-Path: <{sender.rsplit('<', 1)[-1].rstrip('>')}>"]
        for hop in range(self.rng.randint(2, 6)):
            lines.append(
                f"Received: from {host} (HELO {host}) ([203.0.113.{hop + 10}])\r\n"
                f"\tby mx{hop}.example.org with ESMTPS id {self.rng.getrandbits(48):x}\r\n"
                f"\tfor <{self.recipient}>; {format_datetime(when)}"
            )
        signature = base64.b64encode(self.rng.randbytes(256)).decode("ascii")
        folded = "\r\n\t ".join(signature[i : i + 72] for i in range(0, len(signature), 72))
        lines.append(
            f"DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d={host};\r\n"
            f"\ts=s1; h=from:to:subject:date:message-id;\r\n\tb={folded}"
        )
        lines += [f"From: {sender}", f"To: Alice <{self.recipient}>"]
        if self.rng.random() < 0.25:
            cc = ", ".join(self.person() for _ in range(self.rng.randint(1, 4)))
            lines.append(f"Cc: {cc}")
        lines += [f"Subject: {subject}", f"Date: {format_datetime(when)}"]
        lines.append(f"Message-ID: {message_id}")
        if references:
            lines += [f"In-Reply-To: {references[-1]}", "References: " + "\r\n ".join(references)]
        if shape == "newsletter":
            lines += [
                f"List-Id: Weekly news <news.{host}>",
                f"List-Unsubscribe: <https://{host}/u/{n}>, <mailto:unsubscribe@{host}>",
                "Precedence: bulk",
            ]
        lines += [
            "MIME-Version: 1.0",
            content,
            f"X-Mailer: Example Mail {self.rng.randint(1, 9)}.0",
        ]
        return "\r\n".join(lines) + "\r\n\r\n"

    def message(self, n: int, shape: str) -> bytes:
        content, body = getattr(self, "_" + shape.replace("-", "_").replace("8", "eight"))(n)
        return (self.head(n, shape, content) + body).encode("utf-8")

    # ------------------------------------------------------------------ the shapes

    def _plain(self, n: int) -> tuple[str, str]:
        return "Content-Type: text/plain; charset=us-ascii", _lines(
            self.paragraphs(self.rng.randint(1, 6))
        )

    def _eightbit(self, n: int) -> tuple[str, str]:
        content = "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit"
        return content, _lines(self.paragraphs(self.rng.randint(1, 5), chinese=True))

    def _quoted_printable(self, n: int) -> tuple[str, str]:
        content = (
            "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable"
        )
        text = self.paragraphs(self.rng.randint(1, 4)) + "Grüße, café — " + _HANZI[:8] + "\n"
        return content, _qp(text)

    def _alternative_parts(self, boundary: str, paragraphs: int) -> str:
        text = self.paragraphs(paragraphs)
        markup = "".join(f"<p>{p}</p>\n" for p in text.split("\n\n"))
        page = (
            f"<html><head><style>p {{ margin: 0 }}</style></head><body>\n{markup}</body></html>\n"
        )
        return (
            f"--{boundary}\r\nContent-Type: text/plain; charset=utf-8\r\n"
            "Content-Transfer-Encoding: quoted-printable\r\n\r\n"
            + _qp(text)
            + f"\r\n--{boundary}\r\nContent-Type: text/html; charset=utf-8\r\n"
            "Content-Transfer-Encoding: quoted-printable\r\n\r\n"
            + _qp(page)
            + f"\r\n--{boundary}--\r\n"
        )

    def _alternative(self, n: int) -> tuple[str, str]:
        boundary = f"alt-{n}-{self.rng.getrandbits(32):08x}"
        content = f'Content-Type: multipart/alternative; boundary="{boundary}"'
        return content, self._alternative_parts(boundary, self.rng.randint(1, 5))

    def _newsletter(self, n: int) -> tuple[str, str]:
        boundary = f"news-{n}"
        content = f"Content-Type: multipart/alternative;\r\n boundary={boundary}"
        return content, self._alternative_parts(boundary, self.rng.randint(10, 40))

    def attachment(self, boundary: str) -> str:
        maintype, subtype, filename = self.rng.choice(_ATTACHMENTS)
        size = int(min(self.max_attachment, 3000 * 500 ** self.rng.random() ** 2.5))
        data = self.rng.randbytes(size)
        if filename.isascii():
            name = f'name="{filename}"'
            disposition = f'attachment; filename="{filename}"'
        elif self.rng.random() < 0.5:  # RFC 2231 §4
            quoted = "".join(f"%{b:02X}" for b in filename.encode("utf-8"))
            name, disposition = f"name*=UTF-8''{quoted}", f"attachment; filename*=UTF-8''{quoted}"
        else:  # an encoded-word in a quoted parameter: not RFC 2047's, but what many send
            word = _encoded(filename, "utf-8", True)
            name, disposition = f'name="{word}"', f'attachment; filename="{word}"'
        return (
            f"--{boundary}\r\nContent-Type: {maintype}/{subtype};\r\n {name}\r\n"
            f"Content-Disposition: {disposition}\r\nContent-Transfer-Encoding: base64\r\n\r\n"
            + _b64(data)
        )

    def _attachments(self, n: int) -> tuple[str, str]:
        boundary, inner = f"mix-{n}-{self.rng.getrandbits(32):08x}", f"alt-in-{n}"
        body = "This is a multi-part message in MIME format.\r\n"
        body += f'--{boundary}\r\nContent-Type: multipart/alternative; boundary="{inner}"\r\n\r\n'
        body += self._alternative_parts(inner, self.rng.randint(1, 3))
        for _ in range(self.rng.choice((1, 1, 1, 1, 2))):
            body += "\r\n" + self.attachment(boundary)
        body += f"\r\n--{boundary}--\r\n"
        return f'Content-Type: multipart/mixed; boundary="{boundary}"', body

    def _related(self, n: int) -> tuple[str, str]:
        boundary, related = f"rel-out-{n}", f"rel-{n}"
        image = _b64(self.rng.randbytes(self.rng.randint(2000, 30000)))
        body = (
            f"--{boundary}\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\n"
            + _lines(self.paragraphs(1))
            + f"\r\n--{boundary}\r\n"
            f'Content-Type: multipart/related; type="text/html"; boundary="{related}"\r\n\r\n'
            f"--{related}\r\nContent-Type: text/html; charset=utf-8\r\n\r\n"
            f'<html><body><p>{self.words(30)}</p><img src="cid:logo{n}@x"></body></html>\r\n'
            f"--{related}\r\nContent-Type: image/png\r\nContent-ID: <logo{n}@x>\r\n"
            "Content-Disposition: inline\r\nContent-Transfer-Encoding: base64\r\n\r\n"
            + image
            + f"--{related}--\r\n\r\n--{boundary}--\r\n"
        )
        return f'Content-Type: multipart/alternative; boundary="{boundary}"', body

    def _forwarded(self, n: int) -> tuple[str, str]:
        boundary = f"fwd-{n}"
        inner_shape = self.rng.choice(("plain", "alternative", "attachments"))
        content, inner_body = getattr(self, "_" + inner_shape)(n)
        when = format_datetime(self.start + timedelta(days=-3, minutes=n))
        inner = (
            f"From: {self.person()}\r\nTo: {self.person()}\r\nSubject: {self.words(4)}\r\n"
            f"Date: {when}\r\nMessage-ID: <inner-{n}@example.net>\r\nMIME-Version: 1.0\r\n"
            f"{content}\r\n\r\n{inner_body}"
        )
        body = (
            f"--{boundary}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n"
            "---------- Forwarded message ---------\r\n"
            + _lines(self.paragraphs(1))
            + f"\r\n--{boundary}\r\nContent-Type: message/rfc822\r\n"
            "Content-Disposition: inline\r\n\r\n" + inner + f"\r\n--{boundary}--\r\n"
        )
        return f'Content-Type: multipart/mixed; boundary="{boundary}"', body

    def _reply(self, n: int) -> tuple[str, str]:
        quoted = "\n".join("> " + line for line in self.paragraphs(2).splitlines())
        text = self.paragraphs(self.rng.randint(1, 2)) + "\nOn Monday someone wrote:\n" + quoted
        if self.rng.random() < 0.5:
            return "Content-Type: text/plain; charset=utf-8; format=flowed", _lines(text + "\n")
        return self._alternative(n)


def _wrapped(text: str, width: int = 72) -> list[str]:
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return [*lines, line] if line else lines


def _encoded(text: str, charset: str, b64: bool) -> str:
    """RFC 2047 encoded-words for `text`, folded as mail programs fold them."""
    if b64:
        return Header(text, charset).encode(maxlinelen=76).replace("\n", "\r\n")
    data = text.encode(charset)
    word = "".join(chr(b) if 0x21 <= b < 0x7F and b not in b"=?_" else f"={b:02X}" for b in data)
    return f"=?{charset}?q?{word}?="
