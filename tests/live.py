"""A real HTTP server over the tests' Redis: the app under werkzeug in a thread, or gunicorn."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import time

import pytest
import requests
from werkzeug.serving import make_server

from events.embedded import free_port
from service.web.app import create_app

from .conftest import API_KEY, ROOT


class LiveServer:
    def __init__(self, app):
        self.app = app
        self.server = make_server("127.0.0.1", 0, app, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.thread.join(5)


@pytest.fixture()
def live_server(service):
    """The application served over real HTTP by a werkzeug server thread."""
    app = create_app(service, rate_limit="off")  # limits have their own tests
    app.config["NAIPES_SSE_HEARTBEAT"] = 0.5
    with LiveServer(app) as server:
        yield server


def start_gunicorn(redis_url: str, extra_env: dict | None = None) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "NAIPES_API_KEYS": API_KEY,
        "NAIPES_BIND": f"127.0.0.1:{port}",
        "PYTHONPATH": str(ROOT),
        "NAIPES_WEB_WORKERS": "2",
        "NAIPES_RATE_LIMIT": "off",
        **(extra_env or {}),
    }
    log = tempfile.TemporaryFile(mode="w+")  # a pipe nobody reads could fill and stall the server
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "-c",
            str(ROOT / "service" / "web" / "gunicorn_conf.py"),
            "service.web.app:create_app()",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=log,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if requests.get(base + "/health", timeout=1).status_code == 200:
                return proc, base
        except requests.RequestException:
            time.sleep(0.1)
        if proc.poll() is not None:
            break
    proc.kill()
    log.seek(0)
    raise RuntimeError("gunicorn did not start: " + log.read()[-3000:])
