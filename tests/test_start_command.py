"""The README's start command: embedded Redis, gunicorn, an RQ worker; a game played over real HTTP."""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import time

import requests

from events.embedded import free_port

from .conftest import ROOT


def test_start_serves_a_timed_game_to_its_end_and_stops_cleanly(tmp_path):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "NAIPES_API_KEYS")}
    env.update(NAIPES_DATA=str(tmp_path), NAIPES_BIND=f"127.0.0.1:{port}", PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "start"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    lines = []
    try:
        key = None
        deadline = time.monotonic() + 60
        while key is None and time.monotonic() < deadline:
            line = proc.stdout.readline()
            lines.append(line)
            found = re.search(r"integrator key: (\S+)", line)
            if found:
                key = found.group(1)
        assert key, "".join(lines)
        assert (tmp_path / "api_key").read_text().strip() == key
        for _ in range(200):
            try:
                if requests.get(f"{base}/health", timeout=1).status_code == 200:
                    break
            except requests.RequestException:
                time.sleep(0.1)
        auth = {"Authorization": f"Bearer {key}"}
        g = requests.post(
            f"{base}/games",
            headers=auth,
            json={
                "game": "dalmuti",
                "players": ["a", "b", "c", "d"],
                "options": {"hands": 1, "turn_seconds": 0.5, "absent_after": 1},
            },
        ).json()
        toks = {s["seat"]: {"Authorization": f"Bearer {s['token']}"} for s in g["seats"]}
        rng = random.Random(4)
        # seat 0 plays by itself; the others stay silent and are moved for by the worker
        end = time.monotonic() + 60
        while time.monotonic() < end:
            view = requests.get(f"{base}/games/{g['id']}").json()
            if view["finished"]:
                break
            if 0 in view["to_act"]:
                moves = requests.get(f"{base}/games/{g['id']}/legal-moves", headers=toks[0]).json()["moves"]
                requests.post(f"{base}/games/{g['id']}/moves", headers=toks[0], json=rng.choice(moves))
            time.sleep(0.05)
        assert view["finished"], view
        assert 0 not in view["absent"] and {1, 2, 3} <= set(view["absent"])
        audit = requests.get(f"{base}/games/{g['id']}/audit", headers=auth).json()
        assert audit["chain"]["ok"] and any(e["actor"] == "worker" for e in audit["events"])
        assert (tmp_path / "redis" / "appendonlydir").exists() or list((tmp_path / "redis").glob("*.aof"))
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0, out
    assert "naipes stopped." in out
    assert "Traceback" not in out, out  # Ctrl-C stops the parts in order, none meets it mid-request


def _launch(data, port: int) -> tuple[subprocess.Popen, str, str]:
    """``naipes start`` over the data folder; its process, base URL and integrator key once it serves."""
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "NAIPES_API_KEYS")}
    env.update(NAIPES_DATA=str(data), NAIPES_BIND=f"127.0.0.1:{port}", PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "start"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    base, key, lines = f"http://127.0.0.1:{port}", None, []
    deadline = time.monotonic() + 60
    while key is None and time.monotonic() < deadline:
        line = proc.stdout.readline()
        lines.append(line)
        found = re.search(r"integrator key: (\S+)", line)
        key = found.group(1) if found else None
    assert key, "".join(lines)
    for _ in range(300):
        try:
            if requests.get(f"{base}/health", timeout=1).status_code == 200:
                break
        except requests.RequestException:
            time.sleep(0.1)
    return proc, base, key


def test_a_second_start_on_the_same_data_folder_refuses_at_once_and_touches_nothing(tmp_path):
    port = free_port()
    first, base, key = _launch(tmp_path, port)
    try:
        running = (tmp_path / "redis.url").read_text()
        env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "NAIPES_API_KEYS")}
        env.update(NAIPES_DATA=str(tmp_path), NAIPES_BIND=f"127.0.0.1:{port}", PYTHONPATH=str(ROOT))
        began = time.monotonic()
        second = subprocess.Popen(
            [sys.executable, "-m", "service.cli", "start"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        try:
            out, _ = second.communicate(timeout=30)
        finally:
            if second.poll() is None:
                os.killpg(second.pid, signal.SIGKILL)
                second.wait()
        assert second.returncode == 1 and time.monotonic() - began < 15, out
        # it names the running instance: its pid and its addresses
        assert f"pid {first.pid}" in out and base in out and running.strip() in out, out
        assert "embedded Redis at" not in out and "naipes is serving" not in out, out
        # the running one is untouched: its Redis address, its service, and the commands reach it
        assert (tmp_path / "redis.url").read_text() == running
        assert requests.get(f"{base}/health", timeout=5).status_code == 200
        assert (
            requests.post(
                f"{base}/games",
                headers={"Authorization": f"Bearer {key}"},
                timeout=10,
                json={"game": "dalmuti", "players": ["a", "b", "c", "d"]},
            ).status_code
            == 201
        )
        listed = subprocess.run(
            [sys.executable, "-m", "service.cli", "games", "list"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert listed.returncode == 0 and "1 of 1 games" in listed.stderr, listed.stdout + listed.stderr
    finally:
        os.killpg(first.pid, signal.SIGINT)
        out, _ = first.communicate(timeout=30)
    assert first.returncode == 0 and "naipes stopped." in out, out
    assert not (tmp_path / "redis.url").exists()


# The ./naipes script itself, over a stand-in virtual environment: its python records pip's installs
# instead of making them and runs everything else with this environment's interpreter; its naipes is the
# command line of this environment.  A chromium stand-in on PATH keeps the test path from installing one.
def wrapper_env(tmp_path) -> tuple[dict, object]:
    venv, tools, log = tmp_path / "venv", tmp_path / "tools", tmp_path / "pip.log"
    (venv / "bin").mkdir(parents=True)
    tools.mkdir()
    scripts = {
        venv / "bin" / "python": f'#!/bin/sh\nif [ "$1" = -m ] && [ "$2" = pip ]; then echo "$*" >> "{log}"; '
        f'exit 0; fi\nexec "{sys.executable}" "$@"\n',
        venv / "bin" / "naipes": f'#!/bin/sh\nexec "{sys.executable}" -m service.cli "$@"\n',
        tools / "chromium": "#!/bin/sh\nexit 0\n",
    }
    for path, text in scripts.items():
        path.write_text(text)
        path.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NAIPES_", "REDIS_URL"))}
    env.update(NAIPES_VENV=str(venv), PYTHONPATH=str(ROOT), PATH=f"{tools}{os.pathsep}{env.get('PATH', '')}")
    return env, log


def test_start_installs_the_services_dependencies_only_and_test_the_test_extras(tmp_path):
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    test_only = {
        "pytest",
        "pytest-xdist",
        "schemathesis",
        "playwright",
        "openapi-python-client",
        "pillow",
        "openapi-spec-validator",
    }
    service = {re.split(r"[<>=!~\[ ;]", d, maxsplit=1)[0].lower() for d in project["dependencies"]}
    assert not service & test_only and test_only <= {
        re.split(r"[<>=!~\[ ;]", d, maxsplit=1)[0].lower() for d in project["optional-dependencies"]["test"]
    }
    env, log = wrapper_env(tmp_path)
    r = subprocess.run(
        [str(ROOT / "naipes"), "start", "--help"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 0 and "Usage:" in r.stdout, r.stdout + r.stderr
    installs = [x for x in log.read_text().splitlines() if " -e " in x]
    assert len(installs) == 1 and "[test]" not in installs[0] and installs[0].endswith(str(ROOT)), installs
    r = subprocess.run(
        [str(ROOT / "naipes"), "test", "--version"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0 and "pytest" in r.stdout + r.stderr, r.stdout + r.stderr
    installs = [x for x in log.read_text().splitlines() if " -e " in x]
    assert len(installs) == 2 and installs[1].endswith(f"{ROOT}[test]"), installs


def test_help_lists_every_command(tmp_path):
    env, _ = wrapper_env(tmp_path)
    for flag in ("--help", "-h", "help"):
        r = subprocess.run(
            [str(ROOT / "naipes"), flag], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
        )
        assert r.returncode == 0, r.stdout + r.stderr
        for command in ("start", "test", "games", "replay", "export", "verify", "keys", "openapi", "worker"):
            assert re.search(rf"^\s+{command}\s+\S", r.stdout, re.M), (command, r.stdout)


def test_start_refuses_while_a_redis_left_by_a_killed_start_still_runs_over_the_folder(tmp_path):
    from events.embedded import EmbeddedRedis

    with EmbeddedRedis(tmp_path / "redis") as left:  # as a SIGKILLed start leaves it: running, its address kept
        (tmp_path / "redis.url").write_text(left.url + "\n")
        env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "NAIPES_API_KEYS")}
        env.update(NAIPES_DATA=str(tmp_path), NAIPES_BIND=f"127.0.0.1:{free_port()}", PYTHONPATH=str(ROOT))
        r = subprocess.run(
            [sys.executable, "-m", "service.cli", "start"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            start_new_session=True,
        )
        assert r.returncode == 1 and left.url in r.stderr and "shut it down first" in r.stderr, r.stdout + r.stderr
        assert (tmp_path / "redis.url").read_text().strip() == left.url


def test_a_secret_too_short_is_refused_before_anything_starts(tmp_path):
    """A NAIPES_SECRET under 32 bytes: the start command says so and exits, having started nothing (it
    once started and answered every creation 500); an application given one refuses to be built."""
    import pytest

    from service.core.naipes import Naipes

    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "NAIPES_API_KEYS")}
    env.update(NAIPES_DATA=str(tmp_path), NAIPES_BIND=f"127.0.0.1:{free_port()}", PYTHONPATH=str(ROOT))
    env["NAIPES_SECRET"] = "too-short"
    done = subprocess.run(
        [sys.executable, "-m", "service.cli", "start"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode != 0
    assert "NAIPES_SECRET is 9 bytes" in done.stderr and "at least 32" in done.stderr, done.stderr
    assert not (tmp_path / "redis").exists() and not (tmp_path / "redis.url").exists()
    with pytest.raises(ValueError, match="at least 32 bytes"):
        Naipes(None, secret="too-short")  # type: ignore[arg-type]
