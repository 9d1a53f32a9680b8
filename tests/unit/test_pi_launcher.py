"""The environment the pi bridge gives each `pi --mode rpc` (bridges/platforms/pi/launcher.py)."""

from __future__ import annotations

from pathlib import Path

from bridges.platforms.pi.launcher import Launcher
from bridges.platforms.pi.settings import PiSettings


def _launcher(environ: dict[str, str], tmp_path: Path) -> Launcher:
    settings = PiSettings.from_environment(environ)
    return Launcher(settings, environ, tmp_path / "tools", tmp_path / "sessions")


def test_pi_starts_offline_and_without_the_agents_keys(tmp_path: Path) -> None:
    """A pi per turn must not check for updates or report installs each time (docs/bridges.md),
    and the model, which runs commands, never sees the agent's key."""
    environ = {
        "PATH": "/usr/bin",
        "AGENTMAIL_AGENT_KEY": "am_secret",
        "AGENTMAIL_ENROLMENT_KEY": "am_enrol",
        "AGENTMAIL_PI_GATED_TOOLS": "bash,write",
    }
    given = _launcher(environ, tmp_path).environ
    assert given["PI_OFFLINE"] == "1"
    assert "AGENTMAIL_AGENT_KEY" not in given and "AGENTMAIL_ENROLMENT_KEY" not in given
    assert given["AGENTMAIL_PI_GATED"] == "bash,write"
    assert given["AGENTMAIL_PI_TOOLS"] == str(tmp_path / "tools")
    assert given["PATH"] == "/usr/bin"


def test_an_operator_may_turn_pi_online(tmp_path: Path) -> None:
    assert _launcher({"PI_OFFLINE": "0"}, tmp_path).environ["PI_OFFLINE"] == "0"
