"""What a list row shows of a mail's Markdown body: a plain-text excerpt and its task list.

Computed once when a mail is stored (and by the backfill for mail stored before,
core/mail/excerpt_backfill.py), kept in `mails.excerpt`, `tasks_done` and
`tasks_total`, so a list reads three short columns instead of bodies. The text is
what a reader sees, not the source: no `###` or `**`, a link as its text, an image
as its alt text, code fences and raw HTML left out. Task items are GFM's list items
starting `[ ]` or `[x]` (found in the parsed tree, so a `- [x]` inside a code
fence is no task). Work is bounded: only the first `MAX_PARSED_CHARS` of a body
are parsed (markdown-it is linear in practice; the bound keeps a 25 MiB body from
costing seconds at store time), and a task list past that point is not counted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from markdown_it import MarkdownIt
from markdown_it.token import Token

__all__ = ["EXCERPT_CHARS", "MAX_PARSED_CHARS", "Excerpt", "excerpt_of", "excerpt_values"]

EXCERPT_CHARS: Final = 200
MAX_PARSED_CHARS: Final = 8 * 1024
# Blocks whose text is not prose: left out of the excerpt.
_SKIPPED_BLOCKS: Final = frozenset({"fence", "code_block", "html_block", "hr"})
_TASK: Final = re.compile(r"\[([ xX])\](?:\s+|$)")
# commonmark: no linkify, no typographer; raw HTML parsed (and dropped), never rendered.
_MARKDOWN: Final = MarkdownIt("commonmark", {"html": True}).enable("table").enable("strikethrough")


@dataclass(frozen=True, slots=True)
class Excerpt:
    text: str
    tasks_done: int
    tasks_total: int


def _inline_text(token: Token) -> str:
    """An inline token's visible text: text, code spans, images' alt text; no markup."""
    parts: list[str] = []
    for child in token.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            parts.append(_inline_text(child))
    return "".join(parts)


def excerpt_of(body: str, limit: int = EXCERPT_CHARS) -> Excerpt:
    """The body's plain text, whitespace collapsed, at most `limit` characters (an
    ellipsis where it is cut), and its task items done and in all."""
    source = body[:MAX_PARSED_CHARS]
    tokens = _MARKDOWN.parse(source)
    pieces: list[str] = []
    done = total = 0
    in_item = 0
    item_started = False
    for token in tokens:
        if token.type == "list_item_open":
            in_item += 1
            item_started = True
        elif token.type == "list_item_close":
            in_item -= 1
        if token.type in _SKIPPED_BLOCKS:
            item_started = False  # a task's box opens its item's first paragraph
            continue
        if token.type != "inline":
            continue
        text = _inline_text(token)
        if in_item and item_started:
            item_started = False
            task = _TASK.match(text)
            if task is not None:
                total += 1
                done += task.group(1) != " "
                text = text[task.end() :]
        pieces.append(text)
    flat = " ".join(" ".join(pieces).split())
    if len(flat) > limit:
        flat = flat[: limit - 1].rstrip() + "…"
    return Excerpt(flat, done, total)


def excerpt_values(body: str) -> dict[str, object]:
    """The `mails` columns of a new row's body (every path that stores mail adds them)."""
    made = excerpt_of(body)
    return {"excerpt": made.text, "tasks_done": made.tasks_done, "tasks_total": made.tasks_total}
