"""The command line of the benchmarks: the options several share, and the line that
reproduces a run (the options that differ from the defaults, printed beside the
figures so a reader can run the same thing again)."""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Collection


def reproduce(
    script: str,
    args: argparse.Namespace,
    defaults: argparse.Namespace,
    skip: Collection[str] = ("keep",),
) -> str:
    argv = [".venv/bin/python", script]
    for name, value in vars(args).items():
        if name in skip or value == getattr(defaults, name):
            continue
        option = f"--{name.replace('_', '-')}"
        argv += [option] if isinstance(value, bool) else [option, str(value)]
    return shlex.join(argv)


def add_database_url(parser: argparse.ArgumentParser) -> None:
    """`--database-url`: PostgreSQL instead of a fresh SQLite file."""
    parser.add_argument(
        "--database-url",
        default="",
        help="postgresql://postgres@127.0.0.1:5432/postgres: a fresh database is created there "
        "and dropped afterwards; default SQLite",
    )
