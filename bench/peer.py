"""The peer of the move-throughput benchmark: a boardgame.io game with secret hands, and its load generator.

``bench/peer/`` is a small npm package (boardgame.io 0.50.2, pinned with its lock file): ``game.js``
is a shedding game close to the Dalmuti hand naipes plays in ``bench/move_throughput.py`` (five
seats, secret hands dealt with the game's random API, ``playerView`` stripping the others' hands),
``server.js`` one boardgame.io Server process (in-memory storage, socket.io pushing each seat its
own state), and ``load.js`` the load generator: N concurrent tables, each seat a boardgame.io
Client on the SocketIO transport with its credentials from the lobby API, each making a random
legal move from its own view when its turn comes.  A move's latency runs from ``makeMove`` to the
mover receiving the state with the turn advanced.

``run_peer(tables, seconds)`` installs the package when needed (``npm ci``, again only when the
lock file changes), starts the server on a free port, runs the load and returns its figures
(``moves``, ``seconds``, ``moves_per_s``, ``p50_ms``, ``p99_ms``, ``tables``, ...), or None, with
one line saying why, when Node.js or npm is absent or the install fails.

    .venv/bin/python bench/peer.py --tables 8 16 --seconds 8 [--check]
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import cpu_delta, cpu_of  # noqa: E402
from events.embedded import free_port  # noqa: E402

PEER = ROOT / "bench" / "peer"
STAMP = PEER / "node_modules" / ".naipes-lock-sha256"  # the lock file node_modules was installed from
NPM_ENV = {
    "npm_config_audit": "false",
    "npm_config_fund": "false",
    "npm_config_update_notifier": "false",
    "npm_config_loglevel": "error",
}
SKIP = "boardgame.io peer skipped: "


def _lock_digest() -> str | None:
    lock = PEER / "package-lock.json"
    if not lock.exists():
        return None
    digest = hashlib.sha256()
    for name in ("package.json", "package-lock.json"):
        digest.update((PEER / name).read_bytes())
    return digest.hexdigest()


def _npm_reason(output: str) -> str:
    """The line of npm's output that says why it failed."""
    lines = [line.removeprefix("npm error").strip() for line in output.splitlines() if line.strip()]
    for marker in ("reason:", "code E", "npm ERR!", "npm error"):
        for line in lines:
            if marker in line:
                return line[:300]
    return lines[-1][:300] if lines else "no output"


@functools.cache
def _node() -> str | None:
    """The path of node once bench/peer's packages are installed; None (said once) when they cannot be."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        print(SKIP + "Node.js (node, npm) not found on PATH", flush=True)
        return None
    version = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    if int(version.lstrip("v").split(".")[0] or 0) < 18:
        print(SKIP + f"Node.js {version} is too old (the load generator needs 18 or later)", flush=True)
        return None
    digest = _lock_digest()
    if digest and STAMP.exists() and STAMP.read_text().strip() == digest:
        return node
    command = [npm, "ci"] if digest else [npm, "install"]
    try:
        done = subprocess.run(
            command,
            cwd=PEER,
            env={**os.environ, **NPM_ENV},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=600,
        )
    except subprocess.TimeoutExpired:
        print(SKIP + f"`{' '.join(command[1:])}` in bench/peer took over 600 s", flush=True)
        return None
    if done.returncode != 0:
        reason = _npm_reason(done.stderr + done.stdout)
        print(SKIP + f"`npm {' '.join(command[1:])}` failed in bench/peer ({reason})", flush=True)
        return None
    STAMP.write_text((_lock_digest() or "") + "\n")
    return node


def _wait_until_up(server: subprocess.Popen, base: str, log: Path, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"bench/peer/server.js exited with {server.returncode}: {log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(base + "/games", timeout=1) as answer:
                if answer.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.05)
    raise RuntimeError(f"bench/peer/server.js did not answer on {base} within {timeout:.0f} s")


def run_peer(tables: int, seconds: float, check: bool = False) -> dict | None:
    """Run the boardgame.io peer: ``tables`` concurrent tables for ``seconds``; its figures, or None when
    Node.js is absent or its packages cannot be installed.  ``check`` makes the load generator check
    that no seat ever receives another seat's hand (the answer then has ``checked_states`` and
    ``leaks``).  A failing server or load generator raises RuntimeError."""
    node = _node()
    if node is None:
        return None
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "server.log"
        with log.open("w") as out:
            server = subprocess.Popen(
                [node, "server.js", "--port", str(port)],
                cwd=PEER,
                env={**os.environ, "NODE_ENV": "production"},
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        try:
            _wait_until_up(server, base, log)
            command = [node, "load.js", "--server", base, "--tables", str(tables), "--seconds", str(seconds)]
            served = cpu_of(server.pid)
            children = resource.getrusage(resource.RUSAGE_CHILDREN)
            try:
                done = subprocess.run(
                    command + (["--check"] if check else []),
                    cwd=PEER,
                    stdin=subprocess.DEVNULL,
                    capture_output=True,
                    text=True,
                    timeout=seconds + 60,
                )
            except subprocess.TimeoutExpired as e:
                raise RuntimeError(f"bench/peer/load.js ran over {seconds + 60:.0f} s") from e
            if done.returncode != 0:
                raise RuntimeError(
                    f"bench/peer/load.js exited with {done.returncode}: {done.stderr.strip()[-2000:]}"
                    f" {done.stdout.strip()[-500:]}"
                )
            lines = [line for line in done.stdout.splitlines() if line.strip()]
            found = json.loads(lines[-1])
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            # the CPU the server and the load generator spent (the generator's start included)
            found["server_cpu_s"] = cpu_delta(served, cpu_of(server.pid))
            found["load_cpu_s"] = (after.ru_utime + after.ru_stime) - (children.ru_utime + children.ru_stime)
            return found
        finally:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, nargs="+", default=[8, 16])
    ap.add_argument("--seconds", type=float, default=8)
    ap.add_argument("--check", action="store_true", help="check that no seat receives another seat's hand")
    args = ap.parse_args()
    for tables in args.tables:
        result = run_peer(tables, args.seconds, check=args.check)
        if result is None:
            return
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
