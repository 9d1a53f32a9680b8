"""The secret box a gateway's settings name: `AGENTMAIL_SECRET_KEY`, else the data dir's
key file (made at first start; enough for one machine, not for replicas on several)."""

from __future__ import annotations

from core.secrets.box import SecretBox, box_from_key_file, box_from_text
from core.settings import Settings


def secret_box(settings: Settings) -> SecretBox:
    if settings.secret_key is not None:
        return box_from_text(settings.secret_key.get_secret_value())
    return box_from_key_file(settings.data_dir)
