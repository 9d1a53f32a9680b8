"""The long kill matrix on the real Claude Code (`make platforms-long`, not CI): cells (a),
(c) decided after the restart, (e), and gateway and bridge restarts in both orders
(tests/support/long_matrix.py, kill_cells.py). Cells (b) and (d) run in CI (test_claude.py)."""

import pytest

from tests.support.long_matrix import *  # noqa: F403  (the matrix's tests and its world)

PLATFORM = "claude"
pytestmark = pytest.mark.platform_long
