"""The opencode platform (`agentmail bridge opencode`): docs/bridges.md#opencode."""

from __future__ import annotations

from bridges.platforms.opencode.platform import OpencodePlatform
from bridges.runtime.platform import PlatformContext


def create(context: PlatformContext) -> OpencodePlatform:
    return OpencodePlatform(context)
