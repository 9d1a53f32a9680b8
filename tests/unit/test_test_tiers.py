"""Every folder of tests is run by `make test`: a tier missing from the Makefile's
pytest lines would pass CI without running at all."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_test_folder_is_run_by_make_test() -> None:
    makefile = (ROOT / "Makefile").read_text()
    named = set(re.findall(r"\btests/(\w+)", makefile))
    folders = {
        path.parent.name
        for path in (ROOT / "tests").glob("*/test_*.py")
        if path.parent.name != "support"
    }
    assert folders - named == set()
