"""A small run of bench/load_faults.py: timed games over gunicorn while a
gunicorn worker, an RQ worker and Redis are killed; nothing acknowledged is
lost or doubled, every chain verifies, every deadline is enforced."""

from __future__ import annotations

from bench.load_faults import run


def test_games_survive_killed_workers_and_a_redis_restart():
    figures = run(
        games=20,
        seconds=24,
        web=2,
        rq=2,
        turn=1.5,
        stall=0.05,
        fault_every=5.0,
        tolerance=6.0,
        faults=["web", "rq", "redis"],
        quiet=True,
    )
    assert figures["faults"]["web"] >= 1 and figures["faults"]["rq"] >= 1 and figures["faults"]["redis"] >= 1
    assert figures["games"] == 20 and figures["stuck"] == 0, figures
    assert figures["finished"] + figures["resumable"] == 20, figures
    assert figures["moves"] > 100 and figures["deadlines_enforced"] > 0, figures
    assert figures["chain_broken"] == 0, figures
    assert figures["moves_lost"] == 0, figures
    assert figures["duplicates"] == 0, figures
    assert figures["deadlines_missed"] == 0, figures
    assert figures["moves_after_deadline"] == 0, figures  # a late move is refused, its seat timed out
    assert figures["ends_untold"] == 0, figures  # an end its process did not tell stays marked for the workers
