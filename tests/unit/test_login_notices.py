"""A failed login is counted here and told to the other processes; a failure told by
another is counted without being told again (no echo between replicas)."""

from __future__ import annotations

from core.cluster.login_notices import told_names
from core.identity.throttle import LoginThrottle


def test_a_failure_is_told_once_and_a_told_one_is_not_told_again() -> None:
    throttle = LoginThrottle()
    told: list[str] = []
    throttle.tell = told.append
    throttle.failed("10.0.0.1")
    throttle.failed_elsewhere("10.0.0.1")
    assert told == ["10.0.0.1"]
    assert throttle.retry_after("10.0.0.1", 2) > 0


def test_a_notice_names_its_failures_and_a_process_ignores_its_own() -> None:
    assert told_names("@b\n10.0.0.1\naccount:jianf", "@a") == ["10.0.0.1", "account:jianf"]
    assert told_names("@a\n10.0.0.1", "@a") == []
    assert told_names("@b", "@a") == []
