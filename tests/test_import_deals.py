"""An import brings a running game's deals still to be revealed: their decks must be the ones committed.

A deal's deck and salt are in the log from the deal on (its private part ``deal``, which no seat sees), but
``verify_export`` checks them only against a reveal.  A log of a running game is refused when the secret
of a deal not revealed yet does not match its commitment, or gave a seat a card not in it: imported, the
game would play on with those cards, and this service's own ``DealRevealed`` (appended at the end of the
hand, or at once by the import when the log withheld a reveal it owed) would tell a deck that is not the
one committed, so that the game's own export would no longer verify."""

from __future__ import annotations

import random

from domain import table as tables
from events.envelope import loads
from service.core.verify import verify_export

from .conftest import bearer
from .helpers import create, tokens
from .test_import_authority import NDJSON, _export, _problem, _reseal


def _played_past_first_reveal(client, integrator) -> tuple[str, dict, list[dict]]:
    """A running timed cego game played until its first deal is revealed, and its export."""
    g = create(
        client, integrator, game="cego", players=["ana", "bea", "carl"], options={"rounds": 2, "turn_seconds": 60}
    )
    toks, rng = tokens(g), random.Random(11)
    for _ in range(500):
        header, envs = _export(client, integrator, g["id"])
        if any(e["type"] == tables.DEAL_REVEALED for e in envs):
            return g["id"], header, envs
        view = client.get(f"/games/{g['id']}", headers=bearer(toks[0])).get_json()
        seat = view["to_act"][0]
        move = rng.choice(client.get(f"/games/{g['id']}/legal-moves", headers=bearer(toks[seat])).get_json()["moves"])
        r = client.post(f"/games/{g['id']}/moves", json=move, headers=bearer(toks[seat]))
        assert r.status_code == 201, r.get_json()
    raise AssertionError("no deal was revealed")


def _with_deal_secret(env: dict, **changes) -> dict:
    private = dict(env["private"])
    private["deal"] = {**private["deal"], **changes}
    return {**env, "private": private}


def test_a_running_game_whose_open_deal_is_not_the_deck_committed_is_refused(client, service, integrator):
    _gid, header, envs = _played_past_first_reveal(client, integrator)
    # the deal in play (the second round's): its salt changed, so its deck no longer opens its commitment
    last_deal = max(i for i, e in enumerate(envs) if e["type"] != tables.DEAL_REVEALED and e["data"].get("commitment"))
    forged = list(envs)
    forged[last_deal] = _with_deal_secret(envs[last_deal], salt="0" * 32)
    r = client.post("/games/import", data=_reseal(header, forged, "forged-open-deal"), headers={**integrator, **NDJSON})
    body = _problem(r, 422, "bad-export")
    assert "commitment" in body["detail"], body
    assert not service.store.exists("forged-open-deal")


def test_a_withheld_reveal_of_a_deck_not_committed_is_refused(client, service, integrator):
    _gid, header, envs = _played_past_first_reveal(client, integrator)
    at = next(i for i, e in enumerate(envs) if e["type"] == tables.DEAL_REVEALED)
    dealt = envs[at]["data"]["deal_version"] - 1
    deck = list(envs[dealt]["private"]["deal"]["deck"])
    other = next(i for i, card in enumerate(deck) if card != deck[0])
    deck[0], deck[other] = deck[other], deck[0]
    # the reveal left out (a running game's log is not asked for it), the deal's deck reordered
    forged = [_with_deal_secret(e, deck=deck) if i == dealt else e for i, e in enumerate(envs) if i != at]
    r = client.post("/games/import", data=_reseal(header, forged, "forged-withheld"), headers={**integrator, **NDJSON})
    _problem(r, 422, "bad-export")
    assert not service.store.exists("forged-withheld")


def test_a_seat_dealt_a_card_outside_the_committed_deck_is_refused(client, service, integrator):
    _gid, header, envs = _played_past_first_reveal(client, integrator)
    last_deal = max(i for i, e in enumerate(envs) if e["type"] != tables.DEAL_REVEALED and e["data"].get("commitment"))
    env = envs[last_deal]
    # seat 0 holds a card of seat 1's hand as well: two of a card the committed deck holds once
    hand = [env["private"]["1"]["hand"][0], *env["private"]["0"]["hand"][1:]]
    forged = list(envs)
    forged[last_deal] = {**env, "private": {**env["private"], "0": {**env["private"]["0"], "hand": hand}}}
    r = client.post("/games/import", data=_reseal(header, forged, "forged-hand"), headers={**integrator, **NDJSON})
    _problem(r, 422, "bad-export")
    assert not service.store.exists("forged-hand")


def test_a_withheld_reveal_of_the_committed_deck_still_imports_and_verifies(client, integrator):
    _gid, header, envs = _played_past_first_reveal(client, integrator)
    at = next(i for i, e in enumerate(envs) if e["type"] == tables.DEAL_REVEALED)
    forged = [e for i, e in enumerate(envs) if i != at]
    r = client.post("/games/import", data=_reseal(header, forged, "withheld-ok"), headers={**integrator, **NDJSON})
    assert r.status_code == 201, r.get_json()
    lines = client.get("/games/withheld-ok/export", headers=integrator).data.splitlines()
    report = verify_export([loads(x) for x in lines])
    assert report["ok"], report["problems"]
