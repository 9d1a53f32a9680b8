"""HTML as the text an agent reads: Markdown when the HTML is of a sane size, else its
text without markup, always in time linear in the input.

The Markdown path (nh3 to sanitise, markdownify to convert) costs time quadratic in
the nesting of elements, markdownify recurses once per level (5,000 levels end in a
`RecursionError`) and its cost grows with every element. So HTML over
`MAX_HTML_CHARS`, with more than `MAX_HTML_ELEMENTS` elements or nested deeper than
`MAX_HTML_DEPTH` (counted by a linear scan, `html_shape`) is read by `html_text`
instead: one pass that drops the markup and the content of `script`, `style`,
`title` and the like, and stops at `MAX_TEXT_CHARS`.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

import markdownify
import nh3

__all__ = [
    "MAX_HTML_CHARS",
    "MAX_HTML_DEPTH",
    "MAX_HTML_ELEMENTS",
    "MAX_TEXT_CHARS",
    "html_shape",
    "html_text",
    "html_to_markdown",
]

# HTML given to nh3 and markdownify: ~1 s of markdownify at most.
MAX_HTML_CHARS = 256 * 1024
# Element nesting given to them: markdownify takes a few frames a level.
MAX_HTML_DEPTH = 100
# Elements given to them: markdownify's cost is per element (docs/performance.md).
MAX_HTML_ELEMENTS = 5000
# Text read from HTML over those bounds, and how much of the HTML is read for it.
MAX_TEXT_CHARS = 256 * 1024
MAX_SCAN_CHARS = 2 * 1024 * 1024

_DROPPED = frozenset({"img"})
_TAGS = nh3.ALLOWED_TAGS - _DROPPED
# Everything inside these is not text the sender wrote (RFC 2854 head, CSS, code).
_CLEARED = frozenset({"script", "style", "title", "head"})
# Elements whose content the HTML parser reads as raw text (HTML Living Standard §13.1.2).
_RAW = frozenset({"script", "style", "title", "textarea", "xmp", "iframe", "noembed", "noframes"})
# Void elements and those whose end tag may be left out (the next one closes them):
# neither nests when unclosed (HTML Living Standard §13.1.2.4, §13.2.6.4).
_FLAT = frozenset({
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
    "track", "wbr", "p", "li", "dt", "dd", "tr", "td", "th", "thead", "tbody", "tfoot",
    "option", "optgroup", "colgroup", "caption", "rb", "rt", "rtc", "rp", "html", "body",
    "head", "basefont", "bgsound", "frame", "keygen", "param",
})  # fmt: skip
_BLOCK = frozenset({
    "p", "div", "br", "tr", "li", "h1", "h2", "h3", "h4", "h5", "h6", "table", "ul", "ol",
    "blockquote", "pre", "hr", "section", "article", "header", "footer", "dt", "dd",
})  # fmt: skip
_TAG_START = re.compile(r"<[!?/A-Za-z]")  # "<" before anything else is text
_NAME = re.compile(r"/?([A-Za-z][A-Za-z0-9:-]{0,31})")
_BLANKS = re.compile(r"[ \t\r\f\v\u00a0]+")
_PARAGRAPHS = re.compile(r"\n{3,}")


def html_to_markdown(markup: str) -> str:
    """Sanitised HTML (no script, style or images) as Markdown with ATX headings; over
    the bounds, or should markdownify still recurse too deep, its text (`html_text`)."""
    if len(markup) > MAX_HTML_CHARS:
        return html_text(markup)
    depth, elements = html_shape(markup)
    if depth > MAX_HTML_DEPTH or elements > MAX_HTML_ELEMENTS:
        return html_text(markup)
    clean = nh3.clean(markup, tags=set(_TAGS), clean_content_tags=set(_CLEARED))
    try:
        text = markdownify.markdownify(clean, heading_style="ATX", bullets="-")
    except RecursionError:  # nesting the scan did not see (html5ever built it)
        return html_text(markup)
    # Word's empty paragraphs (`<o:p>&nbsp;</o:p>`) become blank lines, not spaces.
    lines = [line if line.strip() else "" for line in text.split("\n")]
    return _PARAGRAPHS.sub("\n\n", "\n".join(lines)).strip()


def html_shape(markup: str) -> tuple[int, int]:
    """How deep elements nest and how many there are, counted from the tags (at least
    what a parser builds: comments and raw text are skipped, and elements that never
    nest unclosed do not deepen); the count stops past `MAX_HTML_DEPTH` or
    `MAX_HTML_ELEMENTS`."""
    depth = deepest = elements = 0
    for name, closing, _ in _tags(markup, markup.lower()):
        if not name:
            continue
        if closing:
            if name not in _FLAT:
                depth = max(depth - 1, 0)
            continue
        elements += 1
        if name not in _FLAT and name not in _RAW:  # a raw-text element ends in its token
            depth += 1
            deepest = max(deepest, depth)
        if deepest > MAX_HTML_DEPTH or elements > MAX_HTML_ELEMENTS:
            break
    return deepest, elements


def html_text(markup: str, limit: int = MAX_TEXT_CHARS) -> str:
    """The text of `markup` without its tags, one pass: block elements start a line,
    entities are decoded, runs of blanks become one; at most `limit` characters, read
    from the first `MAX_SCAN_CHARS` of `markup`."""
    markup = markup[:MAX_SCAN_CHARS]
    lower = markup.lower()
    pieces: list[str] = []
    size = 0
    at = 0
    for name, _, (start, end) in _tags(markup, lower):
        piece = markup[at:start]
        pieces.append(piece)
        size += len(piece)
        if name in _BLOCK:
            pieces.append("\n")
        elif name in ("td", "th"):
            pieces.append(" ")
        at = end
        if size > limit:
            break
    else:
        pieces.append(markup[at:])
    text = html.unescape("".join(pieces)[: limit + 64])[:limit]
    lines = (_BLANKS.sub(" ", line).strip() for line in text.split("\n"))
    return _PARAGRAPHS.sub("\n\n", "\n".join(lines)).strip()


def _tags(markup: str, lower: str) -> Iterator[tuple[str, bool, tuple[int, int]]]:
    """(name, is an end tag, (start, end) of what to drop) for each tag, in order; a
    comment, a declaration and the content of a raw-text element are dropped with it.
    Every search starts after the last: linear in the length of `markup`."""
    at, size = 0, len(markup)
    while at < size:
        found = _TAG_START.search(markup, at)
        if found is None:
            break
        start = found.start()
        if markup.startswith("<!--", start):
            end = markup.find("-->", start + 4)
            end = size if end < 0 else end + 3
            yield "", False, (start, end)
            at = end
            continue
        name_match = _NAME.match(markup, start + 1)
        if name_match is None:
            # A declaration, an instruction, or "</" without a name (a bogus comment).
            end = markup.find(">", start)
            end = size if end < 0 else end + 1
            yield "", False, (start, end)
            at = end
            continue
        end = markup.find(">", name_match.end())
        end = size if end < 0 else end + 1
        name = name_match.group(1).lower()
        closing = markup[start + 1 : name_match.start(1)].startswith("/")
        if not closing and name in _RAW:
            close = lower.find(f"</{name}", end)
            end = size if close < 0 else (lower.find(">", close) + 1 or size)
            yield name, False, (start, end)
        else:
            yield name, closing, (start, end)
        at = end
