"""A setting nobody can find is a setting nobody can use: README documents each one."""

from __future__ import annotations

from pathlib import Path

from core.settings import Settings

README = Path(__file__).resolve().parents[2] / "README.md"


def env_names() -> list[str]:
    names = []
    for name, field in Settings.model_fields.items():
        alias = field.validation_alias
        names.append(alias if isinstance(alias, str) else f"AGENTMAIL_{name.upper()}")
    return names


def test_every_setting_is_in_the_readme() -> None:
    text = README.read_text(encoding="utf-8")
    missing = [name for name in env_names() if f"`{name}`" not in text]
    assert missing == []


def test_defaults_match_the_architecture() -> None:
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert (settings.host, settings.http_port, settings.smtp_port, settings.imap_port) == (
        "127.0.0.1",
        8180,
        2525,
        1143,
    )
    assert settings.domain == "agentmail.localhost"
    assert settings.max_body_bytes == 1_048_576
