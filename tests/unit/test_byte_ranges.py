"""`Range: bytes=…` read as RFC 9110 §14 says: one range within the content, `416`
when no byte of it is in the range, the whole content for anything else."""

from __future__ import annotations

import pytest

from api.byte_ranges import ByteRange, Unsatisfiable, etag, requested_range

SHA = "ab" * 32


@pytest.mark.parametrize(
    ("header", "size", "expected"),
    [
        ("bytes=0-0", 10, ByteRange(0, 0)),
        ("bytes=2-5", 10, ByteRange(2, 5)),
        ("bytes=2-", 10, ByteRange(2, 9)),
        ("bytes=-3", 10, ByteRange(7, 9)),
        ("bytes=-30", 10, ByteRange(0, 9)),
        ("bytes=8-30", 10, ByteRange(8, 9)),
        ("Bytes = 2 - 5", 10, ByteRange(2, 5)),  # the unit is case-insensitive
        (None, 10, None),
        ("bytes=0-1,4-5", 10, None),  # several ranges: the whole content
        ("bytes=5-2", 10, None),  # not a range-spec: ignored
        ("bytes=-", 10, None),
        ("items=0-1", 10, None),
        ("bytes=a-b", 10, None),
    ],
)
def test_a_range_within_the_content(header: str | None, size: int, expected: object) -> None:
    assert requested_range(header, None, size, SHA) == expected


@pytest.mark.parametrize(("header", "size"), [("bytes=10-", 10), ("bytes=-0", 10), ("bytes=-5", 0)])
def test_no_byte_in_the_range_is_unsatisfiable(header: str, size: int) -> None:
    with pytest.raises(Unsatisfiable):
        requested_range(header, None, size, SHA)


def test_if_range_must_name_the_content() -> None:
    assert requested_range("bytes=0-1", etag(SHA), 10, SHA) == ByteRange(0, 1)
    assert requested_range("bytes=0-1", '"other"', 10, SHA) is None
    assert requested_range("bytes=0-1", "Tue, 01 Jul 2025 10:00:00 GMT", 10, SHA) is None
    assert ByteRange(2, 5).content_range(10) == "bytes 2-5/10"
