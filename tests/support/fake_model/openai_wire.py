"""OpenAI chat completions, as opencode (AI SDK's openai-compatible provider) and pi
(`openai-completions`) speak it: a request read into an `Exchange`, a `Reply`
written back as one JSON object or as `chat.completion.chunk` server-sent events."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from typing import Any

from tests.support.fake_model.script import Exchange, Message, Reply, ToolCall, ToolResult


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def _arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw or "{}")
    except json.JSONDecodeError:
        return {"_unparsed": raw}
    return value if isinstance(value, dict) else {"_value": value}


def read(body: dict[str, Any]) -> Exchange:
    system: list[str] = []
    messages: list[Message] = []
    for item in body.get("messages") or []:
        role = item.get("role")
        if role in ("system", "developer"):
            system.append(_text(item.get("content")))
        elif role == "tool":
            result = ToolResult(str(item.get("tool_call_id", "")), _text(item.get("content")))
            messages.append(Message("tool", result=result))
        elif role == "assistant":
            calls = [
                ToolCall(
                    str(call.get("function", {}).get("name", "")),
                    _arguments(call.get("function", {}).get("arguments")),
                    str(call.get("id", "")),
                )
                for call in item.get("tool_calls") or []
            ]
            messages.append(Message("assistant", _text(item.get("content")), calls))
        else:
            messages.append(Message("user", _text(item.get("content"))))
    tools = [
        str(tool.get("function", {}).get("name", ""))
        for tool in body.get("tools") or []
        if isinstance(tool, dict)
    ]
    return Exchange(
        protocol="openai",
        model=str(body.get("model", "")),
        system="\n".join(system),
        messages=messages,
        tools=tools,
        stream=bool(body.get("stream")),
    )


def _ids(reply: Reply) -> list[dict[str, Any]]:
    return [
        {
            "index": index,
            "id": call.id or f"call_{uuid.uuid4().hex[:12]}",
            "type": "function",
            "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
        }
        for index, call in enumerate(reply.tool_calls)
    ]


def _usage(exchange: Exchange, reply: Reply) -> dict[str, int]:
    prompt = max(1, len(exchange.everything) // 4)
    completion = max(
        1, (len(reply.text) + sum(len(str(c.arguments)) for c in reply.tool_calls)) // 4
    )
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def _finish(reply: Reply) -> str:
    return "tool_calls" if reply.tool_calls else "stop"


def whole(exchange: Exchange, reply: Reply) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if reply.tool_calls:
        message["tool_calls"] = [
            {key: value for key, value in call.items() if key != "index"} for call in _ids(reply)
        ]
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:16]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": exchange.model,
        "choices": [{"index": 0, "message": message, "finish_reason": _finish(reply)}],
        "usage": _usage(exchange, reply),
    }


def chunks(exchange: Exchange, reply: Reply) -> Iterator[str]:
    """The reply as SSE `data:` lines: role, text, each tool call whole, finish, usage."""
    base = {
        "id": f"chatcmpl-{uuid.uuid4().hex[:16]}",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": exchange.model,
    }

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return f"data: {json.dumps({**base, 'choices': [choice], **extra})}\n\n"

    yield chunk({"role": "assistant", "content": ""})
    if reply.text:
        yield chunk({"content": reply.text})
    for call in _ids(reply):
        yield chunk({"tool_calls": [call]})
    yield chunk({}, _finish(reply), usage=_usage(exchange, reply))
    yield "data: [DONE]\n\n"


def models(names: list[str]) -> dict[str, Any]:
    return {
        "object": "list",
        "data": [
            {"id": name, "object": "model", "created": 0, "owned_by": "fake"} for name in names
        ],
    }
