"""What proves a reply from outside is the human's (docs/external-mail.md, "Replies
from outside"): the reply token, issued to one external address of one human for one
request; the From address exactly that registered address; and the domain's proof.

DMARC proves the From *domain* (RFC 7489): aligned SPF or DKIM. Mail received by the MX
listener straight from the sender's server is judged on both. Mail collected later from
a mailbox (IMAP polling) was relayed by that mailbox's server, so SPF says nothing of
its sender there: only an aligned DKIM pass counts. DMARC does not prove the mailbox:
the domain's provider is trusted to keep its users apart.
"""

from __future__ import annotations

from typing import Literal

from core.mailauth.verdict import Verdict

__all__ = ["Via", "decides", "same_mailbox"]

Via = Literal["mx", "imap"]


def decides(verdict: Verdict, via: Via) -> bool:
    """Whether the verdict proves the From domain, for mail that came `via`."""
    if via == "mx":
        return verdict.dmarc_pass
    return verdict.aligned_dkim_pass()


def same_mailbox(written: str, registered: str) -> bool:
    """`written` (a From address) is the registered mailbox: the local part exactly,
    the domain in any case (RFC 5321 §2.4: only the domain is case-insensitive)."""
    local, at, domain = written.strip().rpartition("@")
    r_local, _, r_domain = registered.rpartition("@")
    return bool(at) and local == r_local and domain.lower().rstrip(".") == r_domain.lower()
