"""SMTP ingest's reading of a message, the plain way: the reference the fast one must equal.

`smtp_in/message.py` reads the header fields once, and `smtp_in/new_text.py` skips
the history search for a body that cannot hold one. Both must give exactly the
answers of the plain functions frozen here (as of 2f40451; everything else is
imported, unchanged): the property tests compare them.
"""

from __future__ import annotations

from dataclasses import replace
from email.message import EmailMessage
from email.parser import BytesParser

from smtp_in.message import (
    _AS_WRITTEN,
    _MSGID_RE,
    _PLAIN,
    _POLICY,
    _SIMPLE_MSGID,
    MAX_SUBJECT,
    Submitted,
    _decoded,
    _pairs,
    storable,
)
from smtp_in.mime_parts import attached_files
from smtp_in.new_text import (
    _HEADER,
    _HEADER_SPAN,
    HEADER_LINE_CHARS,
    MAX_LEADING_HEADERS,
    SEARCH_CHARS,
    _after_leading_quote,
    _attribution,
    _quoted,
    _trim,
    _without_quote_at_end,
    _without_signature,
    body_text,
)


def _plain_value(message: EmailMessage, name: str) -> str | None:
    key = name.lower()
    raw = next((v for k, v in message.raw_items() if k.lower() == key), None)
    if not isinstance(raw, str):
        return "" if raw is None else None
    text = "".join(raw.splitlines())
    if not _PLAIN.fullmatch(text) or "=?" in text:
        return None
    if key in _AS_WRITTEN or (key == "message-id" and _SIMPLE_MSGID.fullmatch(text.strip())):
        return text
    return None


def _header(message: EmailMessage, name: str) -> str:
    """A header's text; a header the parser cannot read counts as absent."""
    plain = _plain_value(message, name)
    if plain is not None:
        return plain
    try:
        value = message.get(name)
        return "" if value is None else str(value)
    except (LookupError, TypeError, ValueError, IndexError, AttributeError):
        return ""


def _raw_values(message: EmailMessage, name: str) -> list[str]:
    return [str(v) for k, v in message.raw_items() if k.lower() == name.lower()]


def _addresses(message: EmailMessage, name: str) -> list[str]:
    """Read from the raw header text, so a header the structured parser chokes on
    still yields its addresses (the `From:` check must never be skipped)."""
    return [address for _, address in _pairs(_raw_values(message, name)) if address]


def _names(message: EmailMessage, name: str) -> list[tuple[str, str]]:
    return [(_decoded(n), a) for n, a in _pairs(_raw_values(message, name)) if a]


def parse_submitted(raw: bytes) -> Submitted:
    """`smtp_in.message.parse_submitted` as it was (its InvalidRequest is the caller's)."""
    message = BytesParser(policy=_POLICY).parsebytes(raw)
    assert isinstance(message, EmailMessage)
    found = _MSGID_RE.search(_header(message, "Message-ID"))
    # No line is over 998 characters (aiosmtpd refuses longer ones, RFC 5321
    # §4.5.3.1.6), so neither is a Message-ID: it fits `mails.message_id`.
    message_id = storable(found.group(0)) if found else None
    references = _MSGID_RE.findall(_header(message, "References"))
    subject = storable(" ".join(_header(message, "Subject").split()))
    return Submitted(
        subject=subject[:MAX_SUBJECT].rstrip(),
        body=storable(strip_history(body_text(message))),
        message_id=message_id,
        replies_to=[*_MSGID_RE.findall(_header(message, "In-Reply-To")), *reversed(references)],
        from_addresses=_addresses(message, "From"),
        from_names=_names(message, "From"),
        has_from=bool(_raw_values(message, "From")),
        has_message_id=bool(_raw_values(message, "Message-ID")),
        has_date=bool(_raw_values(message, "Date")),
        to_addresses=_addresses(message, "To"),
        cc_addresses=_addresses(message, "Cc"),
        attachments=[
            replace(f, filename=storable(f.filename), content_type=storable(f.content_type))
            for f in attached_files(message)
        ],
    )


# The history search, as it was.


def strip_history(text: str) -> str:
    """The reply's own lines: up to the first quoted-history header, no trailing quote,
    no signature. Never empty unless `text` is."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    kept = _before_history(lines)
    kept = _without_signature(kept)
    kept = _trim(kept)
    if not any(line.strip() for line in kept):
        return text.strip()
    return "\n".join(line.rstrip() for line in kept)


def _before_history(lines: list[str]) -> list[str]:
    """Lines before the first attribution header; after it when it comes first."""
    for _ in range(MAX_LEADING_HEADERS):
        found = _first_header(lines)
        if found is None:
            return _without_quote_at_end(_without_leading_attribution(lines))
        start, end = found
        if any(line.strip() for line in lines[:start]):
            return _without_quote_at_end(lines[:start])
        # Bottom-posting: the header and its quote come first, the reply after.
        lines = _after_leading_quote(lines[end:])
    return _without_quote_at_end(lines)


def _without_leading_attribution(lines: list[str]) -> list[str]:
    """Drop an attribution the library does not know ("* Name <a@b> [date]:")
    when a quote follows it: a first paragraph of at most 3 lines ending in ':'."""
    trimmed = _trim(lines)
    paragraph = 0
    while (
        paragraph < len(trimmed) and trimmed[paragraph].strip() and not _quoted(trimmed[paragraph])
    ):
        paragraph += 1
    rest = trimmed[paragraph:]
    following = next((line for line in rest if line.strip()), "")
    if paragraph <= 3 and _attribution(trimmed[:paragraph]) and _quoted(following):
        return _after_leading_quote(rest)
    return lines


def _first_header(lines: list[str]) -> tuple[int, int] | None:
    """Line span [start, end) of the first header the library's patterns match.

    Every pattern but one ends in a colon ("wrote:", "From: …", a full-width colon), at most
    `_HEADER_SPAN` lines below where its match starts, so the (slow) search runs only
    on windows of lines around a colon, in order; the first match is the first overall.
    """
    shown = [line.strip() for line in lines]
    shown = [line if len(line) <= HEADER_LINE_CHARS else "" for line in shown]
    budget = SEARCH_CHARS
    for first, last in _colon_windows(shown):
        window = "\n".join(shown[first:last])[:budget]
        match = _HEADER.search(window)
        if match is not None:
            begin = match.start()
            while begin < match.end() and window[begin] == "\n":
                begin += 1
            start = first + window.count("\n", 0, begin)
            end = first + window.count("\n", 0, match.end()) + 1
            return start, max(end, start + 1)
        budget -= len(window)
        if budget <= 0:
            break
    return None


def _may_end_header(line: str) -> bool:
    # The one pattern without a colon is Outlook's "-----Original Message-----" rule.
    return ":" in line or "\uff1a" in line or "original message" in line.lower()


def _colon_windows(lines: list[str]) -> list[tuple[int, int]]:
    """Merged line ranges [first, last) that can hold a header: from `_HEADER_SPAN`
    lines above a line with a colon to `_HEADER_SPAN` lines below it."""
    windows: list[tuple[int, int]] = []
    for index, line in enumerate(lines):
        if not _may_end_header(line):
            continue
        first, last = max(0, index - _HEADER_SPAN), min(len(lines), index + _HEADER_SPAN + 1)
        if windows and first <= windows[-1][1]:
            windows[-1] = (windows[-1][0], last)
        else:
            windows.append((first, last))
    return windows
