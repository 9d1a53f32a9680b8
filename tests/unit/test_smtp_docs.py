"""docs/smtp.md lists every reply the SMTP table can give."""

from __future__ import annotations

from pathlib import Path

from smtp_in.protocol_replies import BY_REPLY_CODE, EXTRA_EHLO_KEYWORDS, REWRITTEN
from smtp_in.replies import REPLIES
from smtp_in.server import TOO_BIG

DOCS = (Path(__file__).parents[2] / "docs" / "smtp.md").read_text(encoding="utf-8")


def test_every_reply_code_is_documented() -> None:
    codes = {f"`{code} {enhanced}" for code, enhanced in REPLIES.values()}
    codes.add("`" + " ".join(TOO_BIG.split()[:2]))
    codes |= {"`530 5.7.0", "`538 5.7.11", "`553 5.7.1", "`550 5.7.1 relaying denied"}
    assert sorted(code for code in codes if code not in DOCS) == []


def test_every_protocol_reply_is_documented() -> None:
    """aiosmtpd's own replies, as `protocol_replies` gives them codes, are in the table."""
    rewritten = {"`" + " ".join(reply.split()[:2]) for reply in REWRITTEN.values()}
    by_code = {f"`{code} {enhanced}" for code, enhanced in BY_REPLY_CODE.items()}
    assert sorted(code for code in rewritten | by_code if code not in DOCS) == []


def test_the_ehlo_keywords_are_documented() -> None:
    assert [k for k in EXTRA_EHLO_KEYWORDS if f"250-{k}" not in DOCS] == []
