"""What the checks found, as plain data, and the Authentication-Results header of it.

The header (RFC 8601) is written on the stored mail so that a person or a bridge can see
what was proven about it; the fields are what the reply decision reads.
"""

from __future__ import annotations

from dataclasses import dataclass

from authres import (
    AuthenticationResultsHeader,
    DKIMAuthenticationResult,
    SPFAuthenticationResult,
)
from authres.dmarc import DMARCAuthenticationResult

from core.mailauth.dmarc import aligned

__all__ = ["DkimSignature", "Verdict"]


@dataclass(frozen=True, slots=True)
class DkimSignature:
    """One DKIM-Signature header: its signing domain (d=), selector (s=) and result."""

    domain: str
    selector: str
    result: str  # pass | fail | neutral | temperror | permerror


@dataclass(frozen=True, slots=True)
class Verdict:
    spf: str  # pass | fail | softfail | neutral | none | temperror | permerror
    mail_from: str  # the envelope sender SPF judged (postmaster@helo for a bounce)
    dkim: tuple[DkimSignature, ...]
    dmarc: str  # pass | fail | none | temperror | permerror
    from_domain: str  # the one RFC 5322 From domain ("" when there is not exactly one)
    policy: str  # the domain's DMARC p= (or sp=), "" without a record

    @property
    def dmarc_pass(self) -> bool:
        return self.dmarc == "pass"

    def aligned_dkim_pass(self) -> bool:
        """A DKIM pass whose signing domain has the From domain's organizational domain
        (relaxed alignment, RFC 7489 §3.1.1): what proves the domain where SPF cannot be
        judged (mail collected from a mailbox, not received from its sender's server)."""
        return any(
            sig.result == "pass" and aligned(sig.domain, self.from_domain, "r") for sig in self.dkim
        )

    def header(self, authserv_id: str) -> str:
        """`Authentication-Results: …` (without the line end), RFC 8601 §2.2."""
        results: list[object] = [
            SPFAuthenticationResult(result=self.spf, smtp_mailfrom=self.mail_from or None)
        ]
        results += [
            DKIMAuthenticationResult(
                result=sig.result, header_d=sig.domain or None, header_s=sig.selector or None
            )
            for sig in self.dkim
        ] or [DKIMAuthenticationResult(result="none")]
        results.append(
            DMARCAuthenticationResult(
                result=self.dmarc,
                header_from=self.from_domain or None,
                policy=self.policy or None,
            )
        )
        return str(AuthenticationResultsHeader(authserv_id=authserv_id, results=results))
