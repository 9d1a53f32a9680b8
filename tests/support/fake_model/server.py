"""The scripted fake model as an HTTP server on a free loopback port.

It answers both wire protocols a platform may speak: OpenAI chat completions
(`/v1/chat/completions`) and Anthropic Messages (`/v1/messages`), streaming or not,
plus the model lists and token counting platforms ask for on the side. Every
request is kept in `log` (with start and end times, so a test can see platform
activity overlap), every unknown path in `unhandled`, and a script that fails
answers 500 and lands in `errors` — a test should end with both empty.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import time
import traceback
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from tests.support.fake_model import anthropic_wire, openai_wire
from tests.support.fake_model.script import Exchange, Reply, Script, say

DEFAULT_MODELS = ["fake-model"]


def _default(exchange: Exchange) -> Reply:
    return say("ok")


class FakeModel:
    def __init__(self, script: Script = _default, *, models: list[str] | None = None) -> None:
        self.script: Script = script
        self.models = models or list(DEFAULT_MODELS)
        self.log: list[Exchange] = []
        self.unhandled: list[str] = []
        self.errors: list[str] = []
        self.changed = asyncio.Event()  # set on every request answered; tests clear it
        self._server: uvicorn.Server | None = None
        self._task: asyncio.Task[None] | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_base(self) -> str:
        return f"{self.url}/v1"

    # -- answering --------------------------------------------------------------

    async def _answer(self, exchange: Exchange) -> Reply:
        self.log.append(exchange)
        result = self.script(exchange)
        reply = await result if inspect.isawaitable(result) else result
        assert isinstance(reply, Reply), f"a script must return a Reply, not {reply!r}"
        exchange.reply = exchange.resolved(reply)
        return exchange.reply

    async def _serve(
        self,
        request: Request,
        read: Callable[[dict[str, Any]], Exchange],
        whole: Callable[[Exchange, Reply], dict[str, Any]],
        stream: Callable[[Exchange, Reply], Iterator[str]],
    ) -> Response:
        body = json.loads(await request.body() or b"{}")
        exchange = read(body)
        try:
            reply = await self._answer(exchange)
        except Exception:
            self.errors.append(traceback.format_exc())
            return JSONResponse({"error": {"message": "the fake model's script failed"}}, 500)
        finally:
            exchange.finished = time.monotonic()
            self.changed.set()
        if exchange.stream:
            return StreamingResponse(stream(exchange, reply), media_type="text/event-stream")
        return JSONResponse(whole(exchange, reply))

    async def _chat(self, request: Request) -> Response:
        return await self._serve(request, openai_wire.read, openai_wire.whole, openai_wire.chunks)

    async def _messages(self, request: Request) -> Response:
        return await self._serve(
            request, anthropic_wire.read, anthropic_wire.whole, anthropic_wire.events
        )

    async def _count_tokens(self, request: Request) -> Response:
        return JSONResponse(anthropic_wire.count_tokens(json.loads(await request.body() or b"{}")))

    async def _models(self, request: Request) -> Response:
        if "anthropic-version" in request.headers:
            return JSONResponse(anthropic_wire.models(self.models))
        return JSONResponse(openai_wire.models(self.models))

    async def _unknown(self, request: Request) -> Response:
        self.unhandled.append(f"{request.method} {request.url.path}")
        return JSONResponse({"error": {"message": f"no such path {request.url.path}"}}, 404)

    def app(self) -> Starlette:
        routes = []
        for prefix in ("", "/v1"):
            routes += [
                Route(f"{prefix}/chat/completions", self._chat, methods=["POST"]),
                Route(f"{prefix}/messages", self._messages, methods=["POST"]),
                Route(f"{prefix}/messages/count_tokens", self._count_tokens, methods=["POST"]),
                Route(f"{prefix}/models", self._models, methods=["GET"]),
            ]
        methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]
        routes.append(Route("/{path:path}", self._unknown, methods=methods))
        return Starlette(routes=routes)

    # -- lifecycle ----------------------------------------------------------------

    async def start(self, port: int = 0) -> None:
        config = uvicorn.Config(
            self.app(), host="127.0.0.1", port=port, log_level="warning", lifespan="off"
        )
        self._server = uvicorn.Server(config)
        self._task = asyncio.create_task(self._server.serve())
        async with asyncio.timeout(10):
            while not self._server.started:
                if self._task.done():
                    self._task.result()
                await asyncio.sleep(0.01)
        self.port = self._server.servers[0].sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._server is not None and self._task is not None:
            self._server.should_exit = True
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def __aenter__(self) -> FakeModel:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # -- for tests ----------------------------------------------------------------

    async def wait_for(self, predicate: Callable[[], bool], timeout: float = 60.0) -> None:
        """Until `predicate()` holds, re-checked after every request answered."""
        async with asyncio.timeout(timeout):
            while not predicate():
                self.changed.clear()
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(0.5):
                        await self.changed.wait()

    def exchanges(self, mentioning: str) -> list[Exchange]:
        """The requests whose turn's task mentions `mentioning` (a mail id, a subject)."""
        return [exchange for exchange in self.log if mentioning in exchange.task]


@contextlib.asynccontextmanager
async def fake_model(script: Script = _default, **options: Any) -> AsyncIterator[FakeModel]:
    model = FakeModel(script, **options)
    await model.start()
    try:
        yield model
    finally:
        await model.stop()
