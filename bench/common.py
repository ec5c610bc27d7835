"""Start the stack the benchmarks measure: embedded Redis and gunicorn apps."""

from __future__ import annotations

import contextlib
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import psutil
import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from events.embedded import free_port  # noqa: E402

API_KEY = "nk_bench"


def machine() -> str:
    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def gunicorn(
    app: str,
    redis_url: str,
    extra_env: dict | None = None,
    root: str | os.PathLike | None = None,
    worker_class: str | None = None,
) -> tuple[subprocess.Popen, str]:
    """gunicorn serving ``app`` with the start command's settings; ``root``: another checkout's;
    ``worker_class``: another worker class than the settings' (``uvicorn_worker.UvicornWorker`` for an ASGI
    app), given to the settings too (NAIPES_WORKER_CLASS), so that what they derive from it agrees."""
    root = Path(root) if root else ROOT
    port = free_port()
    env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "NAIPES_API_KEYS": API_KEY,
        "NAIPES_BIND": f"127.0.0.1:{port}",
        "PYTHONPATH": str(root),
        **(extra_env or {}),
    }
    command = [sys.executable, "-m", "gunicorn", "-c", str(root / "service" / "web" / "gunicorn_conf.py")]
    if worker_class:
        env["NAIPES_WORKER_CLASS"] = worker_class
        command += ["-k", worker_class]
    proc = subprocess.Popen(
        [*command, app],
        cwd=root,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            requests.get(base + "/health", timeout=0.5)
            return proc, base
        except requests.RequestException:
            time.sleep(0.05)
    raise RuntimeError(f"gunicorn for {app} did not start")


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def cpu_of(pid: int, descendants: bool = True) -> dict[int, float]:
    """User + system seconds of a process and (unless ``descendants`` is False) its descendants, by pid."""
    out = {}
    try:
        root = psutil.Process(pid)
        for p in [root, *root.children(recursive=True)] if descendants else [root]:
            with contextlib.suppress(psutil.NoSuchProcess):
                t = p.cpu_times()
                out[p.pid] = t.user + t.system
    except psutil.NoSuchProcess:
        pass
    return out


def cpu_delta(before: dict[int, float], after: dict[int, float]) -> float:
    return sum(t - before.get(pid, 0.0) for pid, t in after.items())
