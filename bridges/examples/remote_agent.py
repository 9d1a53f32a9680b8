#!/usr/bin/env python3
"""A minimal AgentMail agent in the Python standard library alone.

It proves that the protocol needs no SDK: everything here is `urllib` for REST,
`http.client` for the event stream and `json`. It can run on any host that
reaches the gateway over HTTP. For each task a human mails it, the agent

1. reads the mail (and marks it read),
2. replies that it is on it,
3. asks the human for permission to act (a permission request bound to the
   exact action text),
4. waits for the decision, which arrives on its event stream, and
5. sends its final answer (`mail_type: final_summary`) in the same conversation.

Run it (the key is an agent key an admin issued, `agentmail key issue`):

    AGENTMAIL_URL=http://127.0.0.1:8180 AGENTMAIL_AGENT_KEY=amk_... \\
        python3 remote_agent.py --name echo --workspace demo=/srv/demo

It never splits an address itself: it answers to the `from` address the
gateway gives, which carries the conversation's alias.
"""

from __future__ import annotations

import argparse
import http.client
import json
import logging
import os
import random
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger("remote_agent")
API = "/api/v1"


class GatewayError(Exception):
    """The gateway's refusal: its status and its `{error: {code, message}}`."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code, self.message = status, code, message


@dataclass
class SseEvent:
    id: str | None
    event: str
    data: str

    def json(self) -> Any:
        return json.loads(self.data) if self.data else {}


@dataclass
class RemoteGateway:
    """REST with urllib, the event stream with http.client: all the SDK an agent needs."""

    url: str
    key: str
    last_event_id: str | None = None
    failures: int = 0

    def call(
        self, method: str, path: str, body: Any = None, query: dict[str, str] | None = None
    ) -> Any:
        target = self.url.rstrip("/") + API + path
        if query:
            target += "?" + urllib.parse.urlencode(query)
        request = urllib.request.Request(target, method=method, headers=self._headers())
        if body is not None:
            request.data = json.dumps(body).encode()
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as refused:
            try:
                error = json.loads(refused.read())["error"]
            except (ValueError, KeyError, TypeError):
                error = {"code": "http_error", "message": refused.reason}
            raise GatewayError(refused.code, error["code"], error["message"]) from None

    def register(self, name: str, workspaces: list[dict[str, str]], platform: str) -> Any:
        body = {"name": name, "workspaces": workspaces, "platform": platform}
        registered = self.call("POST", "/agent/register", body)
        if registered.get("agent_key"):
            # An enrolment (one-time) key was exchanged for a permanent one.
            self.key = registered["agent_key"]
            log.warning("enrolled: keep the permanent key the gateway returned to restart")
        return registered

    def events(self) -> Iterator[SseEvent]:
        """One connection to `GET /events/stream`, parsed as the HTML standard's
        event-stream format (§9.2.6); `: connected` is yielded as a `connected` event.

        Resumes after `last_event_id`, so a reconnection replays what was missed.
        """
        parts = urllib.parse.urlsplit(self.url)
        connection_type = (
            http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        )
        # The gateway pings every 15 s by default: a minute of silence is a dead link.
        connection = connection_type(parts.netloc, timeout=60)
        headers = {**self._headers(), "Accept": "text/event-stream"}
        if self.last_event_id is not None:
            headers["Last-Event-ID"] = self.last_event_id
        try:
            path = parts.path.rstrip("/") + API + "/events/stream"
            connection.request("GET", path, headers=headers)
            response = connection.getresponse()
            if response.status != 200:
                raise GatewayError(response.status, "stream_refused", response.read().decode())
            event_id: str | None = None
            event_type, data = "message", list[str]()
            for raw in response:
                line = raw.decode("utf-8").rstrip("\r\n")
                if line == "":
                    if event_id is not None:  # an id alone moves the cursor too
                        self.last_event_id = event_id
                    if data:
                        yield SseEvent(event_id, event_type, "\n".join(data))
                    event_id, event_type, data = None, "message", []
                elif line.startswith(":"):
                    if line[1:].strip() == "connected":
                        self.failures = 0
                        yield SseEvent(None, "connected", "")
                else:
                    name, _, value = line.partition(":")
                    value = value.removeprefix(" ")
                    if name == "id":
                        event_id = value
                    elif name == "event":
                        event_type = value
                    elif name == "data":
                        data.append(value)
        finally:
            connection.close()

    def pause_before_reconnect(self) -> None:
        """Exponential backoff with full jitter, at most 30 s."""
        self.failures += 1
        time.sleep(random.uniform(0, min(30.0, 0.5 * 2**self.failures)))

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}


@dataclass
class Task:
    """A mail the agent is working on, waiting for the decision on its request."""

    mail: dict[str, Any]
    action: str


@dataclass
class RemoteAgent:
    gateway: RemoteGateway
    exit_after: int | None = None
    handled: set[str] = field(default_factory=set)
    waiting: dict[str, Task] = field(default_factory=dict)  # permission mail_id → task
    completed: int = 0

    @property
    def done(self) -> bool:
        return self.exit_after is not None and self.completed >= self.exit_after

    def run(self) -> None:
        """Follow the event stream for ever (or until `exit_after` tasks are done).

        A dropped stream is resumed with `Last-Event-ID`, so nothing is missed;
        each (re)connection first catches up on unread mail and open requests,
        which covers what arrived while no stream was open.
        """
        for event in self.events():
            if event.event == "connected" or event.event == "resync":
                self.catch_up()
            elif event.event == "new_mail":
                self.on_new_mail(event.json()["mail_id"])
            elif event.event == "permission_decision":
                self.on_decision(event.json()["mail_id"])
            if self.done:
                return

    def events(self) -> Iterator[SseEvent]:
        while True:
            try:
                yield from self.gateway.events()
                log.warning("the gateway closed the event stream; reconnecting")
            except (OSError, http.client.HTTPException, GatewayError) as error:
                if isinstance(error, GatewayError) and error.status < 500:
                    raise  # a revoked key or a bad request: retrying cannot help
                log.warning("event stream lost (%s); reconnecting", error)
            self.gateway.pause_before_reconnect()

    def catch_up(self) -> None:
        unread = self.gateway.call(
            "GET", "/mail/inbox", query={"status": "unread", "order": "oldest", "limit": "100"}
        )
        for mail in unread["mails"]:
            self.on_new_mail(mail["mail_id"])
        for permission_id in list(self.waiting):
            self.on_decision(permission_id)

    def on_new_mail(self, mail_id: str) -> None:
        if mail_id in self.handled or mail_id in self.waiting:
            return
        mail = self.gateway.call("GET", f"/mail/{mail_id}")
        # Only what a human addressed to us; never answer automatic mail (no loops).
        if mail.get("delivery") != "to" or mail["auto"] or mail["mail_type"] != "normal":
            return
        self.handled.add(mail_id)
        self.gateway.call("POST", f"/mail/{mail_id}/read")
        log.info("task %s from %s: %s", mail_id, mail["from"], mail["subject"])
        self.gateway.call(
            "POST",
            "/mail/send",
            {
                "to": mail["from"],
                "reply_to": mail_id,
                "subject": f"Re: {mail['subject']}",
                "body": "Got it. I will ask you before I act.",
            },
        )
        action = f"answer the task {mail['subject']!r}"
        try:
            asked = self.gateway.call(
                "POST",
                "/permission/request",
                {
                    "to": mail["from"],
                    "reply_to": mail_id,
                    "question": f"May I {action}?",
                    "options": ["approve", "reject"],
                    "context": (mail.get("body") or "")[:500],
                    "action": action,
                    "expires_in": "1d",
                },
            )
        except GatewayError as error:  # e.g. the sender is an agent: only humans decide
            self.finish(mail, f"I could not ask for permission: {error.message}")
            return
        self.waiting[asked["mail_id"]] = Task(mail, action)
        log.info("asked permission %s, waiting for the decision", asked["mail_id"])

    def on_decision(self, permission_id: str) -> None:
        task = self.waiting.get(permission_id)
        if task is None:
            return
        request = self.gateway.call("GET", f"/mail/{permission_id}")
        state = request["permission_state"]
        if state == "open":
            return
        del self.waiting[permission_id]
        note = f" Your note: {request['decision_note']}" if request.get("decision_note") else ""
        if state == "expired":
            answer = f"Nobody decided in time, so I did not {task.action}."
        elif request["decision"] == "approve":
            answer = f"Approved by {request['decided_by']}: done, I did {task.action}.{note}"
        else:
            answer = f"{request['decided_by']} said {request['decision']!r}: I did not act.{note}"
        self.finish(task.mail, answer)

    def finish(self, mail: dict[str, Any], answer: str) -> None:
        self.gateway.call(
            "POST",
            "/mail/send",
            {
                "to": mail["from"],
                "reply_to": mail["mail_id"],
                "subject": f"Re: {mail['subject']}",
                "body": answer,
                "mail_type": "final_summary",
            },
        )
        self.completed += 1
        log.info("task %s finished: %s", mail["mail_id"], answer)


def _workspace(text: str) -> dict[str, str]:
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise argparse.ArgumentTypeError("a workspace is NAME=PATH")
    return {"name": name, "path": path}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="A minimal AgentMail agent (stdlib only).")
    parser.add_argument("--name", required=True, help="the agent's name")
    parser.add_argument(
        "--workspace", type=_workspace, action="append", required=True, help="NAME=PATH"
    )
    parser.add_argument("--url", default=os.environ.get("AGENTMAIL_URL", "http://127.0.0.1:8180"))
    parser.add_argument("--exit-after", type=int, help="stop after this many finished tasks")
    args = parser.parse_args(argv)
    key = os.environ.get("AGENTMAIL_AGENT_KEY", "")
    if not key:
        parser.error("set AGENTMAIL_AGENT_KEY to an agent key (agentmail key issue)")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
    gateway = RemoteGateway(args.url, key)
    registered = gateway.register(args.name, args.workspace, platform="remote-agent")
    addresses = ", ".join(w["address"] for w in registered["agent"]["workspaces"])
    log.info("registered as %s", addresses)
    try:
        RemoteAgent(gateway, exit_after=args.exit_after).run()
    except KeyboardInterrupt:
        return 130
    except GatewayError as error:
        log.error("the gateway refused: %s", error)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
