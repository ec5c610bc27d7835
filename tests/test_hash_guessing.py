"""A hash shown beside what a caller may not see must not let the caller check guesses of it.

Every event's ``hash`` covers the whole event.  The hidden part of many events has only a few
possible values (a Dalmuti tax of two cards, the card one ¡Muerte al rey! player offers another,
the cards an Onion player discards and draws, a duplicate table's scores), so before events were
salted a spectator recomputed the hash of each guess against the one shown and read the hidden part
off the match.  Now each such event carries a ``salt`` made with a secret of the service's, shown
only to a caller who sees the whole event: with the true hidden part itself, the envelope as shown
does not give its hash back, while a caller with full sight recomputes every hash.
"""

from __future__ import annotations

import random

from events.envelope import event_hash
from service.core import facts
from service.core.identity import Viewer
from service.core.tournaments import attach_tournaments

from .conftest import bearer
from .test_trust import duplicate_tournament, key_with, play_until_deals_done

SHOWN_ONLY = ("hash", "redacted", "label", "withheld")


def rebuilt(env: dict, **parts) -> str:
    """The hash of an envelope as shown, with ``parts`` put back in."""
    body = {k: v for k, v in env.items() if k not in SHOWN_ONLY} | parts
    return event_hash(env["prev_hash"], body)


def play(service, game: str, players: list[str], options: dict, seed: int, until: set[str]) -> dict:
    g = service.games.create_game(game, players, options)
    rng = random.Random(seed)
    for _ in range(4000):
        table = service.tables.table(g["id"])
        if until <= {e["type"] for e in service.store.read(g["id"], 0)}:
            break
        view = service.reads.state_view(g["id"], Viewer("spectator"), table)
        if view["finished"]:
            break
        seat = rng.choice(view["to_act"])
        service.moves.move(
            g["id"], seat, rng.choice(service.reads.legal_moves(g["id"], Viewer("seat", seat=seat))["moves"])
        )
    return g


GAMES = {
    # seed 004: the Peons' tax, chosen and paid in private
    "dalmuti": (["ana", "bea", "carl", "dani"], {"hands": 2}, {"TaxChosen", "TaxesPaid"}),
    # seed 001: the card offered in an exchange, known to the two players only
    "muerte": (["ana", "bea", "carl", "dani", "eva", "flor"], {}, {"ExchangeOffered", "CardsExchanged"}),
    # seed 002: the cards a player discards and the ones it draws
    "onion": (["ana", "bea", "carl"], {"rounds": 1}, {"Discarded"}),
}


def test_a_redacted_events_hash_matches_no_guess_not_even_the_truth(client, integrator, service):
    for game, (players, options, until) in GAMES.items():
        for seed in range(40):  # a game whose random play reached the events sought (a Muerte game may end first)
            g = play(service, game, players, options, seed=seed, until=until)
            if until <= {e["type"] for e in service.store.read(g["id"], 0)}:
                break
        truth = {e["version"]: e for e in service.store.read(g["id"], 0)}
        spectator = client.get(f"/games/{g['id']}/events?limit=1000").get_json()["events"]
        redacted = [e for e in spectator if e.get("redacted")]
        assert {e["type"] for e in redacted} >= until, (game, {e["type"] for e in redacted})
        for shown in redacted:
            whole = truth[shown["version"]]
            assert "salt" in whole and "salt" not in shown, (game, shown["type"])
            # the hidden part itself, put back, gives another hash: no guess can be checked
            assert rebuilt(shown, private=whole["private"]) != shown["hash"], (game, shown["type"])
            assert rebuilt(shown, private=whole["private"], salt=whole["salt"]) == shown["hash"]

        # a seat sees the salt of the events it sees whole, and checks their hashes itself
        seat = 0
        own = client.get(f"/games/{g['id']}/events?limit=1000", headers=bearer(g["seats"][seat]["token"]))
        for shown in own.get_json()["events"]:
            whole = truth[shown["version"]]
            if shown.get("redacted"):
                assert "salt" not in shown
            elif "private" in whole:
                assert shown["private"] == whole["private"] and shown["salt"] == whole["salt"]
                assert rebuilt(shown) == shown["hash"]

        # full sight (the creating key) gets every salt: every hash is recomputed
        for shown in client.get(f"/games/{g['id']}/events?limit=1000", headers=integrator).get_json()["events"]:
            assert rebuilt(shown) == shown["hash"], (game, shown["type"])


def test_a_withheld_table_result_is_not_shown_at_all(client, integrator, service):
    """Seed-independent: a duplicate round's result is private to the owner while the round is open
    (docs/tournaments.md): the public log stops before it, so no hash of it is shown to guess against,
    and neither the log's length nor its head tells that table A has finished."""
    owner = bearer(key_with(client, integrator, "tournaments")["key"])
    t = duplicate_tournament(client, owner)
    a = t["round_detail"]["tables"][0]
    gid = a["game_id"]
    before = client.get(f"/tournaments/{t['id']}/events").get_json()
    play_until_deals_done(client, service, a, 2, random.Random(5))  # both hands: table A's game is over
    assert facts.finished(service.tables.table(gid, fresh=True))
    attach_tournaments(service).advance(t["id"])  # what the worker's job does: table A's result is written
    whole_log = client.get(f"/tournaments/{t['id']}/events", headers=owner).get_json()
    everything = {e["version"]: e for e in whole_log["events"]}
    assert any(e["type"] == "TableResult" for e in everything.values())
    public = client.get(f"/tournaments/{t['id']}/events").get_json()
    assert public == before, "the public log moved when table A's result was written"
    assert whole_log["version"] > public["version"]
    assert not any(e["type"] == "TableResult" for e in public["events"])
    for shown in public["events"]:  # the owner's log, with its secrets and their salts left out
        whole = everything[shown["version"]]
        assert shown["hash"] == whole["hash"] and "salt" in whole
        if whole.get("private"):
            assert "private" not in shown and "salt" not in shown, shown["type"]
        else:
            assert rebuilt(shown) == shown["hash"], shown["type"]
    for view in ("", "/standings"):
        assert client.get(f"/tournaments/{t['id']}{view}").get_json()["version"] == public["version"]
    for whole in everything.values():
        assert rebuilt(whole) == whole["hash"]
