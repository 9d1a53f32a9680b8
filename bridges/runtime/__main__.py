"""`python -m bridges.runtime --name NAME --workspace NAME=PATH [...]`: a bridge on the
stub platform (the runtime's own tests run it, and SIGKILL it). The real platforms'
bridges are `agentmail bridge opencode|claude|pi`."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os

from bridges.runtime.run import run_bridge, workspaces_of


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bridges.runtime", description=__doc__)
    parser.add_argument("--name", required=True, help="the agent's name")
    parser.add_argument(
        "--workspace", action="append", default=[], metavar="NAME=PATH", help="repeatable"
    )
    arguments = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)
    spaces = workspaces_of(arguments.workspace)
    asyncio.run(run_bridge("stub", arguments.name, spaces, os.environ))


if __name__ == "__main__":
    main()
