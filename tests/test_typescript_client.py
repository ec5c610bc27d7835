"""The contract is consumable from TypeScript: a typed client generated from openapi.yaml plays every game type.

``clients/typescript`` is a small npm package: ``openapi-typescript`` generates
``src/schema.d.ts`` from the repository's ``openapi.yaml``, ``openapi-fetch``
makes the calls, and ``src/play.ts`` plays a game to its end, posting each
legal move back typed as its game's own move union (``DalmutiMove``, ...), then
narrows the problem+json answer to a move after the end.  This test installs
the package once (``npm ci``, keyed by the lock file's hash, in a cache
folder), regenerates the schema from the contract as it is now (a contract
change that breaks the typed client fails here), type-checks the example with
``tsc --noEmit``, builds it, and runs it against gunicorn for a short game of
each type; Python then reads each game back through the API.

Skipped, saying why, only when Node.js or npm is missing or the npm registry
cannot be reached for the first install.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
import requests

from .conftest import API_KEY, ROOT
from .live import start_gunicorn

PACKAGE = ROOT / "clients" / "typescript"
GAMES = {  # game type -> players, options: a short game of each (tests/helpers.py SHORT)
    "dalmuti": (["ana", "bea", "carl", "dani"], {"hands": 1}),
    "cego": (["ana", "bea", "carl"], {"rounds": 1}),
    "muerte": (["ana", "bea", "carl", "dani", "eva", "flor"], {"games": 1}),
    "onion": (["ana", "bea", "carl"], {"rounds": 2}),
}
NETWORK_ERRORS = ("ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "ENETUNREACH", "EHOSTUNREACH")
NPM_ENV = {"npm_config_audit": "false", "npm_config_fund": "false", "npm_config_update_notifier": "false"}


def run(cmd: list[str], cwd: Path, timeout: float, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run a command in its own process group; on timeout the whole group is killed and the test fails."""
    proc = subprocess.Popen(
        cmd,
        cwd=cwd,
        env={**os.environ, **NPM_ENV, **(env or {})},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"{' '.join(cmd)} took over {timeout:.0f} s:\n{out[-2000:]}\n{err[-3000:]}")
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def npm_reason(output: str) -> str:
    """The line of npm's error output that says why (the fetch error, else the error code)."""
    lines = [line.removeprefix("npm error").strip() for line in output.splitlines() if line.strip()]
    for marker in ("reason:", "code E", "npm error"):
        for line in lines:
            if marker in line:
                return line[:300]
    return lines[-1][:300] if lines else "no output"


def registry_unreachable(npm: str, output: str) -> str | None:
    """Why the npm registry cannot be reached (None when it can): asked with `npm ping` after a failed install."""
    registry = run([npm, "config", "get", "registry"], PACKAGE, timeout=30).stdout.strip()
    try:
        ping = run([npm, "ping"], PACKAGE, timeout=30)
    except pytest.fail.Exception:
        return f"the npm registry {registry} did not answer `npm ping` within 30 s"
    if ping.returncode != 0:
        return f"the npm registry {registry} cannot be reached ({npm_reason(ping.stderr + ping.stdout)})"
    if any(code in output for code in NETWORK_ERRORS):
        return f"npm could not download from {registry} ({npm_reason(output)})"
    return None


def cache_root(tmp_path_factory) -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "naipes-ts"
    try:
        base.mkdir(parents=True, exist_ok=True)
        return base
    except OSError:  # no writable home: install into this session's temporary folder
        return tmp_path_factory.getbasetemp() / "naipes-ts"


def installed_modules(tmp_path_factory) -> Path:
    """`npm ci` of clients/typescript once per lock file: its node_modules, in the cache folder."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        pytest.skip(f"{'Node.js (node)' if not node else 'npm'} is not installed: the TypeScript client cannot run")
    version = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    if int(version.lstrip("v").split(".")[0]) < 18:
        pytest.skip(f"Node.js {version} is too old for the TypeScript client (it needs 18 or later, for fetch)")
    digest = hashlib.sha256()
    for name in ("package.json", "package-lock.json"):
        digest.update((PACKAGE / name).read_bytes())
    target = cache_root(tmp_path_factory) / digest.hexdigest()[:16]
    if (target / "node_modules" / ".naipes-installed").exists():
        return target / "node_modules"

    staging = target.with_name(f"{target.name}.{os.getpid()}.{time.monotonic_ns()}")
    staging.mkdir(parents=True)
    try:
        for name in ("package.json", "package-lock.json"):
            shutil.copy2(PACKAGE / name, staging / name)
        try:
            proc = run([npm, "ci", "--no-audit", "--no-fund"], staging, timeout=300)
        except pytest.fail.Exception:
            why = registry_unreachable(npm, "")
            if why:
                pytest.skip(f"{why} (npm ci of clients/typescript timed out)")
            raise
        if proc.returncode != 0:
            output = proc.stdout + proc.stderr
            why = registry_unreachable(npm, output)
            if why:
                pytest.skip(f"{why}: the TypeScript client's packages cannot be installed")
            pytest.fail(f"npm ci failed in a copy of clients/typescript:\n{output[-4000:]}")
        (staging / "node_modules" / ".naipes-installed").touch()
        try:
            staging.rename(target)  # atomic: a concurrent session either wins or finds it installed
        except OSError:
            if not (target / "node_modules" / ".naipes-installed").exists():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target / "node_modules"


@pytest.fixture(scope="module")
def ts_client(tmp_path_factory) -> Path:
    """clients/typescript laid out as in the repository, its schema regenerated, type-checked and built."""
    modules = installed_modules(tmp_path_factory)
    npm = shutil.which("npm")
    repo = tmp_path_factory.mktemp("ts-repo")
    (repo / "openapi.yaml").symlink_to(ROOT / "openapi.yaml")  # the package's scripts read ../../openapi.yaml
    pkg = repo / "clients" / "typescript"
    pkg.mkdir(parents=True)
    for name in ("package.json", "package-lock.json", "tsconfig.json"):
        shutil.copy2(PACKAGE / name, pkg / name)
    shutil.copytree(PACKAGE / "src", pkg / "src", ignore=shutil.ignore_patterns("schema.d.ts"))
    (pkg / "node_modules").symlink_to(modules, target_is_directory=True)

    for script, timeout in (("generate", 120), ("check", 180), ("build", 180)):
        proc = run([npm, "run", "--silent", script], pkg, timeout=timeout)
        assert proc.returncode == 0, f"npm run {script}:\n{proc.stdout[-6000:]}\n{proc.stderr[-3000:]}"
    schema = (pkg / "src" / "schema.d.ts").read_text()
    for union in ("DalmutiMove", "CegoMove", "MuerteMove", "OnionMove", "Problem"):
        assert f"        {union}: " in schema, union  # the names src/play.ts types its moves with
    assert (pkg / "dist" / "play.js").exists()
    return pkg


@pytest.fixture(scope="module")
def gunicorn(redis_url):
    proc, base = start_gunicorn(redis_url)
    try:
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_the_generated_typescript_client_plays_a_game_of_every_type(ts_client, gunicorn):
    node = shutil.which("node")
    env = {**os.environ, "API": gunicorn, "KEY": API_KEY}
    started = {}
    for seed, (game, (players, options)) in enumerate(GAMES.items(), start=1):
        cmd = [node, "dist/play.js", game, "--players", ",".join(players), "--options", json.dumps(options)]
        cmd += ["--seed", str(seed)]
        started[game] = subprocess.Popen(
            cmd, cwd=ts_client, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
    outputs = {}
    deadline = time.monotonic() + 150
    try:
        for game, proc in started.items():
            try:
                out, err = proc.communicate(timeout=max(1.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                out, err = proc.communicate()
                pytest.fail(f"the TypeScript client did not finish its {game} game in time:\n{err[-2000:]}")
            assert proc.returncode == 0, f"{game}: node dist/play.js failed:\n{out[-2000:]}\n{err[-3000:]}"
            outputs[game] = json.loads(out.strip().splitlines()[-1])
    finally:
        for proc in started.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait()

    for game, (players, _options) in GAMES.items():
        played = outputs[game]
        assert played["game"] == game and played["finished"] is True, played
        assert played["moves"] > len(players), played  # a complete game, every move a posted legal one
        # the typed problem the client narrowed: a move after the end
        assert played["problem"]["type"] == "urn:naipes:problem:game-finished", played
        assert played["problem"]["status"] == 409 and played["problem"]["title"] and played["problem"]["detail"]

        # the game as the API tells it to Python
        view = requests.get(f"{gunicorn}/games/{played['id']}", timeout=10).json()
        assert view["game"] == game and view["finished"] is True, view
        assert view["players"] == players
        assert view["result"] == played["result"] and view["result"]["winners"], view["result"]
        assert view["version"] == played["version"]  # the refused move appended nothing
        audit = requests.get(
            f"{gunicorn}/games/{played['id']}/audit", headers={"Authorization": f"Bearer {API_KEY}"}, timeout=10
        ).json()
        assert audit["chain"]["ok"] and audit["chain"]["checked"] == view["version"], audit["chain"]
        by_seats = [e for e in audit["events"] if e["actor"].startswith("seat:")]
        assert len(by_seats) >= played["moves"], (len(by_seats), played["moves"])  # each posted move is in the log
