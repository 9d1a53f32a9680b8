"""The opencode platform's settings: read from AGENTMAIL_OPENCODE_*, each one documented,
and the config the bridge gives opencode (bridges/platforms/opencode/settings.py, config.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bridges.platforms.opencode.config import bridge_config, write_config
from bridges.platforms.opencode.settings import PREFIX, OpencodeSettings
from bridges.runtime.platform import PlatformContext

ROOT = Path(__file__).resolve().parents[2]


def test_every_setting_is_documented() -> None:
    source = (ROOT / "bridges/platforms/opencode/settings.py").read_text()
    names = {PREFIX + name for name in re.findall(r'value\("([A-Z_]+)"\)', source)}
    assert len(names) == 6
    section = (ROOT / "docs/bridges.md").read_text().split("## opencode", 1)[1]
    assert not [name for name in sorted(names) if f"`{name}`" not in section]


def test_defaults_and_a_model_named_with_its_provider() -> None:
    defaults = OpencodeSettings.from_environment({})
    assert (defaults.binary, defaults.model, defaults.port) == ("opencode", None, 0)
    assert len(defaults.password) >= 32 and defaults.model_ref is None
    chosen = OpencodeSettings.from_environment({PREFIX + "MODEL": "local/qwen"})
    assert chosen.model_ref == {"providerID": "local", "modelID": "qwen"}
    with pytest.raises(ValueError, match="provider/model"):
        OpencodeSettings.from_environment({PREFIX + "MODEL": "qwen"})


def test_the_config_asks_for_shell_and_edits_and_keeps_the_key_in_a_private_file(
    tmp_path: Path,
) -> None:
    context = PlatformContext(
        client=None,  # type: ignore[arg-type]  # not used to build the config
        url="http://127.0.0.1:8180",
        key="amk_secret",
        agent_name="builder",
        workspaces=[("app", "/srv/app")],
        data_dir=tmp_path,
        environ={},
    )
    config = bridge_config(context, OpencodeSettings.from_environment({}))
    assert config["permission"] == {"bash": "ask", "edit": "ask", "webfetch": "ask"}
    assert config["autoupdate"] is False and config["share"] == "disabled"
    server = config["mcp"]["agentmail"]
    assert server["command"][-2:] == ["--workspace", "app=/srv/app"]
    assert server["environment"]["AGENTMAIL_AGENT_KEY"] == "amk_secret"
    path = tmp_path / "opencode" / "opencode.json"
    write_config(path, config)
    assert path.stat().st_mode & 0o777 == 0o600
