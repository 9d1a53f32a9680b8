"""Test files run heaviest first, so the last file to start is a short one.

pytest-xdist's `--dist loadfile` hands each worker one file at a time in the
order it is given (the Makefile passes `--no-loadscope-reorder`; xdist's own
reorder puts files with the most tests first, which leaves the few long tests —
an import of 10,000 messages, a SIGKILL under load — to the end, one worker
running them while the others wait). The order comes from each file's seconds in
`tests/file_seconds.json`, measured by a whole run with
`AGENTMAIL_RECORD_FILE_SECONDS=1` (`make test-durations`); a file not listed
there counts as its number of tests times the listed files' median seconds a
test. Which order the files run in changes no result: each file's tests keep
their order and their module fixtures.
"""

from __future__ import annotations

import json
import os
import statistics
from collections import defaultdict
from pathlib import Path

import pytest

SECONDS_FILE = Path(__file__).parents[1] / "file_seconds.json"
_ROOT = SECONDS_FILE.parents[1]
_RECORD = "AGENTMAIL_RECORD_FILE_SECONDS"
_measured: defaultdict[str, float] = defaultdict(float)


def _recorded() -> dict[str, float]:
    try:
        seconds: dict[str, float] = json.loads(SECONDS_FILE.read_text())
    except FileNotFoundError:
        return {}
    return seconds


def _file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def heaviest_first(items: list[pytest.Item], recorded: dict[str, float]) -> list[pytest.Item]:
    """`items` grouped by file, files by their expected seconds, most first; the
    items of one file in their own order (ties keep the collection's order)."""
    by_file: dict[str, list[pytest.Item]] = {}
    for item in items:
        by_file.setdefault(_file_of(item.nodeid), []).append(item)
    per_test = [recorded[f] / len(tests) for f, tests in by_file.items() if f in recorded]
    typical = statistics.median(per_test) if per_test else 1.0

    def expected(file: str) -> float:
        return recorded.get(file, typical * len(by_file[file]))

    ordered = sorted(by_file, key=lambda file: -expected(file))
    return [item for file in ordered for item in by_file[file]]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items[:] = heaviest_first(items, _recorded())


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _measured[_file_of(report.nodeid)] += report.duration


def pytest_sessionfinish(session: pytest.Session) -> None:
    """With AGENTMAIL_RECORD_FILE_SECONDS set, the controller (or a run without
    workers) writes each file's seconds, keeping the files this run did not run."""
    if not os.environ.get(_RECORD) or hasattr(session.config, "workerinput") or not _measured:
        return
    seconds = _recorded() | {file: round(total, 1) for file, total in _measured.items()}
    SECONDS_FILE.write_text(json.dumps(dict(sorted(seconds.items())), indent=1) + "\n")
