"""docs/smtp.md lists every reply the SMTP table can give."""

from __future__ import annotations

from pathlib import Path

from smtp_in.replies import REPLIES
from smtp_in.server import TOO_BIG

DOCS = (Path(__file__).parents[2] / "docs" / "smtp.md").read_text(encoding="utf-8")


def test_every_reply_code_is_documented() -> None:
    codes = {f"`{code} {enhanced}" for code, enhanced in REPLIES.values()}
    codes.add("`" + " ".join(TOO_BIG.split()[:2]))
    codes |= {"`530 5.7.0", "`538 5.7.11", "`553 5.7.1", "`550 5.7.1 relaying denied"}
    assert sorted(code for code in codes if code not in DOCS) == []
