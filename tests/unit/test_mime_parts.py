"""Which parts of a submitted message become attachments (RFC 2183 dispositions)."""

from __future__ import annotations

from email import policy
from email.message import EmailMessage
from email.parser import BytesParser

from smtp_in.mime_parts import attached_files
from smtp_in.new_text import new_text

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256))


def _parsed(message: EmailMessage) -> EmailMessage:
    parsed = BytesParser(policy=policy.default).parsebytes(message.as_bytes())
    assert isinstance(parsed, EmailMessage)
    return parsed


def test_attachments_inline_images_and_forwarded_mail_but_not_the_html_body() -> None:
    message = EmailMessage()
    message["Subject"] = "files"
    message.set_content("See the files.\n")
    message.add_alternative("<p>See the <b>files</b>.<img src='cid:logo'></p>", subtype="html")
    html = message.get_body(preferencelist=("html",))
    assert isinstance(html, EmailMessage)
    html.add_related(PNG, "image", "png", cid="<logo>", filename="logo.png")
    message.add_attachment(
        b"%PDF-1.7 report", maintype="application", subtype="pdf", filename="../../etc/report.pdf"
    )
    message.add_attachment("notes\n", filename="notes.txt")
    forwarded = EmailMessage()
    forwarded["Subject"] = "old"
    forwarded.set_content("old text\n")
    message.add_attachment(forwarded)
    parsed = _parsed(message)
    files = attached_files(parsed)
    assert [(f.filename, f.content_type) for f in files] == [
        ("logo.png", "image/png"),
        ("report.pdf", "application/pdf"),
        ("notes.txt", "text/plain"),
        ("message.eml", "message/rfc822"),
    ]
    assert files[0].data == PNG and files[1].data == b"%PDF-1.7 report"
    assert b"old text" in files[3].data
    assert new_text(parsed) == "See the files."


def test_a_nameless_inline_image_is_kept_and_a_single_part_file_too() -> None:
    message = EmailMessage()
    message.set_content("look\n")
    message.add_attachment(PNG, maintype="image", subtype="png", disposition="inline")
    [image] = attached_files(_parsed(message))
    assert (image.filename, image.content_type, image.data) == ("attachment", "image/png", PNG)
    single = EmailMessage()
    single.set_content(PNG, maintype="image", subtype="png", filename="only.png")
    assert [f.filename for f in attached_files(_parsed(single))] == ["only.png"]
    assert new_text(_parsed(single)) == ""
