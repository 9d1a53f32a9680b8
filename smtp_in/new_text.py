"""The new text of a submitted message: what the agent reads, without the quoted history.

The body is the text/plain part (unwrapped when it is `format=flowed`), or, when
the message has only HTML, that HTML sanitised and converted to Markdown, within
bounds (core/mail/html_text.py: over them, its text without markup). The
history a reply quotes is cut where the reply-parser library (`mail-parser-reply`,
with its client header patterns in several languages) finds the first
attribution header ("On … wrote:", "Am … schrieb …:", Outlook's "From: … Sent: …"
block); a bottom-posted reply (attribution and quote first) keeps what follows
the quote. The text returned is always lines of the body: when removing the
history would leave nothing, the whole body is kept.

The library's signature rules cut at any line starting with "Thanks," or "- word"
(to the end of the mail), which loses real text; only the RFC 3676 §4.3
delimiter line `-- ` and a trailing "Sent from my …" line are removed here.
"""

from __future__ import annotations

import re
from email.message import EmailMessage, Message

from mailparser_reply import EmailMessage as ReplyParser

from core.mail.html_text import html_to_markdown
from smtp_in.mime_parts import part_text

__all__ = ["body_text", "html_to_markdown", "may_hold_history", "new_text", "strip_history"]

# Languages whose header patterns need two header lines (Polish matches a single
# "Do:"/"Data:" line, which real first lines start with).
LANGUAGES = ["en", "de", "fr", "es", "it", "nl", "sv", "da", "cs", "ja", "ko", "zh"]
_HEADER = ReplyParser(text="", languages=list(LANGUAGES)).HEADER_REGEX
_SENT_FROM = re.compile(r"(?:Sent from my|Get Outlook for|Gesendet von|Envoyé depuis)\b.{0,60}")
_RULE = re.compile(r"[-_*=]{3,}")
# The reply parser's regexes take time quadratic in a line's length: headers are
# looked for in lines of at most this many characters, in the start of the body.
HEADER_LINE_CHARS = 400
SEARCH_CHARS = 64_000
# A match starts at most this many lines above the line with its colon (a wrapped
# "On …\n…\nwrote:"); windows reach as far below for the patterns' lookaheads.
_HEADER_SPAN = 4
# Headers at the very top, each followed by its quote, skipped before giving up.
MAX_LEADING_HEADERS = 3
# Outlook's "-----Original Message-----": the one header pattern without a colon.
_ORIGINAL_MESSAGE = "original message"


# The text kept of one message: what a REST send may carry (AGENTMAIL_MAX_BODY_BYTES's
# default). It is what the agent reads and what the search index holds; the stored
# bytes keep the whole message.
MAX_TEXT_CHARS = 1024 * 1024


def new_text(message: EmailMessage) -> str:
    """The text the sender wrote in this message, history and signature removed; its
    first `MAX_TEXT_CHARS` characters, with a note when there were more."""
    text = body_text(message)
    if len(text) <= MAX_TEXT_CHARS:
        return strip_history(text)
    return strip_history(text[:MAX_TEXT_CHARS]) + (
        f"\n\n(The text is cut here: the message has {len(text):,} characters of text,"
        f" and the gateway keeps the first {MAX_TEXT_CHARS:,}. The message is kept as it"
        " was sent; open it in a mail client.)"
    )


def body_text(message: EmailMessage) -> str:
    """The whole text body: text/plain, else the HTML as Markdown, else empty."""
    try:
        plain = message.get_body(preferencelist=("plain",))
        markup = None if plain is not None else message.get_body(preferencelist=("html",))
    except (AttributeError, KeyError, TypeError, ValueError):  # a broken MIME tree
        return ""
    if plain is not None:
        text = part_text(plain)
        return _unflow(text, _param(plain, "delsp") == "yes") if _flowed(plain) else text
    if markup is not None:
        return html_to_markdown(part_text(markup))
    return ""


def strip_history(text: str) -> str:
    """The reply's own lines: up to the first quoted-history header, no trailing quote,
    no signature. Never empty unless `text` is."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    # Without a header or a quote, `_before_history` only drops trailing blank lines,
    # which `_without_signature` drops as well.
    kept = _before_history(lines) if may_hold_history(text) else lines
    kept = _without_signature(kept)
    kept = _trim(kept)
    if not any(map(str.strip, kept)):
        return text.strip()
    return "\n".join(map(str.rstrip, kept))


def may_hold_history(text: str) -> bool:
    """False when no line of `text` can start a history: no quote (`>`) and no line
    that can end an attribution header (`_may_end_header`: every pattern of the library
    but one ends in a colon). Most new mail has none, and a scan of every line is
    the larger part of its parse."""
    return ">" in text or ":" in text or "\uff1a" in text or _ORIGINAL_MESSAGE in text.lower()


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


def _after_leading_quote(lines: list[str]) -> list[str]:
    """The reply after a leading quote; an inline reply (quote, answer, quote,
    answer) keeps its quotes, since its answers mean nothing without them."""
    start = 0
    while start < len(lines) and (not lines[start].strip() or _quoted(lines[start])):
        start += 1
    if any(_quoted(line) for line in _without_quote_at_end(lines[start:])):
        return lines
    return lines[start:]


def _without_leading_attribution(lines: list[str]) -> list[str]:
    """Drop an attribution the library does not know ("* Name <a@b> [date]:")
    when a quote follows it: a first paragraph of at most 3 lines ending in ':'."""
    trimmed = _trim(lines)
    paragraph, longest = 0, min(len(trimmed), 4)  # a fourth line is already too many
    while paragraph < longest and trimmed[paragraph].strip() and not _quoted(trimmed[paragraph]):
        paragraph += 1
    if paragraph > 3:
        return lines
    rest = trimmed[paragraph:]
    following = next((line for line in rest if line.strip()), "")
    if _attribution(trimmed[:paragraph]) and _quoted(following):
        return _after_leading_quote(rest)
    return lines


def _attribution(paragraph: list[str]) -> bool:
    text = " ".join(line.strip() for line in paragraph)
    return text.endswith(":") and not _quoted(text) and bool(re.search(r"@|\d", text))


def _first_header(lines: list[str]) -> tuple[int, int] | None:
    """Line span [start, end) of the first header the library's patterns match.

    Every pattern but one ends in a colon ("wrote:", "From: …", a full-width colon), at most
    `_HEADER_SPAN` lines below where its match starts, so the (slow) search runs only
    on windows of lines around a colon, in order; the first match is the first overall.
    """
    shown = [text if len(text := line.strip()) <= HEADER_LINE_CHARS else "" for line in lines]
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


def _may_end_header(line: str, ruled: bool = True) -> bool:
    # The one pattern without a colon is Outlook's "-----Original Message-----" rule;
    # `ruled` False says no line holds its words (lower-casing every line is not free).
    return ":" in line or "\uff1a" in line or (ruled and _ORIGINAL_MESSAGE in line.lower())


def _colon_windows(lines: list[str]) -> list[tuple[int, int]]:
    """Merged line ranges [first, last) that can hold a header: from `_HEADER_SPAN`
    lines above a line with a colon to `_HEADER_SPAN` lines below it."""
    windows: list[tuple[int, int]] = []
    ruled = _ORIGINAL_MESSAGE in "\n".join(lines).lower()
    for index, line in enumerate(lines):
        if not _may_end_header(line, ruled):
            continue
        first, last = max(0, index - _HEADER_SPAN), min(len(lines), index + _HEADER_SPAN + 1)
        if windows and first <= windows[-1][1]:
            windows[-1] = (windows[-1][0], last)
        else:
            windows.append((first, last))
    return windows


def _quoted(line: str) -> bool:
    return line.lstrip().startswith(">")


def _without_quote_at_end(lines: list[str]) -> list[str]:
    """Drop a quoted block (and blank lines) that ends the text, with the attribution
    right above it (a paragraph of at most 3 lines ending in ':', as Gmail wraps it)."""
    end = len(lines)
    while end and (not lines[end - 1].strip() or _quoted(lines[end - 1])):
        end -= 1
    if end == len(lines) or not any(_quoted(line) for line in lines[end:]):
        return lines[:end]
    start = end
    while start and lines[start - 1].strip() and end - start < 3:
        start -= 1
    if (start == 0 or not lines[start - 1].strip()) and _attribution(lines[start:end]):
        end = start
    return lines[:end]


def _without_signature(lines: list[str]) -> list[str]:
    """Cut at the `-- ` delimiter (RFC 3676 §4.3), and a last "Sent from my …" line."""
    for index, line in enumerate(lines):
        if line.rstrip("\r") in ("-- ", "--") and index > 0:
            lines = lines[:index]
            break
    trimmed = _trim(lines)
    if trimmed and _SENT_FROM.fullmatch(trimmed[-1].strip()):
        return trimmed[:-1]
    return trimmed


def _trim(lines: list[str]) -> list[str]:
    """No blank lines or horizontal rules at either end (a rule often leads the history)."""
    start, end = 0, len(lines)
    while start < end and not lines[start].strip():
        start += 1
    while end > start and (not lines[end - 1].strip() or _RULE.fullmatch(lines[end - 1].strip())):
        end -= 1
    return lines[start:end]


def _param(part: Message, name: str) -> str:
    value = part.get_param(name, header="content-type")
    return value.lower() if isinstance(value, str) else ""


def _flowed(part: Message) -> bool:
    return _param(part, "format") == "flowed"


def _unflow(text: str, delsp: bool) -> str:
    """Join the soft line breaks of `format=flowed` text (RFC 3676 §4.2, §4.4).

    A line ending in a space continues on the next line of the same quote depth;
    one leading space after the quote marks is stuffing. Never adds characters.
    """
    out: list[str] = []
    carry: str | None = None
    carry_depth = -1
    for raw in text.replace("\r\n", "\n").split("\n"):
        depth = len(raw) - len(raw.lstrip(">"))
        stuffed = raw[depth : depth + 1] == " "
        prefix, content = raw[: depth + stuffed], raw[depth + stuffed :]
        if carry is not None and depth != carry_depth:
            out.append(carry)
            carry = None
        start = carry if carry is not None else prefix
        if content.endswith(" ") and content != "-- ":
            carry, carry_depth = start + (content[:-1] if delsp else content), depth
            continue
        out.append(start + content)
        carry = None
    if carry is not None:
        out.append(carry)
    return "\n".join(out)
