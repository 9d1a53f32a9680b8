"""The parts of a list row made without pydantic (core/mail/list_rows.py) say what the
full views say: the same native addresses, and the counted total and `has_more`."""

from __future__ import annotations

import json

import pytest

from core.address import POSTMASTER
from core.identity.external import EXTERNAL_NAME, stored_party
from core.mail.list_rows import COUNT_CAP, MailRowList, _page_json, _Parties

PARTIES = [
    ("jianf", "", None),
    ("jianf", "", "fix-leak"),
    ("builder", "ModelRouter", "fix-leak"),
    ("pi", "/srv/app.v2", None),
    ("pi", "/srv/app.v2", "rel"),
    ("opencode", "/home/u/proj", None),
    (POSTMASTER, "", "fix-leak"),
    (EXTERNAL_NAME, "bob@example.org", "fix-leak"),
]


@pytest.mark.parametrize(("name", "path", "alias"), PARTIES)
def test_a_party_is_written_as_the_full_view_writes_it(
    name: str, path: str, alias: str | None
) -> None:
    parties = _Parties()
    for _ in range(2):  # worked out, then remembered
        assert parties(name, path, alias) == stored_party(name, path, alias).native()


@pytest.mark.parametrize(
    ("rows", "total", "limit", "want"),
    [
        (3, 3, 5, (3, 3, True, False)),
        (6, 40, 5, (5, 40, True, True)),
        (6, COUNT_CAP + 1, 5, (5, COUNT_CAP, False, True)),
        (0, 2, 5, (0, 2, True, False)),
    ],
)
def test_the_page_says_its_total_and_whether_more_follow(
    rows: int, total: int, limit: int, want: tuple[int, int, bool, bool]
) -> None:
    page = json.loads(_page_json([{"n": n} for n in range(rows)], total, limit))
    assert (len(page["rows"]), page["total"], page["total_exact"], page["has_more"]) == want
    assert set(page) == set(MailRowList.model_fields)
