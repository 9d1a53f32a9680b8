"""SeaweedFS as the tests' S3-compatible object store: `weed mini` from the PyPI wheel.

`weed mini` runs a master, a volume server, a filer and the S3 gateway in one
process. Every port it would open is named, drawn below the ephemeral range so that
it is still free when a test starts the store again (ports.py); each gRPC port is its
HTTP port + 10000, as SeaweedFS assumes in places (its plugin worker dials the admin
server there whatever `-admin.port.grpc` says); the S3 gateway takes one identity with
an access key (`-s3.config`), and the bucket is made at start-up (`-bucket`). `stop`
and `start` again keep the data (the outage tests); `close` stops it and removes its
directory.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import boto3
from botocore.config import Config

from tests.support.ports import steady_ports

ACCESS_KEY = "agentmail-test"
SECRET_KEY = "agentmail-test-secret"
BUCKET = "agentmail-test"
START_SECONDS = 60.0  # a bound on a hang; it starts in a few seconds
_WITH_GRPC = ("master", "volume", "filer", "s3", "admin")
_PLAIN = ("s3.port.iceberg", "s3.port.lance")
GRPC_OFFSET = 10000


def weed() -> str:
    found = Path(sys.executable).parent / "weed"
    return str(found) if found.exists() else shutil.which("weed") or "weed"


def weed_ports(host: str) -> dict[str, int]:
    ports = {}
    paired = steady_ports(len(_WITH_GRPC), host, GRPC_OFFSET)
    for name, port in zip(_WITH_GRPC, paired, strict=True):
        ports[f"{name}.port"] = port
        ports[f"{name}.port.grpc"] = port + GRPC_OFFSET
    plain = steady_ports(len(_PLAIN), host, avoid=set(ports.values()))
    return ports | dict(zip(_PLAIN, plain, strict=True))


class SeaweedFS:
    def __init__(self, host: str = "127.0.0.1") -> None:
        """Every port on `host` (another address than loopback: the cluster world's
        replicas reach it from their own network namespaces)."""
        self.host = host
        self.dir = Path(tempfile.mkdtemp(prefix="agentmail-seaweedfs-"))
        self.ports = weed_ports(host)
        self.endpoint = f"http://{host}:{self.ports['s3.port']}"
        config = {
            "identities": [
                {
                    "name": "agentmail",
                    "credentials": [{"accessKey": ACCESS_KEY, "secretKey": SECRET_KEY}],
                    "actions": ["Admin", "Read", "Write", "List", "Tagging"],
                }
            ]
        }
        (self.dir / "s3.json").write_text(json.dumps(config))
        (self.dir / "data").mkdir()
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int | None:
        """The `weed` process, while it runs (its CPU, for a benchmark)."""
        return self._process.pid if self._process is not None else None

    def settings(self, prefix: str = "mail") -> dict[str, Any]:
        """The gateway's settings for this store (`running_gateway(**settings)`)."""
        return {
            "blob_url": f"s3://{BUCKET}/{prefix}",
            "s3_endpoint": self.endpoint,
            "s3_access_key": ACCESS_KEY,
            "s3_secret_key": SECRET_KEY,
        }

    def client(self) -> Any:
        config = Config(
            s3={"addressing_style": "path"},
            connect_timeout=2,
            read_timeout=5,
            retries={"max_attempts": 1},
        )
        return boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            aws_access_key_id=ACCESS_KEY,
            aws_secret_access_key=SECRET_KEY,
            region_name="us-east-1",
            config=config,
        )

    def start(self) -> None:
        flags = [f"-{name}={port}" for name, port in self.ports.items()]
        log = open(self.dir / "weed.log", "ab")  # noqa: SIM115 - the child holds it
        self._process = subprocess.Popen(
            [
                weed(), "mini", f"-dir={self.dir / 'data'}", f"-ip={self.host}",
                f"-ip.bind={self.host}", "-webdav=false", "-admin.ui=false",
                "-master.volumeSizeLimitMB=64", "-volume.max=8",
                f"-s3.config={self.dir / 's3.json'}", f"-bucket={BUCKET}", *flags,
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        log.close()
        self._wait_until_ready()

    def _wait_until_ready(self) -> None:
        client = self.client()
        deadline = time.monotonic() + START_SECONDS
        while True:
            assert self._process is not None
            if self._process.poll() is not None:
                raise RuntimeError(f"weed exited at start-up: {self.log_tail()}")
            try:
                client.put_object(Bucket=BUCKET, Key="ready", Body=b"ready")
                return
            except Exception as error:
                if time.monotonic() > deadline:
                    tail = self.log_tail()
                    raise RuntimeError(f"SeaweedFS not ready: {error}; {tail}") from error
            time.sleep(0.2)

    def log_tail(self) -> str:
        path = self.dir / "weed.log"
        return path.read_text(errors="replace")[-2000:] if path.exists() else ""

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=15)

    def close(self) -> None:
        try:
            self.stop()
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)
