"""FETCH values written from a kept summary (imap_view/kept_fetch.py) are the bytes the
parsing path writes (pymap content from the bounded walk, imap_view/message.py): on
every message of the corpora, on hostile messages (hypothesis), in 7-bit and UTF-8."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from pymap.parsing.specials import FetchRequirement

from core.mime.kept import kept_structure
from imap_view.kept_fetch import KeptMessage
from imap_view.message import LoadedMessage, Message, Utf8LoadedMessage
from imap_view.parsed_contents import content_of_bytes
from tests.support.mime_bounds import folded_subject, many_parts, nested_messages
from tests.support.mime_corpus import corpus
from tests.support.mime_fuzz import messages
from tests.support.real_world_corpus import real_world_corpus
from tests.support.search_corpus import MESSAGES

USER = "alice@agentmail.localhost"
ASKED = [
    frozenset({b"SUBJECT", b"TO"}),
    frozenset({b"FROM", b"TO", b"CC", b"BCC", b"SUBJECT", b"DATE", b"MESSAGE-ID", b"PRIORITY",
               b"X-PRIORITY", b"REFERENCES", b"NEWSGROUPS", b"IN-REPLY-TO", b"CONTENT-TYPE",
               b"REPLY-TO"}),
    frozenset({b"X-TUID"}),
]  # fmt: skip


def _parsed_answers(raw: bytes, utf8: bool) -> dict[str, bytes]:
    content = content_of_bytes(raw, None)
    loaded_type = Utf8LoadedMessage if utf8 else LoadedMessage
    loaded = loaded_type(Message(1, frozenset(), mail_seq=1), FetchRequirement.CONTENT, content)
    structure = loaded.get_body_structure()
    answers = {
        "ENVELOPE": bytes(loaded.get_envelope_structure()),
        "BODYSTRUCTURE": bytes(structure.extended),
        "BODY": bytes(structure),
        "RFC822.SIZE": b"%d" % loaded.get_size(),
    }
    for names in ASKED:
        answers[f"FIELDS {sorted(names)}"] = bytes(loaded.get_message_headers(None, names))
    return answers


def _kept_answers(raw: bytes, utf8: bool) -> dict[str, bytes]:
    kept = kept_structure(raw)
    assert kept.summary is not None
    message = KeptMessage(kept.summary)
    answers = {
        "ENVELOPE": message.envelope(utf8),
        "BODYSTRUCTURE": message.body_structure(utf8),
        "BODY": message.body_structure(utf8, extended=False),
        "RFC822.SIZE": b"%d" % message.size,
    }
    for names in ASKED:
        fields = message.header_fields(names)
        assert fields is not None  # every name asked is a kept one, opaque or not
        answers[f"FIELDS {sorted(names)}"] = fields
    return answers


def _same(raw: bytes) -> None:
    for utf8 in (False, True):
        kept, parsed = _kept_answers(raw, utf8), _parsed_answers(raw, utf8)
        for item, value in kept.items():
            assert value == parsed[item], (item, utf8, raw[:300])


def test_every_corpus_message_answers_alike() -> None:
    for _, raw in corpus(USER):
        _same(raw)
    for item in real_world_corpus(USER, 300, max_attachment=20_000):
        _same(item.raw)
    for raw in MESSAGES:  # names as comments, routes, groups, odd dates (search_corpus.py)
        _same(raw)


def test_messages_over_the_bounds_answer_alike() -> None:
    for raw in (many_parts(1500), nested_messages(60), folded_subject(30_000)):
        assert kept_structure(raw).opaque
        _same(raw)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(raw=messages)
def test_hostile_messages_answer_alike(raw: bytes) -> None:
    kept = kept_structure(raw)
    if kept.summary is None:  # a header the email package refuses: IMAP parses, as before
        return
    _same(raw)


def test_only_kept_fields_are_answered_without_the_bytes() -> None:
    kept = kept_structure(corpus(USER)[0][1])
    assert kept.summary is not None
    message = KeptMessage(kept.summary)
    assert message.header_fields(frozenset({b"SUBJECT", b"X-UNKNOWN"})) is None
    assert message.header_fields(frozenset({b"SUBJECT"})) == b"Subject: plain\r\n\r\n"
