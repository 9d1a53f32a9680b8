"""The new text of replies as real mail clients write them (tests/fixtures/replies)."""

from __future__ import annotations

from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from pathlib import Path

import pytest

from smtp_in.mime_parts import part_text
from smtp_in.new_text import body_text, html_to_markdown, new_text, strip_history

CORPUS = Path(__file__).parents[1] / "fixtures" / "replies"
CASES = sorted(path.stem for path in CORPUS.glob("*.eml"))


def _read(name: str) -> EmailMessage:
    message = BytesParser(policy=policy.default).parsebytes((CORPUS / f"{name}.eml").read_bytes())
    assert isinstance(message, EmailMessage)
    return message


def test_the_corpus_has_every_client() -> None:
    clients = {name.split("-")[0] for name in CASES}
    assert {"thunderbird", "outlook", "gmail", "apple", "mutt"} <= clients
    assert {"gmail-de", "gmail-fr", "outlook-html-only"} <= set(CASES)


@pytest.mark.parametrize("name", CASES)
def test_new_text_of_each_client_reply(name: str) -> None:
    expected = (CORPUS / f"{name}.expected.txt").read_text(encoding="utf-8").strip("\n")
    assert new_text(_read(name)) == expected


def _both_renderings(name: str) -> bool:
    message = _read(name)
    return all(message.get_body(preferencelist=(kind,)) for kind in ("plain", "html"))


@pytest.mark.parametrize("name", [name for name in CASES if _both_renderings(name)])
def test_the_html_part_gives_the_same_words_as_the_plain_part(name: str) -> None:
    """What an HTML-only client would make of the same reply (line breaks aside)."""
    html = _read(name).get_body(preferencelist=("html",))
    assert html is not None
    expected = (CORPUS / f"{name}.expected.txt").read_text(encoding="utf-8")
    text = strip_history(html_to_markdown(part_text(html)))
    assert text.split() == expected.split()


def test_html_is_sanitised_before_markdown() -> None:
    markup = (
        "<html><head><title>Secret title</title><style>p {color: red}</style></head>"
        "<body><script>alert('x')</script><h1>Plan</h1><p onclick='x()'>Ship <b>it</b>"
        "<img src='cid:logo' alt='logo'> <a href='javascript:alert(1)'>here</a></p></body></html>"
    )
    text = html_to_markdown(markup)
    assert text == "# Plan\n\nShip **it** here"


def test_signature_delimiter_and_phone_footer_are_removed_but_thanks_is_not() -> None:
    text = "Thanks, that fixed it.\n- keep the flag\n\nSent from my iPhone"
    assert strip_history(text) == "Thanks, that fixed it.\n- keep the flag"
    assert strip_history("Deploy it.\n\n-- \nJian F\n+49 30 1234") == "Deploy it."


def test_removing_the_history_never_leaves_nothing() -> None:
    only_quote = "On Mon, Nov 30, 2026 at 10:00 AM Builder wrote:\n> Deploy?\n"
    assert strip_history(only_quote) == only_quote.strip()
    assert strip_history("-- \nJian") == "--\nJian"  # a delimiter needs text above it
    assert strip_history("") == ""


def test_format_flowed_is_unwrapped() -> None:
    message = EmailMessage()
    message.set_content("one long \nparagraph\n> quoted \n> on\nend \n")
    message.replace_header("Content-Type", 'text/plain; charset="utf-8"; format=flowed')
    assert body_text(message) == "one long paragraph\n> quoted on\nend "
    message.set_param("delsp", "yes")
    assert body_text(message) == "one longparagraph\n> quotedon\nend"
