"""The stub platform's worker process: runs the script in the mail's body.

The body is JSON `{"steps": [...]}` (the worker fetches it without marking the mail
read, as a platform's first model request would not); each step is one of
`{"do": "read_mail"}` (mark the mail read, as the model's `read_mail` tool does),
`{"do": "mark", "file": F}` (write our pid to F), `{"do": "wait_file", "file": F}`
(wait until F exists), `{"do": "hang"}` (write `hang.pid`, never end),
`{"do": "crash"}` (exit 3 with no answer: the platform failed),
`{"do": "ask", "action": A}` (ask permission, unless granted or being resumed),
`{"do": "run", "command": C}` (run C with the shell, logged to `commands.log`,
skipped when its permission was rejected; `"detached": true` runs it in a session
of its own, as pi's bash tool does), `{"do": "question", "text": T,
"options": [...]}` (ask the human; the answer goes into the reply's notes),
`{"do": "reply", "body": B}` (the final answer), `{"do": "prompt", "file": F}` (write
the turn's prompt, what a model would be given, to F). `activity.log` gets a start and an
end line per process, so tests see overlapping work from the platform's side, not
from the runtime's bookkeeping.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bridges.client import AgentClient
from bridges.runtime.prompt import INTERRUPTED_NOTE


def _say(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def _log_activity(what: str, mail_id: str) -> None:
    with Path("activity.log").open("a") as log:
        log.write(f"{time.monotonic():.6f} {what} {mail_id} {os.getpid()}\n")


async def _mark_read(mail_id: str) -> None:
    async with await AgentClient.from_environment() as client:
        await client.mark_read(mail_id)


async def _script(mail_id: str) -> list[dict[str, Any]]:
    async with await AgentClient.from_environment() as client:
        body = (await client.read(mail_id)).body or ""
    steps: list[dict[str, Any]] = json.loads(body)["steps"]
    return steps


def main() -> None:
    turn = json.loads(sys.stdin.read())
    steps = asyncio.run(_script(turn["mail_id"]))
    _log_activity("start", turn["mail_id"])
    resume = turn.get("resume")
    start = int(resume["request_id"]) if resume else 0
    rejected: dict[str, str] = {}
    notes = []
    if INTERRUPTED_NOTE in turn["prompt"]:
        notes.append("(this turn was run again after an interruption)")
    for index in range(start, len(steps)):
        step = steps[index]
        kind = step["do"]
        if kind == "read_mail":
            asyncio.run(_mark_read(turn["mail_id"]))
        elif kind == "mark":
            Path(step["file"]).write_text(str(os.getpid()))
        elif kind == "prompt":
            Path(step["file"]).write_text(turn["prompt"])
        elif kind == "wait_file":
            while not Path(step["file"]).exists():
                time.sleep(0.02)
        elif kind == "crash":
            sys.exit(3)
        elif kind == "hang":
            Path("hang.pid").write_text(str(os.getpid()))
            while True:
                time.sleep(3600)
        elif kind == "ask":
            action = step["action"]
            if resume and index == start:
                if resume["decision"] == "reject" or resume["decision"] == "expired":
                    rejected[action] = resume.get("note") or ""
                    notes.append(f"(rejected: {action}; {resume.get('note') or 'no note'})")
            elif action not in turn["grants"]:
                _log_activity("park", turn["mail_id"])
                _say(
                    {
                        "type": "ask",
                        "request_id": str(index),
                        "action": action,
                        "question": f"May I run `{action}`?",
                    }
                )
                return
        elif kind == "question":
            if resume and index == start:
                notes.append(f"(answer: {resume.get('note')})")
            else:
                _log_activity("park", turn["mail_id"])
                _say(
                    {
                        "type": "question",
                        "request_id": str(index),
                        "text": step["text"],
                        "options": step.get("options", []),
                    }
                )
                return
        elif kind == "run":
            command = step["command"]
            if command in rejected:
                continue
            with Path("commands.log").open("a") as log:
                log.write(command + "\n")
            detached = bool(step.get("detached"))
            subprocess.run(command, shell=True, check=False, start_new_session=detached)
        elif kind == "reply":
            _log_activity("end", turn["mail_id"])
            _say({"type": "final", "body": " ".join([step["body"], *notes])})
            return
    _say({"type": "final", "body": " ".join(["(no reply step)", *notes])})


if __name__ == "__main__":
    main()
