"""`python -m bridges.runtime --name NAME --workspace NAME=PATH [...]`: a bridge on the
stub platform (the runtime's own tests run it, and SIGKILL it). The real platforms'
bridges are `agentmail bridge opencode|claude|pi`."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal

from bridges.client import AgentClient
from bridges.runtime.runtime import Runtime
from bridges.runtime.settings import BridgeSettings
from bridges.runtime.stub import StubPlatform


def _workspaces(values: list[str]) -> list[dict[str, str]]:
    spaces = []
    for value in values:
        name, _, path = value.partition("=")
        spaces.append({"name": name, "path": path or name})
    return spaces


async def _main(arguments: argparse.Namespace) -> None:
    settings = BridgeSettings.from_environment(os.environ)
    client = await AgentClient.from_environment(settings.url)
    await client.register_when_accepted(arguments.name, _workspaces(arguments.workspace), "stub")
    runtime = Runtime(
        client,
        StubPlatform(client.base_url, client.key.secret),
        settings.data_dir,
        agent_name=arguments.name,
        workers=settings.workers,
        turn_timeout=settings.turn_timeout,
    )
    await runtime.start()
    logging.getLogger("agentmail.bridge").info("bridge %s ready", arguments.name)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()
    await runtime.stop()
    await client.close()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bridges.runtime", description=__doc__)
    parser.add_argument("--name", required=True, help="the agent's name")
    parser.add_argument(
        "--workspace", action="append", default=[], metavar="NAME=PATH", help="repeatable"
    )
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)
    asyncio.run(_main(parser.parse_args()))


if __name__ == "__main__":
    main()
