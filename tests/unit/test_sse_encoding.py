"""The SSE route writes its events by hand (`api/routes/events.py`): byte for byte what
sse-starlette's `ServerSentEvent` writes for the same event, line breaks and
non-ASCII text in the payload included."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sse_starlette import ServerSentEvent

from api.routes.events import _encoded
from core.store.bus import StoredEvent

PAYLOADS: list[dict[str, Any]] = [
    {},
    {"mail_id": "m1", "subject": "two\nlines\r\nand\ra carriage return"},
    {"subject": "héllo \u2013 日本語 \u2028 \u0085 \x00", "nested": {"list": [1, 2.5, None, True]}},
]


@pytest.mark.parametrize("payload", PAYLOADS)
def test_an_event_is_written_as_sse_starlette_writes_it(payload: dict[str, Any]) -> None:
    event = StoredEvent(42, "new_mail", payload)
    expected = ServerSentEvent(id="42", event="new_mail", data=json.dumps(payload)).encode()
    assert _encoded([event]) == expected


def test_a_batch_is_its_events_in_order() -> None:
    events = [StoredEvent(i, "session_update", {"i": i}) for i in (7, 8, 12)]
    expected = b"".join(
        ServerSentEvent(id=str(e.id), event=e.type, data=json.dumps(e.payload)).encode()
        for e in events
    )
    assert _encoded(events) == expected
