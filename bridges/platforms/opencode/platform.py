"""The opencode platform: `opencode serve` runs the turns; the bridge drives it over its
HTTP API (the server's own OpenAPI document, `/doc`) and turns its prompts into mail.

* one opencode session per conversation (and workspace), kept in `opencode.jsonl`:
  the next mail of the conversation continues the session, history and all;
* opencode's permission prompts (`permission.asked`) become `Ask`, its question
  tool (`question.asked`) becomes `Question`; both are answered when the human has
  decided (turn.py);
* after each turn the session's title (opencode names a session from its first
  prompt with its small model, meanwhile: after a session's first turn it is waited
  for a few seconds) is offered as the conversation's alias; the gateway
  settles it (a taken alias gets `-2`, a human's rename wins) and, when that is not
  what the title asked for, the settled alias becomes the title, so the name a human
  sees in opencode is the address that reaches the conversation.
"""

from __future__ import annotations

import asyncio
import logging

import httpx

from bridges.client import GatewayError
from bridges.platforms.aliases import alias_of
from bridges.platforms.opencode.config import bridge_config, write_config
from bridges.platforms.opencode.events import EventHub
from bridges.platforms.opencode.server import OpencodeServer
from bridges.platforms.opencode.settings import OpencodeSettings
from bridges.platforms.opencode.store import OpencodeStore
from bridges.platforms.opencode.turn import TurnRunner, _call
from bridges.runtime.platform import PlatformContext, Turn, TurnResult

_log = logging.getLogger("agentmail.bridge.opencode")
DEFAULT_TITLES = ("New session - ", "Child session - ")  # opencode's, until it names one
# opencode names a new session with its small model while the first turn runs; a turn
# may end first. The title is waited for this long, once a session, then left to the
# next turn.
TITLE_WAIT_SECONDS = 5.0
_TITLE_POLL_SECONDS = 0.2


class OpencodePlatform:
    name = "opencode"

    def __init__(self, context: PlatformContext) -> None:
        self.context = context
        self.settings = OpencodeSettings.from_environment(context.environ)
        home = context.data_dir / "opencode"
        self.config_path = home / "opencode.json"
        self.server = OpencodeServer(
            self.settings, self.config_path, home / "serve.log", context.environ
        )
        self.hub = EventHub(self.server)
        self.store: OpencodeStore
        self.runner: TurnRunner
        self._alive: dict[str, int] = {}  # session → the server generation it was seen in
        self._unnamed: set[str] = set()  # sessions made here whose title was never waited for

    async def start(self) -> None:
        """Write the config, read the session map and start opencode (a failure shows now,
        not at the first mail)."""
        write_config(self.config_path, bridge_config(self.context, self.settings))
        self.store = await OpencodeStore.open(self.context.data_dir)
        await self.store.compact()
        self.runner = TurnRunner(self.server, self.hub, self.store, self.settings)
        await self.server.http()

    async def close(self) -> None:
        await self.hub.close()
        await self.server.close()

    async def run_turn(self, turn: Turn) -> TurnResult:
        http = await self.server.http()
        session = await self._session(http, turn)
        result = await self.runner.run(turn, http, session)
        done = turn.resume.request_id if turn.resume is not None else None
        if done is not None and getattr(result, "request_id", None) != done:
            await self.store.forget(done)  # its decision went into this turn
        try:  # opencode may have been started again during the turn: its client now
            await self._sync_title(await self.server.http(), turn, session)
        except (httpx.HTTPError, GatewayError, OSError) as error:  # a courtesy, never the end
            _log.warning("title sync for %s failed: %s", session, error)
        return result

    async def _session(self, http: httpx.AsyncClient, turn: Turn) -> str:
        """The conversation's opencode session: the one mapped, if opencode still has it."""
        key = f"{turn.session_id} {turn.cwd}"
        known = self.store.sessions.get(key)
        if known is not None:
            if self._alive.get(known) == self.server.generation:
                return known
            response = await http.get(f"/session/{known}", params={"directory": turn.cwd})
            if response.status_code == 200:
                self._alive[known] = self.server.generation
                return known
            _log.warning("opencode lost session %s (%s): a new one", known, response.status_code)
        created = await _call(http, "POST", "/session", turn.cwd, json={})
        session = str(created["id"])
        self._unnamed.add(session)
        await self.store.map_session(key, session)
        self._alive[session] = self.server.generation
        return session

    async def _title(self, http: httpx.AsyncClient, turn: Turn, session: str) -> str | None:
        """The title opencode gave the session; None while it has given none (waited for,
        up to TITLE_WAIT_SECONDS, after the session's first turn)."""
        wait = TITLE_WAIT_SECONDS if session in self._unnamed else 0.0
        self._unnamed.discard(session)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait
        while True:
            info = await _call(http, "GET", f"/session/{session}", turn.cwd)
            title = str(info.get("title") or "")
            if title and not title.startswith(DEFAULT_TITLES):
                return title
            if loop.time() >= deadline:
                return None
            await asyncio.sleep(_TITLE_POLL_SECONDS)

    async def _sync_title(self, http: httpx.AsyncClient, turn: Turn, session: str) -> None:
        title = await self._title(http, turn, session)
        if title is None:
            return
        wanted = alias_of(title)
        if wanted is None:
            return
        settled = await self.context.client.sync_session(turn.session_id, session_alias=wanted)
        alias = settled.session_alias
        if alias and alias != wanted:
            await _call(http, "PATCH", f"/session/{session}", turn.cwd, json={"title": alias})
