"""SMTP clients for the tests: smtplib (in a thread), aiosmtplib and swaks against a gateway."""

from __future__ import annotations

import asyncio
import contextlib
import smtplib
from collections.abc import AsyncIterator
from email.message import EmailMessage
from typing import Any

import aiosmtplib

from tests.support.gateway import Api

D = "agentmail.localhost"


def message(
    sender: str, to: str, subject: str = "hello", body: str = "hi", **headers: str
) -> EmailMessage:
    """A plain message; `Message_ID="<x>"` sets `Message-ID: <x>`."""
    built = EmailMessage()
    built["From"] = sender
    built["To"] = to
    built["Subject"] = subject
    for name, value in headers.items():
        built[name.replace("_", "-")] = value
    built.set_content(body)
    return built


def reply_by_mail(sender: str, mail: dict[str, Any], text: str) -> EmailMessage:
    """A reply by mail to `mail` (as the API shows it), threaded by its Message-ID: to a
    permission request, `text` naming an option decides it (docs/deciding-by-mail.md)."""
    return message(
        sender,
        mail["from_email"],
        f"Re: {mail['subject']}",
        text,
        In_Reply_To=mail["message_id"],
        References=mail["message_id"],
    )


def _smtplib_send(
    port: int, login: str, secret: str, mail: EmailMessage, method: str, sender: str | None
) -> dict[str, Any]:
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
        client.ehlo()
        client.user, client.password = login, secret
        client.auth(method, getattr(client, f"auth_{method.lower()}"))
        return client.send_message(mail, from_addr=sender)


async def send(
    api: Api,
    login: str,
    secret: str,
    mail: EmailMessage,
    method: str = "PLAIN",
    sender: str | None = None,
) -> None:
    """Submit with smtplib over loopback (AUTH `method`; envelope sender = `sender` or
    the `From:`); raises smtplib's errors."""
    port = api.gateway.smtp_port
    await asyncio.to_thread(_smtplib_send, port, login, secret, mail, method, sender)


async def session(api: Api, login: str, secret: str) -> aiosmtplib.SMTP:
    """An authenticated aiosmtplib connection, for step-by-step commands."""
    client = aiosmtplib.SMTP(hostname="127.0.0.1", port=api.gateway.smtp_port, start_tls=False)
    await client.connect()
    await client.login(login, secret)
    return client


@contextlib.asynccontextmanager
async def logged_in(port: int, login: str, secret: str) -> AsyncIterator[aiosmtplib.SMTP]:
    """An authenticated aiosmtplib connection to `port` (10 s a command at most), closed
    at the end without QUIT: a gateway killed meanwhile could not answer it."""
    smtp = aiosmtplib.SMTP(hostname="127.0.0.1", port=port, timeout=10)
    try:
        await smtp.connect()
        await smtp.login(login, secret)
        yield smtp
    finally:
        smtp.close()


async def swaks(*arguments: str) -> tuple[int, str]:
    """Run Debian's swaks; returns its exit status and its transcript."""
    process = await asyncio.create_subprocess_exec(
        "swaks",
        *arguments,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    output, _ = await asyncio.wait_for(process.communicate(), timeout=120)
    assert process.returncode is not None
    return process.returncode, output.decode("utf-8", "replace")


async def agent_with_key(
    api: Api, name: str, workspace: tuple[str, str] = ("ModelRouter", "/srv/mr")
) -> tuple[Any, str]:
    """A registered agent's REST client and its key (the key signs in to SMTP too)."""
    key = await api.agent_key()
    client = api.client(key)
    response = await client.post(
        "/api/v1/agent/register",
        json={
            "name": name,
            "workspaces": [{"name": workspace[0], "path": workspace[1]}],
            "platform": "test",
        },
    )
    assert response.status_code == 200, response.text
    return client, key
