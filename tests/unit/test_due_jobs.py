"""How long a job that runs when due sleeps: until its next piece of work, never less
than a moment (a job due but held by another replica) nor more than the quiet bound."""

from __future__ import annotations

from datetime import timedelta

from core.store.due_jobs import QUIET_SECONDS, SOONEST_SECONDS, seconds_until
from core.store.models import utcnow


def test_nothing_queued_sleeps_the_quiet_bound() -> None:
    assert seconds_until(None, utcnow()) == QUIET_SECONDS
    assert seconds_until(None, utcnow(), quiet=5.0) == 5.0


def test_it_sleeps_until_the_next_job_is_due() -> None:
    now = utcnow()
    assert seconds_until(now + timedelta(seconds=7.5), now) == 7.5


def test_due_now_or_overdue_looks_again_after_a_moment() -> None:
    now = utcnow()
    assert seconds_until(now, now) == SOONEST_SECONDS
    assert seconds_until(now - timedelta(hours=3), now) == SOONEST_SECONDS


def test_far_off_work_still_looks_at_the_quiet_bound() -> None:
    now = utcnow()
    assert seconds_until(now + timedelta(days=2), now) == QUIET_SECONDS
