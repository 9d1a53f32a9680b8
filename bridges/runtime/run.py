"""Run one bridge until SIGTERM/SIGINT: end what a killed run left (survivors.py),
register the agent, start its platform, start the runtime (subscribe, resume
waiting prompts, run the interrupted again, catch up), log `bridge NAME ready`,
and on a signal stop in reverse. A gateway that is away is waited for (one log line
per attempt); a signal meanwhile ends the bridge as quietly as later.
`agentmail bridge PLATFORM` and the stub bridge of the runtime's tests
(`python -m bridges.runtime`) both come here."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Coroutine, Mapping
from pathlib import Path
from typing import Any

from bridges.client import AgentClient
from bridges.platforms import factory
from bridges.runtime.platform import PlatformContext
from bridges.runtime.runtime import Runtime
from bridges.runtime.settings import BridgeSettings
from bridges.runtime.survivors import end_survivors, mark_children, record_children

_log = logging.getLogger("agentmail.bridge")


def workspaces_of(values: list[str]) -> list[tuple[str, str]]:
    """`NAME=PATH` options as (name, absolute path); a bare NAME is its own path."""
    spaces = []
    for value in values:
        name, _, path = value.partition("=")
        spaces.append((name, str(Path(path or name).expanduser().resolve())))
    return spaces


async def run_bridge(
    platform_name: str,
    agent_name: str,
    workspaces: list[tuple[str, str]],
    environ: Mapping[str, str],
) -> None:
    settings = BridgeSettings.from_environment(environ)
    create = factory(platform_name)
    stop = _stop_on_signals()  # a stop while the gateway is awaited ends quietly too
    # What a killed run left behind ends before anything of this run starts.
    await asyncio.to_thread(end_survivors, settings.data_dir)
    mark_children(settings.data_dir)
    recorder = asyncio.create_task(record_children(settings.data_dir), name="processes")
    client = await AgentClient.from_environment(settings.url)
    try:
        spaces = [{"name": name, "path": path} for name, path in workspaces]
        registering = client.register_when_accepted(agent_name, spaces, platform_name)
        if not await _unless_stopped(stop, registering):
            return
        context = PlatformContext(
            client=client,
            url=client.base_url,
            key=client.key.secret,
            agent_name=agent_name,
            workspaces=workspaces,
            data_dir=settings.data_dir,
            environ=environ,
        )
        platform = create(context)
        await platform.start()
        try:
            runtime = Runtime(
                client,
                platform,
                settings.data_dir,
                agent_name=agent_name,
                workers=settings.workers,
                turn_timeout=settings.turn_timeout,
                heartbeat_seconds=settings.heartbeat,
            )
            if await _unless_stopped(stop, runtime.start()):
                _log.info("bridge %s ready (%s)", agent_name, platform_name)
                await stop.wait()
            await runtime.stop()
        finally:
            await platform.close()
    finally:
        recorder.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await recorder
        await client.close()


def _stop_on_signals() -> asyncio.Event:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    return stop


async def _unless_stopped(stop: asyncio.Event, work: Coroutine[Any, Any, object]) -> bool:
    """Run `work` unless a signal comes first (then it is cancelled): True if it ran."""
    task = asyncio.ensure_future(work)
    stopping = asyncio.ensure_future(stop.wait())
    await asyncio.wait([task, stopping], return_when=asyncio.FIRST_COMPLETED)
    stopping.cancel()
    if task.done():
        task.result()  # its exception, if any
        return True
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    return False
