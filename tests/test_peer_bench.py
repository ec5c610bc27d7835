"""The benchmark's boardgame.io peer runs, and keeps its hands secret.

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
