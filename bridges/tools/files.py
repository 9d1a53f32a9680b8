"""Attachments: upload_attachment and download_attachment, confined to the workspaces.

A model names files by path; the tools read and write only inside the agent's
workspace directories (`ToolContext.roots`), after resolving symbolic links, so
a prompt cannot make the agent mail out `~/.ssh/id_ed25519` or overwrite a file
elsewhere. A relative path is relative to the first workspace.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from pathlib import Path

from bridges.tools.definition import (
    ID,
    Json,
    MailTool,
    ToolContext,
    ToolError,
    described,
    schema,
    text,
)
from bridges.tools.views import as_json

_PATH = text("A file path inside your workspace; relative paths start at its root.", 4096, 1)


def _confined(roots: tuple[Path, ...], given: str) -> Path:
    """The resolved path, if it lies inside one of `roots` (blocking: run in a thread)."""
    if not roots:
        raise ToolError("this agent has no workspace directory to read or write files in")
    path = Path(given).expanduser()
    if not path.is_absolute():
        path = roots[0] / path
    resolved = path.resolve()
    for root in roots:
        if resolved == root.resolve() or resolved.is_relative_to(root.resolve()):
            return resolved
    inside = ", ".join(str(root) for root in roots)
    raise ToolError(f"{given} is outside your workspaces ({inside}); use a path inside one")


def _readable_file(roots: tuple[Path, ...], given: str) -> Path:
    path = _confined(roots, given)
    if not path.is_file():
        raise ToolError(f"{given} is not a file")
    return path


async def _upload(context: ToolContext, arguments: Json) -> Json:
    path = await asyncio.to_thread(_readable_file, context.roots, arguments["path"])
    content = await asyncio.to_thread(path.read_bytes)
    uploaded = as_json(
        await context.client.upload_attachment(content, arguments.get("filename") or path.name)
    )
    return {key: uploaded.get(key) for key in ("attachment_id", "filename", "size", "sha256")}


upload_attachment = MailTool(
    name="upload_attachment",
    description=(
        "Upload a file from your workspace so a mail can carry it: pass the returned "
        "`attachment_id` in send_mail's `attachment_ids`. Each upload can be attached to one "
        "mail; uploads never sent are removed after a day."
    ),
    input_schema=schema(
        ["path"],
        path=_PATH,
        filename=text("The name the recipient sees; default: the file's own name.", 255, 1),
    ),
    run=_upload,
)


def _writable_target(roots: tuple[Path, ...], given: str, overwrite: bool) -> Path:
    path = _confined(roots, given)
    if path.is_dir():
        raise ToolError(f"{given} is a directory; name the file to write")
    if path.exists() and not overwrite:
        raise ToolError(f"{given} exists; pass overwrite: true to replace it")
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def _write(target: Path, content: bytes) -> None:
    """Written beside the target and renamed: a failed write never leaves half a file."""
    partial = target.with_name(f".{target.name}.{uuid.uuid4().hex[:8]}.part")
    try:
        partial.write_bytes(content)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)


async def _download(context: ToolContext, arguments: Json) -> Json:
    target = await asyncio.to_thread(
        _writable_target, context.roots, arguments["save_as"], arguments.get("overwrite", False)
    )
    content = await context.client.download_attachment(arguments["attachment_id"])
    await asyncio.to_thread(_write, target, content)
    return {"saved_to": str(target), "size": len(content)}


download_attachment = MailTool(
    name="download_attachment",
    description=(
        "Save an attachment of a mail you sent or received into your workspace. The mail "
        "lists its attachments with their `attachment_id`, `filename` and `size`."
    ),
    input_schema=schema(
        ["attachment_id", "save_as"],
        attachment_id=described(ID, "The attachment, as the mail lists it."),
        save_as=_PATH,
        overwrite={
            "type": "boolean",
            "default": False,
            "description": "Replace the file if it exists (default: refuse).",
        },
    ),
    run=_download,
)
