"""The web UI's own words, read from its message catalogues (web/src/locales/), so that
a walk finds a button or heading by its translation key in either language."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any, Literal

Language = Literal["en", "zh"]
LOCALES: dict[Language, str] = {"en": "en-US", "zh": "zh-CN"}  # what the browser says
_CATALOGUES = Path(__file__).resolve().parents[2] / "web" / "src" / "locales"


@cache
def _catalogue(language: Language) -> dict[str, Any]:
    found: dict[str, Any] = json.loads((_CATALOGUES / f"{language}.json").read_text("utf-8"))
    return found


def text(language: Language, key: str) -> str:
    """The message at the dotted `key` (`nav.account`); a missing key fails loudly."""
    node: Any = _catalogue(language)
    for part in key.split("."):
        node = node[part]
    if not isinstance(node, str):
        raise KeyError(f"{key} is not one message in {language}.json")
    return node
