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
    proc = subprocess.Popen([sys.executable, "-m", "service.cli", "start"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
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
        g = requests.post(f"{base}/games", headers=auth, json={
            "game": "dalmuti", "players": ["a", "b", "c", "d"],
            "options": {"hands": 1, "turn_seconds": 0.5, "absent_after": 1}}).json()
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
