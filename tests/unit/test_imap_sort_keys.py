"""A rendering's SORT keys come from its columns (core/rendering/sort_rows.py) without
rendering it: they must be the keys its rendered header gives, which FETCH shows and
an original's keys are read from (imap_view/sort_keys.py). Compared here for subjects
the email package encodes, folds or decodes, every kind of party, and reference chains;
and the originals' key cache keeps to its budget."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest

from core.rendering.render import render_header
from core.rendering.sort_rows import rendered_fields
from core.store.models import Mail
from imap_view.sort_keys import HeaderKeys, SortKeyCache, keys_of_fields, keys_of_header

DOMAIN = "agentmail.localhost"
WHEN = datetime(2026, 3, 2, 9, 30, 15, 987_654, tzinfo=UTC)


def _mail(subject: str, *, cc: list[str], sender: tuple[str, str], to: tuple[str, str]) -> Mail:
    return Mail(
        seq=1,
        id=str(uuid.uuid4()),
        session_id=str(uuid.uuid4()),
        from_name=sender[0],
        from_path=sender[1],
        to_name=to[0],
        to_path=to[1],
        cc=cc,
        subject=subject,
        body="text",
        mail_type="normal",
        auto=False,
        message_id=f"<{uuid.uuid4()}@{DOMAIN}>",
        created_at=WHEN,
    )


SUBJECTS = [
    "Quarterly plan",
    "Re: Fwd: [team] Quarterly plan (fwd)",
    "Café naïve 日本語",
    "=?utf-8?q?looks_encoded?= but is not",
    "a long subject " * 12,
    "tabs\tand   spaces",
    "",
]
PARTIES = [
    (("builder", "root"), ("alice", ""), []),
    (("alice", ""), ("pi", "/srv/app.v2"), ["bob@", "carol@.new"]),
    (("", "zed@example.com"), ("alice", ""), ["mailto:yann@example.com"]),
    (("opencode", "/home/u/proj"), ("bob", ""), ["builder@ModelRouter"]),
]


@pytest.mark.parametrize("subject", SUBJECTS)
@pytest.mark.parametrize(("sender", "to", "cc"), PARTIES)
@pytest.mark.parametrize("alias", [None, "fix-leak"])
def test_a_renderings_keys_are_its_rendered_headers_keys(
    subject: str,
    sender: tuple[str, str],
    to: tuple[str, str],
    cc: list[str],
    alias: str | None,
) -> None:
    mail = _mail(subject, cc=cc, sender=sender, to=to)
    references = [f"<r{n}@{DOMAIN}>" for n in range(3)]
    header = render_header(mail, alias, DOMAIN, references=references)
    fields = rendered_fields(mail, alias, DOMAIN, references)
    assert keys_of_fields(fields) == keys_of_header(header)


def _keys(subject: str) -> HeaderKeys:
    return HeaderKeys(1, subject, False, "A", "B", "", "id@x", ("r@x",) * 3)


def test_the_cache_keeps_to_its_budget_and_drops_the_least_recently_used() -> None:
    cache = SortKeyCache(max_bytes=20_000)
    for seq in range(200):
        cache.begin()  # each key used by a command of its own
        cache.put(seq, _keys(f"subject {seq}"))
    assert cache.get(0) is None and cache.get(199) == _keys("subject 199")
    kept = [seq for seq in range(200) if cache.get(seq) is not None]
    assert 10 < len(kept) < 200
    cache.begin()
    cache.get(kept[0])  # used: now the most recent
    cache.begin()
    cache.put(1000, _keys("new"))
    assert cache.get(kept[0]) is not None and cache.get(kept[1]) is None


def test_a_command_larger_than_the_cache_keeps_what_fits() -> None:
    """A SORT of more messages than fit keeps the first ones it made, instead of
    evicting each for the next (plain LRU would then find none at the next SORT)."""
    cache = SortKeyCache(max_bytes=20_000)
    for _ in range(2):  # two SORTs of the same 200 messages
        cache.begin()
        missed = [seq for seq in range(200) if cache.get(seq) is None]
        for seq in missed:
            cache.put(seq, _keys(f"subject {seq}"))
    assert 10 < 200 - len(missed) < 200  # the second SORT found what fits
    assert cache.get(0) is not None and cache.get(199) is None
