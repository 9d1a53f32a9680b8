"""`python -m tests.support.fake_model [--port N]`: the fake model on its own, for trying a
platform against it by hand. It prints every request it answers. Its script: the
first request of a turn calls `bash` with `touch done.txt`, the next one answers
with the tool's result; requests without tools (titles, summaries) get "ok"."""

from __future__ import annotations

import argparse
import asyncio

from tests.support.fake_model import Exchange, Reply, call, say, steps

_turn = steps(
    call("bash", command="touch done.txt", description="Create done.txt"),
    lambda exchange: say(
        f"Done. The tool said: {exchange.results[-1].text if exchange.results else ''}"
    ),
)


def demo(exchange: Exchange) -> Reply:
    reply = _turn(exchange) if exchange.tools else say("ok")
    print(
        f"{exchange.protocol} {exchange.model} step {exchange.step} tools={len(exchange.tools)}"
        f" task={exchange.task[:60]!r} -> {reply}",
        flush=True,
    )
    return reply


async def _main(port: int) -> None:
    from tests.support.fake_model import FakeModel

    model = FakeModel(demo)
    await model.start(port)
    print(f"fake model on {model.url} (OpenAI base {model.openai_base})", flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m tests.support.fake_model")
    parser.add_argument("--port", type=int, default=0)
    asyncio.run(_main(parser.parse_args().port))
