"""The benchmark's boardgame.io peer runs, and keeps its hands secret; naipes's Node push client plays.

``bench/peer.py`` installs ``bench/peer`` (boardgame.io, pinned by its lock file), starts its server
and drives two tables for two seconds with ``load.js --check``: every state a seat receives is
checked to hold no other seat's hand (nor the random plugin's state the deal follows from).  With
the game's ``playerView`` removed, every state leaks and this test fails.  Skipped, saying why,
where Node.js or npm is missing or the packages cannot be installed.
"""

from __future__ import annotations

import shutil

import pytest

from bench.peer import run_peer


def test_the_peer_plays_and_no_seat_sees_another_seats_hand():
    if not shutil.which("node") or not shutil.which("npm"):
        pytest.skip("Node.js (node, npm) not found on PATH: the boardgame.io peer cannot run")
    result = run_peer(tables=2, seconds=2, check=True)
    if result is None:
        pytest.skip("the boardgame.io peer could not be installed (the line above says why)")
    assert result["tables"] == 2
    assert result["moves"] > 0, result
    assert result["moves_per_s"] > 0 and result["p50_ms"] <= result["p99_ms"], result
    assert result["checked_states"] >= result["moves"], result
    assert result["leaks"] == 0, result
    assert result["stalled"] == 0, result


def test_the_node_push_client_plays_naipes_tables_to_their_end(redis_url):
    """``bench/push/load.js`` (the ``states-node`` loop of bench/move_throughput.py) plays whole games
    through the streams and the POSTs: moves are made and answered, nothing unexpected comes back, and
    every seat leaves with its game (the client exits on its own)."""
    import json
    import subprocess

    from bench.move_throughput import PUSH_JS

    from .conftest import API_KEY
    from .live import start_gunicorn

    node = shutil.which("node")
    if not node:
        pytest.skip("Node.js (node) not found on PATH: the Node push client cannot run")
    proc, base = start_gunicorn(redis_url)
    try:
        done = subprocess.run(
            [node, str(PUSH_JS), "--server", base, "--key", API_KEY, "--tables", "2", "--seconds", "2"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        proc.terminate()
        proc.wait(15)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["moves"] > 0 and result["games"] >= 2, {k: v for k, v in result.items() if k != "latencies_ms"}
    assert result["errors"] == 0 and result["unexpected"] == {}, result
    assert result["latencies_ms"] == sorted(result["latencies_ms"]) and len(result["latencies_ms"]) == result["moves"]


def test_the_bare_push_floor_plays_whole_games_one_request_per_move(redis_url):
    """``bare-push`` (bench/move_throughput.py), the floor the push loops are measured against, plays what
    it claims: every table's games reach their last move, each move one POST by the seat pushed its turn,
    every turn taken once (the log holds as many events as the game has moves)."""
    import redis

    from bench import move_throughput as mt
    from bench.bare_push import MOVES_PER_GAME
    from bench.common import gunicorn

    proc, base = gunicorn("bench.bare:app", redis_url)
    try:
        rate, latencies = mt.drive(mt.bare_push_client, base, 2, 1.5)
    finally:
        proc.terminate()
        proc.wait(15)
    assert rate > 0 and len(latencies) == round(rate * 1.5)
    client = redis.Redis.from_url(redis_url)
    games = [k.decode().split("}")[0].removeprefix("bare:{") for k in client.scan_iter("bare:{p*}:turn")]
    assert len(games) >= 2, games
    for game in games:  # played out after the run's end, as the push loops' tables are
        assert int(client.get(f"bare:{{{game}}}:turn")) == MOVES_PER_GAME, game
        assert client.xlen(f"bare:{{{game}}}:events") == MOVES_PER_GAME, game
