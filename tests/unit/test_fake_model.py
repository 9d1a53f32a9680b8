"""The platform tests' fake model speaks both wire protocols as their clients read them:
a tool call and a final text, streamed and whole, with the turn counted per task."""

from __future__ import annotations

import json

import httpx

from tests.support.fake_model import Exchange, anthropic_wire, call, fake_model, say, steps

TOOLS_OPENAI = [
    {"type": "function", "function": {"name": "bash", "parameters": {}}},
    {"type": "function", "function": {"name": "agentmail_read_mail", "parameters": {}}},
]
TOOLS_ANTHROPIC = [{"name": "Bash", "input_schema": {}}, {"name": "mcp__agentmail__read_mail"}]

SCRIPT = steps(
    call("read_mail", mail_id="m1"),
    call("bash", command="touch done.txt"),
    lambda exchange: say(f"done after {len(exchange.results)} results"),
)


def _openai_stream(text: str) -> tuple[str, list[dict[str, object]], str]:
    content, calls, finish = "", [], ""
    lines = [line[6:] for line in text.splitlines() if line.startswith("data: ")]
    assert lines[-1] == "[DONE]"
    for line in lines[:-1]:
        choice = json.loads(line)["choices"][0]
        content += choice["delta"].get("content") or ""
        calls += choice["delta"].get("tool_calls") or []
        finish = choice["finish_reason"] or finish
    return content, calls, finish


async def test_openai_chat_streams_the_turns_steps() -> None:
    async with fake_model(SCRIPT) as model, httpx.AsyncClient(base_url=model.openai_base) as http:
        messages: list[dict[str, object]] = [
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": [{"type": "text", "text": "mail m1 arrived"}]},
        ]
        body = {"model": "fake-model", "stream": True, "tools": TOOLS_OPENAI, "messages": messages}
        first = await http.post("/chat/completions", json=body)
        _, calls, finish = _openai_stream(first.text)
        assert finish == "tool_calls"
        assert calls[0]["function"] == {  # type: ignore[index]
            "name": "agentmail_read_mail",
            "arguments": json.dumps({"mail_id": "m1"}),
        }
        messages += [
            {"role": "assistant", "content": None, "tool_calls": calls},
            {"role": "tool", "tool_call_id": calls[0]["id"], "content": "the mail"},  # type: ignore[index]
        ]
        second = (await http.post("/chat/completions", json=body)).text
        assert json.loads(_openai_stream(second)[1][0]["function"]["arguments"]) == {  # type: ignore[index]
            "command": "touch done.txt"
        }
        whole = await http.post("/chat/completions", json={**body, "stream": False})
        # Still the second step: no assistant reply was added to the history.
        assert whole.json()["choices"][0]["finish_reason"] == "tool_calls"
        assert [exchange.step for exchange in model.log] == [0, 1, 1]
        assert model.log[1].results[0].text == "the mail"
        assert model.log[0].system == "be brief" and model.log[0].task == "mail m1 arrived"
    assert not model.errors and not model.unhandled


async def test_anthropic_messages_stream_tool_use_then_text() -> None:
    async with fake_model(SCRIPT) as model, httpx.AsyncClient(base_url=model.url) as http:
        history: list[dict[str, object]] = [{"role": "user", "content": "mail m1 arrived"}]
        body = {"model": "claude-x", "stream": True, "tools": TOOLS_ANTHROPIC, "messages": history}
        events = [
            json.loads(line[6:])
            for line in (await http.post("/v1/messages", json=body)).text.splitlines()
            if line.startswith("data: ")
        ]
        kinds = [event["type"] for event in events]
        assert kinds[0] == "message_start" and kinds[-1] == "message_stop"
        started = next(e for e in events if e["type"] == "content_block_start")
        assert started["content_block"]["name"] == "mcp__agentmail__read_mail"
        delta = next(e for e in events if e["type"] == "content_block_delta")["delta"]
        assert json.loads(delta["partial_json"]) == {"mail_id": "m1"}
        assert events[-2]["delta"]["stop_reason"] == "tool_use"
        use = {**started["content_block"], "input": {"mail_id": "m1"}}
        history += [
            {"role": "assistant", "content": [use]},
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": use["id"], "content": "x"}],
            },
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t2", "name": "Bash", "input": {}}],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t2",
                        "is_error": True,
                        "content": [{"type": "text", "text": "denied"}],
                    }
                ],
            },
        ]
        last = await http.post("/v1/messages", json={**body, "stream": False})
        assert last.json()["content"] == [{"type": "text", "text": "done after 2 results"}]
        assert last.json()["stop_reason"] == "end_turn"
        exchange: Exchange = model.log[-1]
        assert exchange.results[-1].is_error and exchange.results[-1].text == "denied"
        tokens = await http.post("/v1/messages/count_tokens", json=body)
        assert tokens.json()["input_tokens"] > 0
        assert (await http.get("/v1/nowhere")).status_code == 404
    assert model.unhandled == ["GET /v1/nowhere"] and not model.errors


def test_anthropic_consecutive_user_messages_are_one_task() -> None:
    """Claude Code sends the task, then its environment, as two user messages: one task."""
    exchange = anthropic_wire.read(
        {
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "mail m1 arrived"}]},
                {"role": "user", "content": "# Environment"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "B"}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t"}]},
            ]
        }
    )
    assert exchange.task == "mail m1 arrived\n\n# Environment"
    assert exchange.step == 1 and len(exchange.results) == 1


def test_anthropic_text_beside_tool_results_is_context_not_a_new_task() -> None:
    exchange = anthropic_wire.read(
        {
            "messages": [
                {"role": "user", "content": "mail m1 arrived"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "B"}]},
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": "t", "content": "ok"},
                        {"type": "text", "text": "hook context: approved with a note"},
                    ],
                },
                {"role": "user", "content": "a reminder in a message of its own"},
            ]
        }
    )
    assert exchange.task == "mail m1 arrived" and exchange.step == 1
    assert "approved with a note" in exchange.everything and "reminder" in exchange.everything
