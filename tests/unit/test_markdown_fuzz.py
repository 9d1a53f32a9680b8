"""Markdown rendering fuzzed: any body renders, and the HTML is always sanitised.

Bodies are written by agents and by anyone who mails the gateway, and the HTML
part goes to every mail client and the web UI: whatever the Markdown, rendering
must not fail and nothing executable may survive (core/rendering/render.py).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.rendering.render import render_html
from tests.support.fuzzing import examples, fuzz_settings

pytestmark = pytest.mark.fuzz

PIECES = [
    "<script>alert(1)</script>", "<SCRIPT SRC=//x>", "<img src=x onerror=alert(1)>",
    "[x](javascript:alert(1))", "[x](JaVaScRiPt:alert(1))", "[x](java\tscript:1)",
    "<a href=\"javascript:1\">a</a>", "<iframe src=//x>", "<svg onload=alert(1)>",
    "<style>*{}</style>", "<!--", "-->", "<![CDATA[", "<div", ">", "&#x6a;avascript:",
    "&amp;", "&#0;", "\x00", "\r", "\n", "\n\n", "    ", "\t", "> ", "- ", "1. ", "# ",
    "```", "~~~", "`", "*", "**", "_", "[", "]", "(", ")", "![i](x)", "[a]: javascript:1",
    "<", "|a|b|\n|-|-|\n", "\\", "<http://x>", "<mailto:a@b>", "é", "用", "\u202e", "\ufeff",
    "\ud7ff", "\U0001f600",
]  # fmt: skip
markdown = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=8)), max_size=40).map(
    "".join
)

_EXECUTABLE = {"script", "iframe", "style", "svg", "object", "embed", "frame", "frameset"}


class _Tags(HTMLParser):
    """The elements and attributes a browser would really see (not escaped text)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _EXECUTABLE:
            self.problems.append(f"<{tag}>")
        for name, value in attrs:
            if name.startswith("on"):
                self.problems.append(f"{tag} {name}=")
            link = re.sub(r"[\x00-\x20]", "", value or "").lower()
            if name in ("href", "src") and link.startswith(("javascript:", "vbscript:", "data:")):
                self.problems.append(f"{tag} {name}={value}")


@fuzz_settings(examples(300))
@given(markdown)
def test_any_markdown_renders_to_sanitised_html(text: str) -> None:
    page = render_html(text)
    tags = _Tags()
    tags.feed(page)
    tags.close()
    assert not tags.problems, (tags.problems, page)
