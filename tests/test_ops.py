"""Operators' view: /health, Prometheus /metrics, JSON logs, and the command line."""

from __future__ import annotations

import io
import json
import logging
import os
import random
import re
import subprocess
import sys
import time

import redis
import requests
from click.testing import CliRunner

from service.cli import main as cli
from service.core.identity import Viewer
from service.core.naipes import Naipes
from service.core.timers import DEADLINES
from service.web.app import create_app

from .conftest import ROOT, bearer
from .helpers import create, play_http, tokens
from .live import start_gunicorn


def test_health_reports_workers_and_scheduler_lock(client, redis_url, tmp_path):
    body = client.get("/health").get_json()
    assert body["redis"] is True and set(body) >= {"status", "workers", "scheduler", "queues"}
    env = {**os.environ, "REDIS_URL": redis_url, "PYTHONPATH": str(ROOT)}
    worker = subprocess.Popen(
        [sys.executable, "-m", "workers"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            body = client.get("/health").get_json()
            if body["status"] == "ok":
                break
            time.sleep(0.2)
        assert body["status"] == "ok" and body["workers"] >= 1 and body["scheduler"] is True, body
    finally:
        worker.terminate()
        _, err = worker.communicate(timeout=20)
    for line in err.splitlines():  # the worker logs JSON lines
        if line.startswith("{"):
            assert {"time", "level", "logger", "message"} <= set(json.loads(line))


def test_health_is_503_problem_when_redis_is_down():
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    dead = Naipes(redis.Redis(host="127.0.0.1", port=1, socket_connect_timeout=0.2, retry=Retry(NoBackoff(), 0)))
    r = create_app(dead, rate_limit="off").test_client().get("/health")
    assert r.status_code == 503 and r.mimetype == "application/problem+json"


def test_metrics_count_moves_errors_latency_and_queue_depth(client, integrator, service):
    g = create(client, integrator, players=["a", "b", "c", "d"], options={"hands": 1})
    toks = tokens(g)
    play_http(client, g, random.Random(2))
    client.post(f"/games/{g['id']}/moves", json={"type": "pass"}, headers=bearer(toks[0]))  # game over: 409
    client.get("/games/nope")  # 404
    text = client.get("/metrics").get_data(as_text=True)
    assert client.get("/metrics").mimetype == "text/plain"

    def sample(name: str, **labels) -> float:
        want = ",".join(f'{k}="{v}"' for k, v in labels.items())
        for line in text.splitlines():
            if line.startswith(f"{name}{{{want}}}") or (not labels and line.startswith(name + " ")):
                return float(line.rsplit(" ", 1)[1])
        return 0.0

    assert sample("naipes_moves_total", game="dalmuti", result="accepted") >= 10
    assert sample("naipes_moves_total", game="dalmuti", result="game-finished") >= 1
    assert sample("naipes_http_errors_total", status="404") >= 1
    assert sample("naipes_http_request_duration_seconds_count", method="POST", route="/games/<game_id>/moves") >= 11
    assert 'naipes_queue_depth{queue="naipes-timers"}' in text
    assert sample("naipes_redis_up") == 1.0
    # the turn deadlines' schedule, as the scrape found it
    pending = service.queue_redis.zcard(DEADLINES)
    assert 'naipes_deadlines{state="due"}' in text and 'naipes_deadlines{state="claimed"}' in text
    assert sample("naipes_deadlines", state="pending") == pending


def test_the_deadline_gauge_counts_the_schedule(client, service):
    now = time.time()
    service.queue_redis.zadd(DEADLINES, {"d:1:gauge-a:1:0": now - 60, "d:2:gauge-b:1:0": now + 3600})
    try:
        text = client.get("/metrics").get_data(as_text=True)
        values = {
            line.split('"')[1]: float(line.rsplit(" ", 1)[1])
            for line in text.splitlines()
            if line.startswith("naipes_deadlines{")
        }
        assert values["pending"] == service.queue_redis.zcard(DEADLINES) >= 2
        assert values["due"] >= 1 and values["due"] < values["pending"]
    finally:
        service.queue_redis.zrem(DEADLINES, "d:1:gauge-a:1:0", "d:2:gauge-b:1:0")


def test_timeouts_fired_are_counted(service):
    from prometheus_client import REGISTRY

    from service.core.metrics import timeout_fired

    service.on_timeout.append(timeout_fired)
    before = REGISTRY.get_sample_value("naipes_timeouts_fired_total", {"game": "dalmuti"}) or 0
    g = service.games.create_game("dalmuti", ["a", "b", "c", "d"], {"hands": 1, "turn_seconds": 5})
    table = service.tables.table(g["id"])
    seat = service.reads.state_view(g["id"], Viewer("spectator"), table)["to_act"][0]
    assert service.deadlines.enforce_deadline(g["id"], table["version"], seat)
    assert not service.deadlines.enforce_deadline(
        g["id"], table["version"], seat
    )  # stale: nothing appended, not counted
    after = REGISTRY.get_sample_value("naipes_timeouts_fired_total", {"game": "dalmuti"})
    assert after == before + 1


def test_metrics_add_up_every_gunicorn_worker_in_multiprocess_mode(redis_url, tmp_path, integrator):
    proc, base = start_gunicorn(redis_url, {"PROMETHEUS_MULTIPROC_DIR": str(tmp_path)})
    try:
        g = requests.post(
            f"{base}/games",
            headers=integrator,
            json={"game": "dalmuti", "players": ["a", "b", "c", "d"], "options": {"hands": 1}},
        ).json()
        toks = tokens(g)
        made = 0
        for _ in range(30):  # new connections: both workers serve some
            view = requests.get(f"{base}/games/{g['id']}").json()
            seat = view["to_act"][0]
            moves = requests.get(f"{base}/games/{g['id']}/legal-moves", headers=bearer(toks[seat])).json()["moves"]
            assert (
                requests.post(f"{base}/games/{g['id']}/moves", json=moves[0], headers=bearer(toks[seat])).status_code
                == 201
            )
            made += 1
        text = requests.get(f"{base}/metrics").text
        line = next(
            x for x in text.splitlines() if x.startswith('naipes_moves_total{game="dalmuti",result="accepted"}')
        )
        assert float(line.rsplit(" ", 1)[1]) == made
        assert len(list(tmp_path.glob("*.db"))) >= 2
    finally:
        proc.terminate()
        proc.wait(15)


def test_logs_are_json_lines_with_game_and_version(app):
    from service.logs import Formatter, GameContext, game_context

    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(Formatter())
    handler.addFilter(GameContext())
    log = logging.getLogger("naipes.test")
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    try:
        with game_context("g123", 7):
            log.warning("deadline enforced")
        with app.test_request_context("/games/abc/events"):
            from flask import request

            request.view_args = {"game_id": "abc"}
            log.info("read")
        log.error("plain")
    finally:
        log.removeHandler(handler)
    first, second, third = (json.loads(x) for x in stream.getvalue().splitlines())
    assert first["game_id"] == "g123" and first["version"] == 7 and first["level"] == "WARNING"
    assert first["logger"] == "naipes.test" and first["message"] == "deadline enforced" and first["time"].endswith("Z")
    assert second["game_id"] == "abc" and "version" not in second
    assert "game_id" not in third


def test_cli_lists_games_prints_replays_and_exports(service, redis_url, tmp_path):
    g = service.games.create_game("cego", ["ana", "bea", "carl"], {"rounds": 1})
    rng = random.Random(1)
    while True:
        view = service.reads.state_view(g["id"], Viewer("spectator"))
        if view["finished"]:
            break
        seat = rng.choice(view["to_act"])
        service.moves.move(
            g["id"], seat, rng.choice(service.reads.legal_moves(g["id"], Viewer("seat", seat=seat))["moves"])
        )
    head = view["version"]
    runner = CliRunner()
    env = {"REDIS_URL": redis_url}

    out = runner.invoke(cli, ["games", "list", "--game", "cego", "--status", "finished"], env=env)
    assert out.exit_code == 0, out.output
    assert g["id"] in out.output and "ana, bea, carl" in out.output

    out = runner.invoke(cli, ["replay", g["id"], "--version", "5", "--as", "reviewer"], env=env)
    assert out.exit_code == 0, out.output
    assert f"cego {g['id']}  version 5  viewer reviewer (full sight)" in out.output and "hand:" in out.output
    # a list of seats as long as the table (the turn order of the seats in the round) is the table's, not a
    # value per seat
    assert "\n  active: [" in out.output and "active=" not in out.output, out.output
    out = runner.invoke(cli, ["replay", g["id"], "--as", "spectator"], env=env)
    assert out.exit_code == 0 and "result:" in out.output and "winner" in out.output and "hand:" not in out.output
    out = runner.invoke(cli, ["replay", g["id"], "--as", "1", "--version", "5"], env=env)
    assert out.exit_code == 0 and out.output.count("hand:") == 1
    # the events that led to the version, in words (the game's own labels), in either language
    out = runner.invoke(cli, ["replay", g["id"], "--version", "5", "--events", "3"], env=env)
    lines = out.output.split("events:\n")[1].split("\n\n")[0].splitlines()
    assert out.exit_code == 0 and [line.split()[0] for line in lines] == ["3", "4", "5"], out.output
    spanish = runner.invoke(cli, ["replay", g["id"], "--version", "5", "--events", "3", "--lang", "es"], env=env)
    assert spanish.exit_code == 0 and spanish.output.split("\n\n")[0] != out.output.split("\n\n")[0]
    assert "{" not in out.output.split("\n\n")[0] and f"cego {g['id']}  version 5" in out.output

    for bad in (
        ["replay", g["id"], "--as", "nobody"],
        ["replay", g["id"], "--version", str(head + 1)],
        ["replay", "no-such-game"],
        ["export", "no-such-game"],
    ):
        out = runner.invoke(cli, bad, env=env)
        assert out.exit_code != 0 and "Traceback" not in out.output, (bad, out.output)

    target = tmp_path / "game.jsonl"
    out = runner.invoke(cli, ["export", g["id"], "-o", str(target)], env=env)
    assert out.exit_code == 0, out.output
    lines = target.read_bytes().splitlines()
    assert len(lines) == head + 1 and json.loads(lines[0])["game_id"] == g["id"]
    assert [json.loads(x)["version"] for x in lines[1:]] == list(range(1, head + 1))

    for command in (["--help"], ["games", "list", "--help"], ["replay", "--help"], ["export", "--help"]):
        out = runner.invoke(cli, command)
        assert out.exit_code == 0 and "Usage:" in out.output


def test_the_command_line_works_in_the_callers_directory_and_verify_prints_json(service, redis_url, tmp_path):
    from .test_start_command import wrapper_env

    g = service.games.create_game("dalmuti", ["a", "b", "c", "d"], {"hands": 1})
    rng = random.Random(3)
    while not (view := service.reads.state_view(g["id"], Viewer("spectator")))["finished"]:
        seat = rng.choice(view["to_act"])
        service.moves.move(
            g["id"], seat, rng.choice(service.reads.legal_moves(g["id"], Viewer("seat", seat=seat))["moves"])
        )
    env, _ = wrapper_env(tmp_path)
    env["REDIS_URL"] = redis_url
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    name = f"export-{g['id']}.jsonl"
    try:
        r = subprocess.run(
            [str(ROOT / "naipes"), "export", g["id"], "-o", name],
            cwd=elsewhere,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert r.returncode == 0, r.stdout + r.stderr
        assert (elsewhere / name).exists() and not (ROOT / name).exists()
        r = subprocess.run(
            [str(ROOT / "naipes"), "verify", name], cwd=elsewhere, env=env, capture_output=True, text=True, timeout=60
        )
        assert r.returncode == 0, r.stdout + r.stderr
        printed = re.search(r"^verified: outcome (.*)$", r.stdout, re.M)
        assert printed, r.stdout
        header = json.loads((elsewhere / name).read_text().splitlines()[0])
        assert json.loads(printed.group(1)) == header["outcome"] and header["outcome"]
    finally:
        (ROOT / name).unlink(missing_ok=True)  # written there only by a command run from the repository


def test_cli_exports_carry_the_deployments_seal_and_verify_sealed_makes_no_secret(service, redis_url, tmp_path):
    """An export the command line writes is sealed with the key GET /seal-key publishes (the secret start keeps
    in the data folder), not with a secret of the command's own; verify --sealed where no secret is kept says so
    and makes none (a secret made there could never match)."""
    from service.core.house_secret import HouseSecret, ensure_secret_file

    g = service.games.create_game("cego", ["ana", "bea", "carl"], {"rounds": 1})
    data = tmp_path / "data"
    public = HouseSecret(ensure_secret_file(data).encode()).public_key
    env = {"REDIS_URL": redis_url, "NAIPES_DATA": str(data), "NAIPES_SECRET": None}
    runner = CliRunner()
    target = tmp_path / "game.jsonl"
    out = runner.invoke(cli, ["export", g["id"], "-o", str(target)], env=env)
    assert out.exit_code == 0, out.output
    assert json.loads(target.read_bytes().splitlines()[0])["seal_key"] == public
    for check in (["--sealed"], ["--key", public]):
        out = runner.invoke(cli, ["verify", *check, str(target)], env=env)
        assert out.exit_code == 0 and f"sealed by the service whose key is {public}" in out.output, out.output
    elsewhere = tmp_path / "elsewhere"
    out = runner.invoke(cli, ["verify", "--sealed", str(target)], env={**env, "NAIPES_DATA": str(elsewhere)})
    assert out.exit_code == 1 and "no service secret here" in out.output, out.output
    assert not (elsewhere / "secret").exists()


def test_keys_create_says_scope_is_required():
    out = CliRunner().invoke(cli, ["keys", "create", "--name", "shop"])
    assert out.exit_code == 2 and "Traceback" not in out.output
    assert "--scope is required" in out.output and "games, tournaments, review, admin" in out.output, out.output


def test_naipes_test_help_says_what_the_command_runs_before_pytests_options():
    out = subprocess.run(
        [sys.executable, "-m", "service.cli", "test", "--help"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("Usage: naipes test [PYTEST ARGS]...")
    assert "NAIPES_TEST_PROCS" in out.stdout and "pytest's own options follow" in out.stdout
    assert "usage:" in out.stdout.split("pytest's own options follow", 1)[1]  # then pytest's own help
