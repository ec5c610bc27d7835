"""Versions between two events of one append (a trick's last card, then its end) replay like any other.

A replay may stop at any version; some lie inside one append, where the rules never rest.  Between
Dalmuti's last card of a trick and ``TrickEnded``, and Cego's third card and ``TrickTaken``, nobody's
turn is set, and the view said ``to_act: [null]``, which its own schema (a list of seats) refuses.
"""

from __future__ import annotations

import random

import jsonschema
import pytest

from service.core.identity import Viewer

REVIEW = Viewer("integrator", scopes=frozenset({"review"}))
CASES = {
    "dalmuti": (["a", "b", "c", "d"], {"hands": 1}, "TrickEnded"),
    "cego": (["a", "b", "c"], {"rounds": 1}, "TrickTaken"),
}


@pytest.mark.parametrize("game", sorted(CASES))
def test_a_replay_between_a_tricks_last_card_and_its_end_names_no_seat_to_act(client, service, game):
    players, options, ending = CASES[game]
    g = service.games.create_game(game, players, options)
    rng = random.Random(4)
    while not service.reads.state_view(g["id"], Viewer("spectator"))["finished"]:
        seat = rng.choice(service.reads.state_view(g["id"], Viewer("spectator"))["to_act"])
        service.moves.move(
            g["id"], seat, rng.choice(service.reads.legal_moves(g["id"], Viewer("seat", seat=seat))["moves"])
        )
    before = [e["version"] - 1 for e in service.store.read(g["id"], 0) if e["type"] == ending]
    assert before
    schema = client.get(f"/game-types/{game}").get_json()["view_schema"]
    for version in before[:5]:
        r = client.get(f"/games/{g['id']}/replay?version={version}&as=spectator")
        assert r.status_code == 200, r.get_json()
        view = r.get_json()
        assert None not in view["state"]["to_act"] and None not in view["to_act"], (version, view["state"]["to_act"])
        jsonschema.validate(view["state"], schema)
