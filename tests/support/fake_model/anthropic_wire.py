"""Anthropic Messages, as Claude Code speaks it: a request read into an `Exchange`
(tool results arrive as `tool_result` blocks in a user message), a `Reply` written
back as one message or as the `message_start` … `message_stop` event stream."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

from tests.support.fake_model.script import Exchange, Message, Reply, ToolCall, ToolResult


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(block.get("text", ""))
            for block in content
            if isinstance(block, dict) and block.get("type") == "text"
        )
    return ""


def _messages(item: dict[str, Any]) -> list[Message]:
    content = item.get("content")
    if item.get("role") == "assistant":
        blocks = content if isinstance(content, list) else []
        calls = [
            ToolCall(str(b.get("name", "")), dict(b.get("input") or {}), str(b.get("id", "")))
            for b in blocks
            if isinstance(b, dict) and b.get("type") == "tool_use"
        ]
        return [Message("assistant", _text(content), calls)]
    out: list[Message] = []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and block.get("type") == "tool_result":
            result = ToolResult(
                str(block.get("tool_use_id", "")),
                _text(block.get("content")),
                bool(block.get("is_error")),
            )
            out.append(Message("tool", result=result))
    text = _text(content)
    if out and text.strip():
        # Beside tool results the text is Claude Code's context for them (a hook's
        # additionalContext, a system reminder), not the human's next task.
        out.append(Message("context", text))
    elif text.strip() or not out:
        out.append(Message("user", text))
    return out


def _joined(messages: list[Message]) -> list[Message]:
    """Consecutive user messages as one turn, as the Messages API reads them: Claude Code
    sends the task and then its own context (environment, skills) as separate user
    messages, and the task is all of them, not the last; text that follows tool results
    (a hook's additionalContext, a reminder) is context for those results."""
    out: list[Message] = []
    for message in messages:
        last = out[-1] if out else None
        if last is not None and last.role == message.role == "user":
            out[-1] = Message("user", f"{last.text}\n\n{message.text}")
        elif last is not None and last.role in ("tool", "context") and message.role == "user":
            out.append(Message("context", message.text))
        else:
            out.append(message)
    return out


def read(body: dict[str, Any]) -> Exchange:
    messages: list[Message] = []
    for item in body.get("messages") or []:
        messages.extend(_messages(item))
    messages = _joined(messages)
    return Exchange(
        protocol="anthropic",
        model=str(body.get("model", "")),
        system=_text(body.get("system")),
        messages=messages,
        tools=[str(t.get("name", "")) for t in body.get("tools") or [] if isinstance(t, dict)],
        stream=bool(body.get("stream")),
    )


def _blocks(reply: Reply) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if reply.text:
        blocks.append({"type": "text", "text": reply.text})
    for call in reply.tool_calls:
        call_id = call.id or f"toolu_{uuid.uuid4().hex[:20]}"
        blocks.append(
            {"type": "tool_use", "id": call_id, "name": call.name, "input": call.arguments}
        )
    return blocks


def _usage(exchange: Exchange, reply: Reply) -> dict[str, int]:
    return {
        "input_tokens": max(1, len(exchange.everything) // 4),
        "output_tokens": max(1, len(reply.text) // 4 + 4 * len(reply.tool_calls)),
    }


def _stop(reply: Reply) -> str:
    return "tool_use" if reply.tool_calls else "end_turn"


def whole(exchange: Exchange, reply: Reply) -> dict[str, Any]:
    return {
        "id": f"msg_{uuid.uuid4().hex[:24]}",
        "type": "message",
        "role": "assistant",
        "model": exchange.model,
        "content": _blocks(reply),
        "stop_reason": _stop(reply),
        "stop_sequence": None,
        "usage": _usage(exchange, reply),
    }


def events(exchange: Exchange, reply: Reply) -> Iterator[str]:
    def event(name: str, data: dict[str, Any]) -> str:
        return f"event: {name}\ndata: {json.dumps({'type': name, **data})}\n\n"

    usage = _usage(exchange, reply)
    start = {**whole(exchange, reply), "content": [], "stop_reason": None}
    start["usage"] = {"input_tokens": usage["input_tokens"], "output_tokens": 1}
    yield event("message_start", {"message": start})
    for index, block in enumerate(_blocks(reply)):
        if block["type"] == "text":
            yield event(
                "content_block_start",
                {"index": index, "content_block": {"type": "text", "text": ""}},
            )
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            opening = {**block, "input": {}}
            yield event("content_block_start", {"index": index, "content_block": opening})
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        yield event("content_block_delta", {"index": index, "delta": delta})
        yield event("content_block_stop", {"index": index})
    yield event(
        "message_delta",
        {
            "delta": {"stop_reason": _stop(reply), "stop_sequence": None},
            "usage": {"output_tokens": usage["output_tokens"]},
        },
    )
    yield event("message_stop", {})


def count_tokens(body: dict[str, Any]) -> dict[str, int]:
    return {"input_tokens": max(1, len(json.dumps(body)) // 4)}


def models(names: list[str]) -> dict[str, Any]:
    data = [
        {"type": "model", "id": name, "display_name": name, "created_at": "2025-01-01T00:00:00Z"}
        for name in names
    ]
    return {
        "data": data,
        "has_more": False,
        "first_id": names[0] if names else None,
        "last_id": names[-1] if names else None,
    }
