"""Games a client can show a person: each game describes itself (GET /game-types/{game}), and moves
and events come with words in English or Spanish (Accept-Language), made by each game's own
notation module (domain/<game>/notation.py).

Played over HTTP for every game type: every legal move carries a label and validates against its
type's schema in the game's description, a move posted back with its label is accepted, every
event of the log carries a label in both languages, and an event's label is the same for a
spectator as for the reviewer (it is made from the public part, so it reveals no card)."""

from __future__ import annotations

import random
import re

import jsonschema
import pytest

from domain import registry
from domain import table as tables

from .conftest import bearer

PLAYERS = {"cego": 4, "dalmuti": 5, "muerte": 6, "onion": 4}
OPTIONS = {"cego": {"rounds": 1}, "dalmuti": {"hands": 1}, "muerte": {}, "onion": {"rounds": 1}}
LEAKS = re.compile(r"[{}\[\]]|None|'")


def _create(client, integrator, game: str) -> dict:
    body = {"game": game, "players": [f"p{i}" for i in range(PLAYERS[game])], "options": OPTIONS[game]}
    r = client.post("/games", json=body, headers=integrator)
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def test_every_registered_game_has_its_notation():
    """The words of a game come from its own notation module; the battery checks them in every match."""
    from domain import describe

    assert set(describe.NOTATIONS) == set(registry.GAME_MODULES)


@pytest.mark.parametrize("game", sorted(registry.GAME_MODULES))
def test_a_game_describes_its_cards_phases_roles_and_moves(client, game):
    r = client.get(f"/game-types/{game}")
    assert r.status_code == 200
    d = r.get_json()
    assert d["id"] == game and d["languages"] == ["en", "es"]
    pattern = re.compile(d["card_pattern"])
    codes = [c["code"] for c in d["deck"]]
    assert codes and len(codes) == len(set(codes))
    for c in d["deck"]:
        assert pattern.fullmatch(c["code"]), c
        assert c["name"]["en"] and c["name"]["es"]
    assert all(p["name"]["en"] and p["name"]["es"] for p in d["phases"])
    for m in d["moves"]:
        jsonschema.Draft202012Validator.check_schema(m["schema"])
        assert m["schema"]["properties"]["type"] == {"const": m["type"]} or m["type"] in str(m["schema"])
    assert set(tables.TABLE_EVENTS) <= set(d["events"])


def test_an_unknown_game_type_is_a_404_problem(client):
    r = client.get("/game-types/poker")
    assert r.status_code == 404 and r.mimetype == "application/problem+json"
    assert r.get_json()["type"].endswith("game-type-not-found") and "dalmuti" in r.get_json()["detail"]


@pytest.mark.parametrize("game", sorted(registry.GAME_MODULES))
def test_moves_and_events_come_in_words_in_both_languages(client, integrator, game, caplog):
    caplog.set_level("ERROR", logger="naipes.words")
    description = client.get(f"/game-types/{game}").get_json()
    schemas = {m["type"]: jsonschema.Draft202012Validator(m["schema"]) for m in description["moves"]}
    created = _create(client, integrator, game)
    gid, tokens = created["id"], {s["seat"]: s["token"] for s in created["seats"]}
    rng = random.Random(f"legible-{game}")
    for _ in range(400):
        view = client.get(f"/games/{gid}").get_json()
        if view["finished"] or not view["to_act"]:
            break
        seat = rng.choice(view["to_act"])
        lang = rng.choice(["en", "es"])
        r = client.get(f"/games/{gid}/legal-moves", headers={**bearer(tokens[seat]), "Accept-Language": lang})
        assert r.headers["Content-Language"] == lang and "Accept-Language" in r.headers["Vary"]
        moves = r.get_json()["moves"]
        for m in moves:
            assert m["label"] and not LEAKS.search(m["label"]), m
            bare = {k: v for k, v in m.items() if k != "label"}
            errors = list(schemas[m["type"]].iter_errors(bare))
            assert not errors, (m, errors[0].message)
        move = rng.choice(moves)  # posted back whole, with its label
        r = client.post(f"/games/{gid}/moves", json=move, headers={**bearer(tokens[seat]), "Accept-Language": lang})
        assert r.status_code == 201, r.get_json()
        assert all(e["label"] for e in r.get_json()["events"])
    for lang in ("en", "es"):
        r = client.get(f"/games/{gid}/events?limit=1000", headers={**integrator, "Accept-Language": lang})
        reviewed = r.get_json()["events"]
        seen = client.get(f"/games/{gid}/events?limit=1000", headers={"Accept-Language": lang}).get_json()["events"]
        assert len(reviewed) > 5
        for full, public in zip(reviewed, seen):
            assert full["label"] and not LEAKS.search(full["label"]), full
            assert full["label"] == public["label"], (full["type"], full["label"], public["label"])
    english = client.get(f"/games/{gid}/events?limit=1000").get_json()["events"]
    spanish = client.get(f"/games/{gid}/events?limit=1000", headers={"Accept-Language": "es"}).get_json()["events"]
    assert any(a["label"] != b["label"] for a, b in zip(english, spanish))
    assert all(e["label"] != e["type"] for e in english)
    # no label fell back to the bare type because a game could not put a move or an event in words
    assert not [r.getMessage() for r in caplog.records if r.name == "naipes.words"]


def test_the_label_is_outside_the_hash(client, integrator):
    """A served event with its label still verifies once the fields outside the hash are set aside."""
    from events.envelope import event_hash

    created = _create(client, integrator, "dalmuti")
    events = client.get(f"/games/{created['id']}/events", headers=integrator).get_json()["events"]
    for env in events:
        body = {k: v for k, v in env.items() if k not in ("hash", "label", "redacted")}
        assert event_hash(env["prev_hash"], body) == env["hash"]


def test_the_games_join_names_and_name_seats_alike():
    """One piece (domain/phrases.py) joins names and names seats for every game's words."""
    from domain.phrases import check_language, join, seat_name

    assert join(["ana", "bea", "carl"], "en") == "ana, bea and carl"
    assert join(["ana", "bea", "carl"], "es") == "ana, bea y carl"
    assert join(["bea", "inés"], "es") == "bea e inés" and join(["bea", "hielo"], "es") == "bea y hielo"
    assert join([], "en", none="nobody") == "nobody" and join(["ana"], "es") == "ana"
    assert seat_name(["ana"], 0, "es") == "ana" and seat_name(["ana"], 3, "es") == "el asiento 3"
    with pytest.raises(ValueError, match="'en' or 'es'"):
        check_language("fr")


@pytest.mark.parametrize(
    "header", ["", "fr", "*", "es;q=abc", "es;q=0, en;q=0", "x" * 4000, "es-ES,es;q=0.9", ";;;,,,q=", "\u00e9s"]
)
def test_any_accept_language_gets_labels_in_a_language_of_the_games(client, integrator, header):
    """An Accept-Language the service does not speak, or cannot parse, gets English; a Spanish one, Spanish."""
    gid = _create(client, integrator, "dalmuti")["id"]
    r = client.get(f"/games/{gid}/events", headers={"Accept-Language": header})
    assert r.status_code == 200 and r.headers["Content-Language"] == ("es" if header.startswith("es-ES") else "en")
    assert all(e["label"] for e in r.get_json()["events"])
