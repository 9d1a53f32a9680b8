"""SSE: ids, resume with Last-Event-ID, resync, keep-alive, and who gets what."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import update

from core.store.events import prune_events
from core.store.models import Event, utcnow
from tests.support.gateway import Api, running_gateway
from tests.support.sse import open_stream


async def _send(human, to: str, subject: str) -> str:  # type: ignore[no-untyped-def]
    response = await human.post(
        "/api/v1/me/mail/send", json={"to": to, "subject": subject, "body": subject}
    )
    assert response.status_code == 200, response.text
    mail_id: str = response.json()["mail_id"]
    return mail_id


async def test_resume_replays_exactly_the_missed_events_in_order(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder")

    async with open_stream(builder) as stream:
        first = await _send(human, "builder@ModelRouter", "before the drop")
        event = await stream.next_of("new_mail")
        assert event.json["mail_id"] == first
        last_seen = event.id
    assert last_seen is not None and last_seen.isdigit()

    missed = [await _send(human, "builder@ModelRouter", f"missed {n}") for n in range(3)]

    async with open_stream(builder, headers={"Last-Event-ID": last_seen}) as stream:
        replayed = [await stream.next() for _ in range(3)]
        assert [e.event for e in replayed] == ["new_mail"] * 3
        assert [e.json["mail_id"] for e in replayed] == missed
        ids = [int(e.id or 0) for e in replayed]
        assert ids == sorted(ids) and ids[0] > int(last_seen)
        # And the stream goes on live after the replay, with nothing replayed twice:
        # the next event is the live one.
        live = await _send(human, "builder@ModelRouter", "live")
        assert (await stream.next()).json["mail_id"] == live


async def test_resume_by_query_parameter_for_browsers(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder")
    async with open_stream(builder) as stream:
        await _send(human, "builder@ModelRouter", "one")
        seen = (await stream.next()).id
    after = await _send(human, "builder@ModelRouter", "two")
    async with open_stream(builder, after=seen) as stream:
        assert (await stream.next()).json["mail_id"] == after


async def test_a_new_stream_starts_at_now(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder")
    await _send(human, "builder@ModelRouter", "old news")
    async with open_stream(builder) as stream:
        # The first event is the fresh mail: nothing older came before it.
        fresh = await _send(human, "builder@ModelRouter", "fresh")
        assert (await stream.next()).json["mail_id"] == fresh


async def test_events_go_only_to_their_recipients(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder")
    other = await api.agent("other", [("repo", "/srv/repo")])
    async with open_stream(other) as bystander, open_stream(builder) as target:
        await _send(human, "builder@ModelRouter", "for builder only")
        assert (await target.next()).event == "new_mail"
        # The bystander's first event is a mail of its own, sent after: nothing before it.
        own = await _send(human, "other@repo", "for other")
        assert (await bystander.next()).json["mail_id"] == own


async def test_resume_from_before_retention_gets_resync_first(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder")
    async with open_stream(builder) as stream:
        await _send(human, "builder@ModelRouter", "soon pruned")
        old_id = (await stream.next()).id
    await _send(human, "builder@ModelRouter", "also pruned")
    # The newest event outlives any retention (core/store/events.py): this one stays.
    await _send(human, "builder@ModelRouter", "kept")
    store = api.gateway.store
    assert store is not None
    ancient = update(Event).values(created_at=utcnow().replace(year=2000))
    await store.write(lambda session: session.execute(ancient))
    from datetime import timedelta

    assert await prune_events(store, timedelta(days=1)) > 0

    async with open_stream(builder, headers={"Last-Event-ID": old_id or "0"}) as stream:
        first = await stream.next()
        assert first.event == "resync"
        kept = await _send(human, "builder@ModelRouter", "after resync")
        assert (await stream.next()).json["mail_id"] == kept


async def test_keep_alive_comments(database_url: str, tmp_path: Path) -> None:
    async with running_gateway(database_url, tmp_path / "d", sse_ping_seconds=0.2) as gateway:
        api = Api(gateway)
        try:
            builder = await api.agent("builder")
            async with open_stream(builder) as stream:
                assert await stream.nothing_within(0.7)
                assert any(c.startswith("ping") for c in stream.comments), stream.comments
        finally:
            await api.close()


async def test_bad_last_event_id_is_a_clear_error(api: Api) -> None:
    builder = await api.agent("builder")
    response = await builder.get("/api/v1/events/stream", headers={"Last-Event-ID": "abc"})
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "invalid_request"


async def test_a_cursor_ahead_of_the_store_gets_resync_then_live_events(api: Api) -> None:
    """A bridge that kept its cursor across a restore (`Last-Event-ID: 999999`, or
    `?after=10**18`) is told to resync, then hears what comes next."""
    human = await api.human("jianf")
    builder = await api.agent("builder")
    ahead: list[dict[str, Any]] = [
        {"headers": {"Last-Event-ID": "999999"}},
        {"after": str(10**18)},
    ]
    for how in ahead:
        async with open_stream(builder, **how) as stream:
            first = await stream.next()
            assert first.event == "resync", how
            sent = await _send(human, "builder@ModelRouter", f"after {sorted(how)}")
            live = await stream.next_of("new_mail")
            assert live.json["mail_id"] == sent, how


async def test_a_stream_has_every_event_after_its_response_opens(api: Api) -> None:
    """The response opens only once the stream is subscribed and its position read, so
    a mail sent the moment the headers arrive is on it, with no wait for the first
    comment: a browser fetches its lists again at that moment and relies on it
    (web/src/app/useLiveUpdates.ts)."""
    human = await api.human("jianf")
    builder = await api.agent("builder")
    for n in range(5):
        async with open_stream(builder, connected=False) as stream:
            sent = await _send(human, "builder@ModelRouter", f"as it opened {n}")
            assert (await stream.next_of("new_mail")).json["mail_id"] == sent
