"""Lines a test wants in the run's terminal summary (CI logs show them without `-s`).

A line travels with the test's report (`user_properties`), so it reaches the
summary also when the test ran in a pytest-xdist worker: workers send their
reports to the controller, which is the process that writes the summary.
"""

from __future__ import annotations

from collections.abc import Generator

import pytest

_KEY = "agentmail_summary_note"
_PENDING: list[str] = []  # noted during the test now running, not yet in a report
_LINES: list[str] = []


def note(line: str) -> None:
    """Print `line` now (seen with `-s`) and again in the terminal summary."""
    print(line)
    _PENDING.append(line)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item) -> Generator[None, pytest.TestReport, None]:
    outcome = yield
    report = outcome.get_result()
    report.user_properties.extend((_KEY, line) for line in _PENDING)
    _PENDING.clear()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _LINES.extend(str(value) for key, value in report.user_properties if key == _KEY)


def write_summary(reporter: pytest.TerminalReporter) -> None:
    if _LINES:
        reporter.section("notes")
        for line in _LINES:
            reporter.write_line(line)
