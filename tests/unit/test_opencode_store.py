"""What the opencode bridge keeps across restarts (`opencode.jsonl`): an answered prompt
is forgotten, and the journal compacted at start holds the state, not the history.
(The platform itself runs in tests/platforms/test_opencode.py.)"""

from __future__ import annotations

from pathlib import Path

from bridges.platforms.opencode.store import OpencodeStore, Prompt


async def test_an_answered_prompt_is_forgotten_and_compaction_keeps_only_the_state(
    tmp_path: Path,
) -> None:
    store = await OpencodeStore.open(tmp_path)
    await store.map_session("c1 /w", "ses_1")
    await store.map_session("c1 /w", "ses_2")  # opencode lost ses_1: a new session
    await store.map_session("c2 /w", "ses_3")
    first = Prompt("per_1", "ses_2", "permission", "touch a")
    second = Prompt("que_2", "ses_3", "question", "Which colour?")
    await store.remember(first)
    await store.remember(second)
    await store.forget("per_1")
    await store.forget("per_1")  # twice: one record
    journal = tmp_path / "opencode.jsonl"
    assert len(journal.read_text().splitlines()) == 6

    again = await OpencodeStore.open(tmp_path)
    assert again.sessions == {"c1 /w": "ses_2", "c2 /w": "ses_3"}
    assert again.prompts == {"que_2": second}

    await again.compact()
    assert len(journal.read_text().splitlines()) == 3
    after = await OpencodeStore.open(tmp_path)
    assert (after.sessions, after.prompts) == (again.sessions, again.prompts)
    assert _leftovers(tmp_path) == []


def _leftovers(directory: Path) -> list[Path]:
    """A compaction's temporary file, if one was left behind."""
    return list(directory.glob("*.compact"))
