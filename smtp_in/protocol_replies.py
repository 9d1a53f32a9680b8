"""aiosmtpd's own replies, given the RFC 3463 enhanced status code ours carry.

We advertise `ENHANCEDSTATUSCODES` (RFC 2034), so every reply carries a code
after its number (§3), except where RFC 2034 §3 and RFC 4954 leave it out: the
220 greeting, the replies to EHLO/HELO (their lines are keywords, RFC 5321
§4.1.1.1), a 334 AUTH challenge (its text is base64, RFC 4954 §4) and the 354
that opens the data. aiosmtpd's replies other than those mostly have no code
(`503 Error: need RCPT command`): `with_code` gives them one, from the reply
code (RFC 5248's registry: X.5.1 invalid command or sequence, X.5.2 syntax
error, X.5.4 bad arguments), and a few get clearer words too.

`SMTPUTF8` (RFC 6531) is not offered: addresses of this gateway are ASCII by
their grammar (ARCHITECTURE.md), so a non-ASCII address or the `SMTPUTF8`
parameter is refused with RFC 6531 §3.6's `5.6.7`. UTF-8 in headers sent without
it is kept as sent (docs/smtp.md).
"""

from __future__ import annotations

import re

# Whole replies of aiosmtpd replaced by ours (clearer, with the code RFC 6531 names).
REWRITTEN: dict[str, str] = {
    "500 Error: strict ASCII mode": (
        "553 5.6.7 non-ASCII characters in a command: this server does not offer"
        " SMTPUTF8 (RFC 6531); addresses of this gateway are ASCII"
    ),
    "501 Error: SMTPUTF8 disabled": (
        "555 5.6.7 SMTPUTF8 is not offered by this server (RFC 6531): send the message"
        " without it; addresses of this gateway are ASCII"
    ),
    "500 Line too long (see RFC5321 4.5.3.1.6)": (
        "500 5.5.2 a line of the message is over 998 characters (RFC 5321 4.5.3.1.6):"
        " fold long header lines"
    ),
    "500 Command line too long": "500 5.5.2 command line too long (RFC 5321 4.5.3.1.4)",
}

# The enhanced code of a reply that has none, by its reply code (RFC 5321 §4.2.2).
BY_REPLY_CODE: dict[int, str] = {
    220: "2.0.0",  # STARTTLS: ready to start TLS
    221: "2.0.0",
    235: "2.7.0",
    250: "2.0.0",
    252: "2.0.0",  # VRFY: cannot verify, will accept
    454: "4.7.0",  # TLS not available
    500: "5.5.2",  # syntax error, command unrecognised
    501: "5.5.4",  # syntax error in parameters or arguments
    502: "5.5.1",  # command not implemented
    503: "5.5.1",  # bad sequence of commands
    504: "5.5.4",  # parameter not implemented
    530: "5.7.0",
    535: "5.7.8",
    538: "5.7.11",
    552: "5.3.4",
    553: "5.1.3",
    554: "5.7.0",
    555: "5.5.4",  # MAIL/RCPT parameters not recognised
}

# Reply codes sent without an enhanced code (see the module docstring).
UNCODED = frozenset({334, 354})
_CODED = re.compile(r"\d{3}[ -][245]\.\d{1,3}\.\d{1,3}( |$)")
_REPLY = re.compile(r"(\d{3})([ -]?)(.*)", re.DOTALL)


def with_code(reply: str) -> str:
    """`reply` (one line) with an enhanced status code; unchanged when it has one."""
    if reply in REWRITTEN:
        return REWRITTEN[reply]
    if _CODED.match(reply):
        return reply
    found = _REPLY.fullmatch(reply)
    if found is None:
        return reply
    number, separator, text = found.groups()
    code = int(number)
    if code in UNCODED:
        return reply
    enhanced = BY_REPLY_CODE.get(code, f"{number[0]}.0.0")
    text = text.removeprefix("Error: ")
    return f"{number}{separator or ' '}{enhanced} {text}".rstrip()


# EHLO keywords aiosmtpd does not list itself. PIPELINING (RFC 2920): aiosmtpd reads
# one command at a time from its stream and answers each in order, so a client may
# send MAIL, RCPT… and DATA in one go. ENHANCEDSTATUSCODES (RFC 2034): see above.
EXTRA_EHLO_KEYWORDS = ("PIPELINING", "ENHANCEDSTATUSCODES")


def ehlo_lines(lines: list[str]) -> list[str]:
    """aiosmtpd's EHLO reply lines with our keywords before its last line (`250 HELP`)."""
    *head, last = lines
    return [*head, *(f"250-{keyword}" for keyword in EXTRA_EHLO_KEYWORDS), last]
