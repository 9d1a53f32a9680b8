"""What `smtp_in` reads from a submitted message."""

from __future__ import annotations

from email.message import EmailMessage

from smtp_in.message import parse_submitted


def test_plain_part_subject_ids_and_addresses() -> None:
    message = EmailMessage()
    message["From"] = "Jian <jianf@agentmail.localhost>"
    message["To"] = "builder+ModelRouter@agentmail.localhost"
    message["Cc"] = "critic@agentmail.localhost, someone@example.com"
    message["Subject"] = "Re: the  router"
    message["Message-ID"] = "<b@client>"
    message["In-Reply-To"] = "<a@client>"
    message["References"] = "<root@client> <a@client>"
    message.set_content("plain text\n")
    message.add_alternative("<p>html</p>", subtype="html")
    # A folded Subject (RFC 5322 §2.2.3) is one line again.
    raw = message.as_bytes().replace(b"Re: the  router", b"Re: the\r\n router")
    parsed = parse_submitted(raw)
    assert parsed.subject == "Re: the router"
    assert parsed.body == "plain text"
    assert parsed.message_id == "<b@client>"
    assert parsed.replies_to == ["<a@client>", "<a@client>", "<root@client>"]
    assert parsed.from_addresses == ["jianf@agentmail.localhost"]
    assert parsed.cc_addresses == ["critic@agentmail.localhost", "someone@example.com"]


def test_html_only_becomes_markdown_and_no_ids_is_fine() -> None:
    message = EmailMessage()
    message["Subject"] = "html"
    message.set_content("<p>one &amp; two</p><p>three<br>four</p>", subtype="html")
    parsed = parse_submitted(message.as_bytes())
    assert parsed.body == "one & two\n\nthree\nfour"
    assert parsed.message_id is None and parsed.replies_to == []
