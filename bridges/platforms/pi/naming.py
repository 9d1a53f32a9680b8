"""The conversation's name, both ways between pi and the gateway.

pi gives a session a name only when someone names it (`/name` in pi, an extension's
`setSessionName`, RPC `set_session_name`); it never makes one up. After each turn
the bridge reads it: a name that is not the one the bridge wrote last was given in
pi, and becomes the conversation's alias (slugged as the gateway slugs subjects);
then the alias the gateway settled on (a taken one gets `-2`, a human's rename wins)
is written back as pi's session name, so both sides show the same name and a
human who reads it in pi can address the conversation by it.
"""

from __future__ import annotations

import logging

import httpx

from bridges.client import AgentClient, GatewayError
from bridges.platforms.aliases import alias_of
from bridges.platforms.pi.rpc import PiEnded, PiProcess
from bridges.platforms.pi.sessions import ConversationState

_log = logging.getLogger("agentmail.bridge.pi")


async def sync_title(
    client: AgentClient, pi: PiProcess, session_id: str, state: ConversationState
) -> None:
    """Never fails the turn: a name that could not be synced is tried after the next one."""
    try:
        answer = await pi.command("get_state")
        name = (answer.get("data") or {}).get("sessionName") or None
        renamed = alias_of(name) if name and name != state.title else None
        settled = await client.sync_session(session_id, session_alias=renamed)
        if settled.session_alias and settled.session_alias != name:
            await pi.command("set_session_name", name=settled.session_alias)
        state.title = settled.session_alias or name
    except (GatewayError, httpx.HTTPError, PiEnded) as error:  # the gateway away, too
        _log.warning("the name of conversation %s was not synced: %s", session_id, error)
