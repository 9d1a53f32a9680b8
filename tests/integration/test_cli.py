"""The `agentmail` command: serve (as `make run` does) and headless admin."""

from __future__ import annotations

import asyncio
import imaplib
import json
import os
import pty
import re
import signal
import socket
import sys
from pathlib import Path

import httpx

from tests.support.tls import Certificate

AGENTMAIL = [sys.executable, "-m", "gateway"]


def _env(database_url: str, data_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTMAIL_")}
    env.pop("ADMIN_PASSWORD", None)
    env.update(
        {
            "DATABASE_URL": database_url,
            "AGENTMAIL_DATA_DIR": str(data_dir),
            "AGENTMAIL_BCRYPT_ROUNDS": "4",
            "COLUMNS": "200",
        }
    )
    env.update(extra)
    return env


async def _run(
    *args: str, env: dict[str, str], stdin: str = "", cwd: Path | None = None
) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        *AGENTMAIL,
        *args,
        env=env,
        cwd=cwd,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(stdin.encode()), 60)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def _serve_until_login_line(env: dict[str, str]) -> tuple[asyncio.subprocess.Process, str]:
    process = await asyncio.create_subprocess_exec(
        *AGENTMAIL, "serve", env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    assert process.stdout is not None
    lines: list[str] = []
    async with asyncio.timeout(30):
        while not any("log in as" in line for line in lines):
            line = (await process.stdout.readline()).decode()
            if not line:
                _, err = await process.communicate()
                raise AssertionError(f"serve ended early: {lines} {err.decode()}")
            lines.append(line)
    return process, "".join(lines)


async def _stop(process: asyncio.subprocess.Process) -> None:
    process.send_signal(signal.SIGTERM)
    assert await asyncio.wait_for(process.wait(), 20) == 0


async def test_serve_prints_how_to_log_in_and_stops_on_sigterm(
    database_url: str, tmp_path: Path
) -> None:
    env = _env(database_url, tmp_path / "data", AGENTMAIL_HTTP_PORT="0")
    process, text = await _serve_until_login_line(env)
    try:
        url = re.search(r"http://127\.0\.0\.1:(\d+)/", text)
        # stdout is no terminal here: the password is in a file only we can read, not in the log.
        where = re.search(r"log in as\s+admin with the password in (\S+)", text)
        assert url and where, text
        path = Path(where.group(1))
        assert path.parent == (tmp_path / "data").resolve()
        assert os.stat(path).st_mode & 0o777 == 0o600
        with open(path, encoding="utf-8") as file:  # noqa: ASYNC230 (a few bytes)
            password = re.fullmatch(r"(\S{12,})\n", file.read())
        assert password is not None and password.group(1) not in text
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{url.group(1)}") as client:
            login = await client.post(
                "/api/v1/auth/login", json={"username": "admin", "password": password.group(1)}
            )
            assert login.status_code == 200, login.text
            assert (await client.get("/api/v1/me")).json()["user"]["is_admin"] is True
            assert (await client.get("/api/v1/openapi.json")).json()["info"]["title"] == "AgentMail"
            assert (await client.get("/api/v1/docs")).status_code == 200
    finally:
        await _stop(process)

    # The second start keeps the admin and prints no new password.
    process, text = await _serve_until_login_line(env)
    await _stop(process)
    assert password.group(1) not in text
    assert "with ADMIN_PASSWORD, or the password printed on the first start" in text


async def test_serve_prints_the_generated_password_on_a_terminal(tmp_path: Path) -> None:
    """`make run` in a terminal: the first admin password is shown there, and no file made.
    (Not about storage: SQLite only.)"""
    env = _env(
        f"sqlite:///{tmp_path / 'db.sqlite'}",
        tmp_path / "data",
        AGENTMAIL_HTTP_PORT="0",
        AGENTMAIL_SMTP_PORT="0",
        AGENTMAIL_IMAP_PORT="0",
    )
    main, child = pty.openpty()
    process = await asyncio.create_subprocess_exec(
        *AGENTMAIL, "serve", env=env, stdin=child, stdout=child, stderr=asyncio.subprocess.PIPE
    )
    os.close(child)

    def read_until_login_line() -> str:
        text = b""
        while b"log in as" not in text or not text.endswith(b"\n"):
            text += os.read(main, 4096)
        return re.sub(r"\x1b\[[0-9;]*m", "", text.decode())  # the terminal's colours

    try:
        text = await asyncio.wait_for(asyncio.to_thread(read_until_login_line), 30)
        shown = re.search(r"log in as\s+admin / (\S+)\s+\(shown once", text)
        assert shown is not None, text
        assert not (tmp_path / "data" / "admin-password.txt").exists()
    finally:
        await _stop(process)
        os.close(main)


async def test_serve_prints_the_imaps_port(database_url: str, tmp_path: Path) -> None:
    certificate = Certificate(tmp_path / "tls", "127.0.0.1")
    ports = {f"AGENTMAIL_{name}_PORT": "0" for name in ("HTTP", "SMTP", "IMAP", "IMAPS")}
    env = _env(
        database_url,
        tmp_path / "data",
        AGENTMAIL_TLS_CERT=str(certificate.cert),
        AGENTMAIL_TLS_KEY=str(certificate.key),
        ADMIN_PASSWORD="admin-password",
        **ports,
    )
    process, text = await _serve_until_login_line(env)
    try:
        imaps = re.search(r"IMAPS\s+127\.0\.0\.1:(\d+)", text)
        assert imaps is not None, text
        assert re.search(r"IMAP\s+127\.0\.0\.1:\d+ .*STARTTLS", text), text

        def login() -> str:
            port, context = int(imaps.group(1)), certificate.client_context()
            with imaplib.IMAP4_SSL("127.0.0.1", port, ssl_context=context, timeout=15) as client:
                return str(client.login("admin", "admin-password")[0])

        assert await asyncio.to_thread(login) == "OK"
    finally:
        await _stop(process)


async def test_user_and_key_commands(database_url: str, tmp_path: Path) -> None:
    env = _env(database_url, tmp_path / "data")
    code, out, err = await _run("migrate", env=env)  # the one command that makes a database
    assert code == 0 and "schema at" in out, err
    code, out, err = await _run("user", "add", "Jianf", "--password", "password123", env=env)
    assert code == 0, err
    assert "created user jianf" in out

    code, out, err = await _run("user", "add", "jianf", "--password", "password123", env=env)
    assert code == 1 and "already taken" in err

    code, out, err = await _run("user", "add", "bad name", "--password", "password123", env=env)
    assert code == 1 and "invalid name" in err

    code, out, err = await _run(
        "key", "issue", "--lifecycle", "timed", "--expires-in", "1h", "--label", "ci", env=env
    )
    assert code == 0, err
    key_id = re.search(r"key id\s+(\S+)", out)
    key = re.search(r"key\s+(amk_\S+)", out)
    assert key_id and key and "expires" in out

    code, out, err = await _run("key", "list", env=env)
    assert code == 0 and key_id.group(1) in out and key.group(1) not in out

    code, out, err = await _run("key", "issue", "--kind", "user", "--user", "jianf", env=env)
    assert code == 0 and "amu_" in out

    code, out, err = await _run("key", "issue", "--lifecycle", "timed", env=env)
    assert code == 1 and "expires_in" in err

    code, out, err = await _run("key", "revoke", key_id.group(1), env=env)
    assert code == 0 and "revoked" in out
    code, out, err = await _run("key", "revoke", "no-such-key", env=env)
    assert code == 1 and "no such key" in err


async def test_key_list_shows_whole_ids_on_an_80_column_terminal(tmp_path: Path) -> None:
    """The id `key list` shows is the one `key revoke` takes, however narrow the terminal.
    (Not about storage: SQLite only.)"""
    env = _env(f"sqlite:///{tmp_path / 'db.sqlite'}", tmp_path / "data")
    assert (await _run("migrate", env=env))[0] == 0
    label = "the deploy bot of the staging cluster"
    code, out, err = await _run(
        "key", "issue", "--lifecycle", "timed", "--expires-in", "1h", "--label", label, env=env
    )
    assert code == 0, err
    issued = re.search(r"key id\s+(\S+)", out)
    assert issued is not None, out
    narrow = {**env, "COLUMNS": "80"}
    code, out, err = await _run("key", "list", env=narrow)
    assert code == 0, err
    assert all(len(line) <= 80 for line in out.splitlines()), out
    assert issued.group(1) in out and label in out, out
    shown = re.findall(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", out)
    assert shown == [issued.group(1)], out
    code, out, err = await _run("key", "revoke", shown[0], env=narrow)
    assert code == 0 and "revoked" in out, err


async def test_commands_without_the_settings_make_no_database(tmp_path: Path) -> None:
    """Run where no database is (no env file loaded: the default ./data), a command says
    so and creates nothing; `migrate` is the explicit way to make one."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTMAIL_")}
    for name in ("ADMIN_PASSWORD", "DATABASE_URL"):
        env.pop(name, None)
    env["AGENTMAIL_BCRYPT_ROUNDS"] = "4"
    expected = tmp_path / "data" / "agentmail.db"
    for command in (
        ("user", "add", "jianf", "--password", "password123"),
        ("key", "list"),
        ("export", "out.mbox", "--user", "jianf"),
        ("backup", "backup.tar"),
    ):
        code, out, err = await _run(*command, env=env, cwd=tmp_path)
        assert code == 1, (command, out, err)
        assert f"no database at {expected}" in " ".join(err.split()), (command, err)
        assert "agentmail migrate" in err and "gateway.env" in " ".join(err.split())
        assert not (tmp_path / "data").exists(), command
    code, out, err = await _run("migrate", env=env, cwd=tmp_path)
    assert code == 0 and expected.is_file(), err
    code, out, err = await _run("user", "add", "jianf", "--password", "password123", env=env,
                                cwd=tmp_path)  # fmt: skip
    assert code == 0 and "created user jianf" in out, err


async def test_serve_on_a_port_in_use_says_which_in_one_line(tmp_path: Path) -> None:
    """A taken port ends `serve` with exit 1 and one line naming the protocol, host and
    port (no traceback), in either log format. (Not about storage: SQLite only.)"""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        for log_format in ("text", "json"):
            env = _env(
                f"sqlite:///{tmp_path / 'db.sqlite'}",
                tmp_path / "data",
                AGENTMAIL_HTTP_PORT="0",
                AGENTMAIL_SMTP_PORT="0",
                AGENTMAIL_IMAP_PORT=str(port),
                AGENTMAIL_LOG_FORMAT=log_format,
                AGENTMAIL_LOG_LEVEL="warning",  # not the migrations' INFO lines
                ADMIN_PASSWORD="admin-password",
            )
            code, out, err = await _run("serve", env=env)
            assert code == 1, (out, err)
            assert out == "" and len(err.splitlines()) == 1, (out, err)
            line = json.loads(err)["message"] if log_format == "json" else err
            assert f"cannot listen for IMAP on 127.0.0.1:{port}" in line, err
            assert "AGENTMAIL_IMAP_PORT" in line, err


# Run the command in a fresh interpreter and list what it imported: its import weight,
# checked by module, never by a timing.
_LOADED = """
import json, sys
from gateway.cli import app
try:
    app(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)))
"""
_SERVER_STACK = {"fastapi", "sqlalchemy", "alembic", "pymap", "aiosmtpd", "bcrypt", "core.store"}


async def _imported_by(*args: str) -> set[str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        _LOADED,
        *args,
        env={**os.environ, "COLUMNS": "200"},
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, _ = await asyncio.wait_for(process.communicate(), 60)
    loaded: list[str] = json.loads(out.decode().splitlines()[-1])
    return set(loaded)


async def test_version_and_mcp_import_only_what_they_need() -> None:
    """`--version` loads no server, database or web stack; `mcp` only the MCP server's
    (its body's imports run before `--workspace bad` is refused: no gateway needed)."""
    version = await _imported_by("--version")
    assert not version & (_SERVER_STACK | {"starlette", "uvicorn", "mcp", "httpx", "pydantic"})
    mcp = await _imported_by("mcp", "--workspace", "bad")
    assert "bridges.mcp" in mcp and "mcp" in mcp
    assert not mcp & (_SERVER_STACK | {"core.settings", "gateway.server"})
