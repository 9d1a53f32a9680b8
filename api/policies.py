"""Who may call each endpoint: one declared policy per (method, path), in one table.

The authorization matrix test (tests/integration/test_authorization_matrix.py)
calls every route of the application with every kind of caller and checks the
answer against the policy declared here; a route missing from this table fails
it, so a new endpoint cannot ship without saying who may call it. Adding a route
is one line: `("METHOD", "/api/v1/path/{param}"): "policy",`.

The policies, from the most open:

- `anonymous` — anyone, with or without credentials (`/auth/login`, docs).
- `authenticated` — a human (web login or user key) or a registered agent.
- `agent_key` — any valid agent key, even one not yet bound to an agent (register).
- `agent` — a registered agent; humans get `403`.
- `human` — a human; agent keys get `403`.
- `admin` — an admin human; other humans and agents get `403`.
- `participant` — `authenticated`, and the caller takes part in what the path
  names (the conversation, or the mail or attachment it sent or received);
  for anyone else it does not exist (`404`).
- `agent_participant`, `human_participant` — the same, for agents or humans only
  (the other kind gets `403`).
- `owner` — a human, and the path names something of theirs (a draft, a key):
  `404` for anyone else.
- `nobody` — answers every caller with a refusal (`403` with valid credentials):
  it exists to tell an agent what to do instead (an agent has no Trash).

- `metrics` — anyone on loopback or in `AGENTMAIL_METRICS_ALLOW` (as `anonymous`);
  from elsewhere an admin (as `admin`).

Without valid credentials (none, or a revoked, expired or used key) everything
but `anonymous` is `401`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from fastapi import FastAPI
from fastapi.routing import iter_route_contexts

Policy = Literal[
    "anonymous",
    "authenticated",
    "agent_key",
    "agent",
    "human",
    "admin",
    "participant",
    "agent_participant",
    "human_participant",
    "owner",
    "nobody",
    "metrics",
]
Route = tuple[str, str]  # (method, path as the router declares it)

_V1 = "/api/v1"
_MAIL_STATES = ("read", "unread", "archive", "unarchive")

POLICIES: dict[Route, Policy] = {
    # meta and docs
    ("GET", "/"): "anonymous",
    ("GET", f"{_V1}/health"): "anonymous",
    ("GET", f"{_V1}/version"): "anonymous",
    ("GET", "/healthz"): "anonymous",
    ("GET", "/readyz"): "anonymous",
    ("GET", "/metrics"): "metrics",
    ("GET", f"{_V1}/openapi.json"): "anonymous",
    ("GET", f"{_V1}/docs"): "anonymous",
    ("GET", f"{_V1}/docs/start.js"): "anonymous",
    # auth and accounts
    ("POST", f"{_V1}/auth/login"): "anonymous",
    ("GET", f"{_V1}/auth/session"): "anonymous",
    ("POST", f"{_V1}/auth/logout"): "human",
    ("GET", f"{_V1}/me"): "human",
    ("POST", f"{_V1}/me/keys"): "human",
    ("GET", f"{_V1}/me/keys"): "human",
    ("DELETE", f"{_V1}/me/keys/{{key_id}}"): "owner",
    ("GET", f"{_V1}/me/push"): "human",
    ("GET", f"{_V1}/me/push/subscriptions"): "human",
    ("POST", f"{_V1}/me/push/subscriptions"): "human",
    ("DELETE", f"{_V1}/me/push/subscriptions/{{subscription_id}}"): "owner",
    ("GET", f"{_V1}/me/external-addresses"): "human",
    ("POST", f"{_V1}/me/external-addresses"): "human",
    ("PATCH", f"{_V1}/me/external-addresses/{{address_id}}"): "owner",
    ("DELETE", f"{_V1}/me/external-addresses/{{address_id}}"): "owner",
    ("POST", f"{_V1}/me/external-addresses/{{address_id}}/verify"): "owner",
    ("POST", f"{_V1}/me/external-addresses/{{address_id}}/code"): "owner",
    ("POST", f"{_V1}/me/webhooks"): "human",
    ("GET", f"{_V1}/me/webhooks"): "human",
    ("GET", f"{_V1}/me/webhooks/{{webhook_id}}"): "owner",
    ("DELETE", f"{_V1}/me/webhooks/{{webhook_id}}"): "owner",
    ("POST", f"{_V1}/me/webhooks/{{webhook_id}}/enable"): "owner",
    ("POST", f"{_V1}/me/webhooks/{{webhook_id}}/rotate-secret"): "owner",
    ("GET", f"{_V1}/me/webhooks/{{webhook_id}}/deliveries"): "owner",
    ("POST", f"{_V1}/me/webhooks/{{webhook_id}}/replay"): "owner",
    # admin
    ("POST", f"{_V1}/admin/users"): "admin",
    ("POST", f"{_V1}/admin/webhooks"): "admin",
    ("GET", f"{_V1}/admin/webhooks"): "admin",
    ("GET", f"{_V1}/admin/webhooks/{{webhook_id}}"): "admin",
    ("DELETE", f"{_V1}/admin/webhooks/{{webhook_id}}"): "admin",
    ("POST", f"{_V1}/admin/webhooks/{{webhook_id}}/enable"): "admin",
    ("POST", f"{_V1}/admin/webhooks/{{webhook_id}}/rotate-secret"): "admin",
    ("GET", f"{_V1}/admin/webhooks/{{webhook_id}}/deliveries"): "admin",
    ("POST", f"{_V1}/admin/webhooks/{{webhook_id}}/replay"): "admin",
    ("GET", f"{_V1}/admin/users"): "admin",
    ("PATCH", f"{_V1}/admin/agents/{{name}}"): "admin",
    ("GET", f"{_V1}/admin/agents/{{name}}/outbound-allowlist"): "admin",
    ("PUT", f"{_V1}/admin/agents/{{name}}/outbound-allowlist"): "admin",
    ("POST", f"{_V1}/admin/agent-keys"): "admin",
    ("GET", f"{_V1}/admin/agent-keys"): "admin",
    ("DELETE", f"{_V1}/admin/agent-keys/{{key_id}}"): "admin",
    # agents
    # passwords and web logins (a login id of someone else's: 404)
    ("POST", f"{_V1}/me/password"): "human",
    ("GET", f"{_V1}/me/logins"): "human",
    ("GET", f"{_V1}/me/mail-settings"): "human",
    ("DELETE", f"{_V1}/me/logins/{{login_id}}"): "owner",
    ("POST", f"{_V1}/admin/users/{{name}}/password"): "admin",
    ("PATCH", f"{_V1}/admin/users/{{name}}"): "admin",
    ("POST", f"{_V1}/agent/register"): "agent_key",
    ("POST", f"{_V1}/agent/heartbeat"): "agent",
    ("GET", f"{_V1}/agent/outbound-allowlist"): "agent",
    ("DELETE", f"{_V1}/agent/workspaces/{{name}}"): "agent",
    ("GET", f"{_V1}/agents"): "authenticated",
    # an agent's activity, in the caller's conversations (an admin: all)
    ("GET", f"{_V1}/me/agents/{{name}}/activity"): "human",
    # mail: agents under /mail, humans under /me/mail
    ("POST", f"{_V1}/mail/send"): "agent",
    ("GET", f"{_V1}/mail/inbox"): "agent",
    ("GET", f"{_V1}/mail/sent"): "agent",
    ("GET", f"{_V1}/mail/inbox/rows"): "agent",
    ("GET", f"{_V1}/mail/sent/rows"): "agent",
    ("GET", f"{_V1}/mail/{{mail_id}}"): "agent_participant",
    ("POST", f"{_V1}/mail/{{mail_id}}/forward"): "agent_participant",
    ("GET", f"{_V1}/mail/{{mail_id}}/tree"): "agent_participant",
    **{("POST", f"{_V1}/mail/{{mail_id}}/{s}"): "agent_participant" for s in _MAIL_STATES},
    ("POST", f"{_V1}/mail/{{mail_id}}/delete"): "nobody",
    ("POST", f"{_V1}/mail/{{mail_id}}/restore"): "nobody",
    ("POST", f"{_V1}/me/mail/send"): "human",
    ("GET", f"{_V1}/me/mail/inbox"): "human",
    ("GET", f"{_V1}/me/mail/sent"): "human",
    ("GET", f"{_V1}/me/mail/inbox/rows"): "human",
    ("GET", f"{_V1}/me/mail/sent/rows"): "human",
    ("GET", f"{_V1}/me/mail/{{mail_id}}"): "human_participant",
    ("POST", f"{_V1}/me/mail/{{mail_id}}/forward"): "human_participant",
    ("GET", f"{_V1}/me/mail/{{mail_id}}/tree"): "human_participant",
    **{("POST", f"{_V1}/me/mail/{{mail_id}}/{s}"): "human_participant" for s in _MAIL_STATES},
    ("POST", f"{_V1}/me/mail/{{mail_id}}/delete"): "human_participant",
    ("POST", f"{_V1}/me/mail/{{mail_id}}/restore"): "human_participant",
    # a human's own folders (someone else's folder id: 404)
    ("GET", f"{_V1}/me/folders"): "human",
    ("POST", f"{_V1}/me/folders"): "human",
    ("PATCH", f"{_V1}/me/folders/{{folder_id}}"): "owner",
    ("DELETE", f"{_V1}/me/folders/{{folder_id}}"): "owner",
    ("POST", f"{_V1}/me/mail/{{mail_id}}/file"): "human_participant",
    # drafts
    ("POST", f"{_V1}/me/drafts"): "human",
    ("GET", f"{_V1}/me/drafts"): "human",
    ("GET", f"{_V1}/me/drafts/{{draft_id}}"): "owner",
    ("PUT", f"{_V1}/me/drafts/{{draft_id}}"): "owner",
    ("DELETE", f"{_V1}/me/drafts/{{draft_id}}"): "owner",
    ("POST", f"{_V1}/me/drafts/{{draft_id}}/send"): "owner",
    # attachments
    ("POST", f"{_V1}/attachments"): "agent",
    ("GET", f"{_V1}/attachments/{{attachment_id}}"): "agent_participant",
    ("POST", f"{_V1}/me/attachments"): "human",
    ("GET", f"{_V1}/me/attachments/{{attachment_id}}"): "human_participant",
    # permissions
    ("POST", f"{_V1}/permission/request"): "agent",
    ("GET", f"{_V1}/me/permissions"): "human",
    ("POST", f"{_V1}/me/permission/decide"): "human",
    # conversations: /sessions for both, /me/sessions for humans
    ("GET", f"{_V1}/sessions"): "authenticated",
    ("GET", f"{_V1}/sessions/{{session_id}}"): "participant",
    ("PATCH", f"{_V1}/sessions/{{session_id}}"): "human_participant",
    ("POST", f"{_V1}/sessions/{{session_id}}/sync"): "participant",
    ("GET", f"{_V1}/sessions/{{session_id}}/proposals"): "participant",
    ("POST", f"{_V1}/sessions/{{session_id}}/proposals/{{proposal_id}}/accept"): (
        "human_participant"
    ),
    ("POST", f"{_V1}/sessions/{{session_id}}/proposals/{{proposal_id}}/reject"): (
        "human_participant"
    ),
    ("GET", f"{_V1}/sessions/{{session_id}}/participants"): "participant",
    ("GET", f"{_V1}/me/sessions"): "human",
    ("GET", f"{_V1}/me/sessions/{{session_id}}"): "human_participant",
    ("PATCH", f"{_V1}/me/sessions/{{session_id}}"): "human_participant",
    ("POST", f"{_V1}/me/sessions/{{session_id}}/sync"): "human_participant",
    ("GET", f"{_V1}/me/sessions/{{session_id}}/proposals"): "human_participant",
    ("POST", f"{_V1}/me/sessions/{{session_id}}/proposals/{{proposal_id}}/accept"): (
        "human_participant"
    ),
    ("POST", f"{_V1}/me/sessions/{{session_id}}/proposals/{{proposal_id}}/reject"): (
        "human_participant"
    ),
    ("GET", f"{_V1}/me/sessions/{{session_id}}/participants"): "human_participant",
    # address helpers
    ("GET", f"{_V1}/addresses/suggest"): "authenticated",
    ("GET", f"{_V1}/contacts"): "authenticated",
    ("GET", f"{_V1}/me/addresses/suggest"): "human",
    ("GET", f"{_V1}/addresses/check"): "authenticated",
    ("GET", f"{_V1}/me/addresses/check"): "human",
    ("GET", f"{_V1}/me/contacts"): "human",
    # search (not under /mail/, where {mail_id} would take the word)
    ("GET", f"{_V1}/search"): "agent",
    ("GET", f"{_V1}/me/search"): "human",
    # events
    ("GET", f"{_V1}/events/stream"): "authenticated",
}


def routes(app: FastAPI) -> Iterator[Route]:
    """Every (method, path) the application answers, however its routers are nested
    (HEAD, which Starlette adds to each GET, is the GET's)."""
    for route in iter_route_contexts(app.routes):
        if route.path is None:
            continue
        for method in sorted(route.methods or ()):
            if method != "HEAD":
                yield method, route.path


def undeclared(app: FastAPI) -> list[Route]:
    """Routes without a policy: each is a finding."""
    return [route for route in routes(app) if route not in POLICIES]


def stale(app: FastAPI) -> list[Route]:
    """Declared policies of routes that no longer exist."""
    present = set(routes(app))
    return [route for route in POLICIES if route not in present]
