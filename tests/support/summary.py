"""Lines a test wants in the run's terminal summary (CI logs show them without `-s`)."""

from __future__ import annotations

import pytest

_LINES: list[str] = []


def note(line: str) -> None:
    """Print `line` now (seen with `-s`) and again in the terminal summary."""
    print(line)
    _LINES.append(line)


def write_summary(reporter: pytest.TerminalReporter) -> None:
    if _LINES:
        reporter.section("notes")
        for line in _LINES:
            reporter.write_line(line)
