"""The bus's rule for pushed events (core/store/bus.py): a stream may skip reading the
rows only while every id since its last read reached it by push, in order.

Pure bus logic, no database: ids are given by hand, as the rows would number them.
tests/integration/test_event_push.py drives the same rule through real stores.
"""

from __future__ import annotations

from core.store.bus import EventBus, StoredEvent


def event(id_: int) -> StoredEvent:
    return StoredEvent(id_, "new_mail", {"n": id_})


async def test_only_contiguous_pushes_keep_a_stream_complete() -> None:
    bus = EventBus()
    with bus.subscribe("x", events=True) as x, bus.subscribe("imap") as idle:
        assert not x.complete  # it has read nothing yet
        bus.push([("x", event(10))], ["x"])  # the first push: what came before is unknown
        assert not x.complete
        generation = x.generation
        x.caught_up(10, generation)  # it read every row up to 10
        assert x.complete and x.take(0) == []  # 10 was read: not handed twice

        bus.push([("y", event(11)), ("x", event(12))], ["x", "y", "imap"])
        assert x.complete and [e.id for e in x.take(10)] == [12]
        assert idle.complete is False and idle.take(0) == []  # IDLE keeps no events

        bus.push([("x", event(15))], ["x"])  # 13 and 14 were not pushed: someone else's
        assert not x.complete  # it reads the rows at its next wake

        generation = x.generation
        bus.push([("x", event(16))], ["x"])
        bus.push([("x", event(14))], ["x"])  # a late push of an earlier commit
        x.caught_up(15, generation)  # the read began before 16 came: 16 stays queued
        assert x.complete and [e.id for e in x.take(15)] == [16]

        generation = x.generation
        bus.push([("x", event(20))], ["x"])  # a gap while a read was under way
        x.caught_up(17, generation)
        assert not x.complete  # read again at the next wake


async def test_a_wake_from_another_replica_makes_its_streams_read() -> None:
    bus = EventBus()
    with bus.subscribe("x", events=True) as x, bus.subscribe("y", events=True) as y:
        bus.push([("x", event(1))], [])
        x.caught_up(1, x.generation)
        y.caught_up(1, y.generation)
        bus.publish(["x"])
        assert not x.complete and y.complete
        bus.publish_all()
        assert not y.complete


async def test_a_recipients_wakes_are_counted_once_for_all_their_subscriptions() -> None:
    """`Wakes`: every wake of the recipient, by push, another replica or all at once,
    moves the count all their subscriptions share; nobody else's does, and the count
    never starts again (a read stamped with an old count must not hold)."""
    bus = EventBus()
    with bus.subscribe("x") as one, bus.subscribe("x") as two, bus.subscribe("y") as other:
        assert one.shared is two.shared and one.shared is not other.shared
        counts = []
        bus.push([], ["x"])
        counts.append(one.shared.count)
        bus.publish(["x"])  # another replica's commit
        counts.append(one.shared.count)
        bus.publish_all()
        counts.append(one.shared.count)
        bus.push([], ["y"])
        counts.append(one.shared.count)
        assert counts == [1, 2, 3, 3]
        assert (one.wakes, two.wakes) == (3, 3)
        shared = one.shared
    with bus.subscribe("x") as again:
        assert again.shared is shared and again.shared.count == 3
        bus.push([], ["x"])
        assert again.shared.count == 4
