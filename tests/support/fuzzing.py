"""Hypothesis profiles: `ci` (the default, bounded and deterministic) and `long`.

`AGENTMAIL_TEST_PROFILE=long` (what `make test-long` sets) gives every property
test ten times the examples, drawn at random instead of the same ones each run.
The fuzz and schemathesis suites size their runs with `examples(n)`: n in CI,
10 n in the long run. A suite that should grow in the long run is marked
`@pytest.mark.fuzz`; `make test-long` runs those.
"""

from __future__ import annotations

import os
from typing import TypeVar

from hypothesis import HealthCheck, given, settings
from hypothesis.strategies import SearchStrategy

T = TypeVar("T")

PROFILE = os.environ.get("AGENTMAIL_TEST_PROFILE", "ci")
CI_EXAMPLES = 100  # hypothesis's own default, so the existing property tests are unchanged
LONG_FACTOR = 10

# Derandomized: CI draws the same examples every run, so a red run is a change of the
# code, never the luck of the draw; the long run draws at random to find new ones.
settings.register_profile("ci", max_examples=CI_EXAMPLES, derandomize=True, database=None)
settings.register_profile(
    "long",
    max_examples=CI_EXAMPLES * LONG_FACTOR,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(PROFILE)


def examples(ci: int) -> int:
    """`ci` examples in CI, proportionally more under the long profile."""
    scale: int = settings.default.max_examples
    return max(1, ci * scale // CI_EXAMPLES)


def fuzz_settings(count: int) -> settings:
    """A fuzz target's settings: `count` cases (size it with `examples`), the same
    ones every CI run (derandomized, no example database), no deadline (tests
    never assert time)."""
    return settings(
        max_examples=count,
        derandomize=PROFILE != "long",
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )


def drawn(strategy: SearchStrategy[T], count: int) -> list[T]:
    """`count` values of `strategy`, the same every CI run: drawn up front, so that a
    fuzz test draws nothing while the gateway it probes shares its event loop
    (hypothesis's first draw scans modules, which would stall that loop)."""
    values: list[T] = []

    @fuzz_settings(count)
    @given(strategy)
    def collect(value: T) -> None:
        values.append(value)

    collect()
    return values[:count]
