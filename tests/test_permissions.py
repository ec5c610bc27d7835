"""The permission matrix: every route of a game or a tournament, asked by every kind of caller.

For each caller the expected status is written out here, from the threat
model of docs/security.md, not computed by the service's own decision; for
every 2xx answer the body is checked against what the caller may see:

* a game's view (live or replayed) equals the game's own ``view`` from the
  viewpoint the caller is entitled to (its seat, the spectator's, or the
  reviewer's), folded here from the log;
* the events hold no private part of another seat, and the duplicate deal
  secret only for full sight;
* no seat token, key secret, deal salt not yet revealed or deal seed
  appears in any answer of a caller not entitled to it.

Games of all four types are asked mid-game and at the end, at several
versions; tournaments of every format with their owner, another owner and
the rest.
"""

from __future__ import annotations

import random

import pytest

from domain import registry, wire
from domain.base import REVIEWER, SPECTATOR

from .conftest import bearer
from .helpers import SHORT, create

PLAYERS = {"dalmuti": 4, "cego": 4, "muerte": 6, "onion": 4}
FULL = "full"


@pytest.fixture()
def keys(client, integrator):
    made = {}
    for name, scopes in {
        "games_owner": ["games"],
        "games_other": ["games"],
        "tournaments": ["tournaments"],
        "t_owner": ["tournaments"],
        "t_other": ["tournaments"],
        "review": ["review"],
        "admin": ["admin"],
        "revoked": ["review", "games"],
    }.items():
        r = client.post("/keys", json={"name": name, "scopes": scopes}, headers=integrator)
        assert r.status_code == 201
        made[name] = r.get_json()
    assert client.delete(f"/keys/{made['revoked']['id']}", headers=integrator).status_code == 200
    return made


def callers(keys: dict, seat_token: str, other_seat_token: str) -> dict[str, dict]:
    out = {"anonymous": {}, "seat": bearer(seat_token), "other_game_seat": bearer(other_seat_token)}
    out.update({name: bearer(k["key"]) for name, k in keys.items()})
    return out


# what each caller sees of a game made by the key "games_owner" (seat: seat 0 of the game)
SIGHT = {
    "anonymous": SPECTATOR,
    "seat": 0,
    "other_game_seat": 401,
    "games_owner": FULL,
    "games_other": SPECTATOR,
    "tournaments": SPECTATOR,
    "t_owner": SPECTATOR,
    "t_other": SPECTATOR,
    "review": FULL,
    "admin": FULL,
    "revoked": 401,
}
# the same for a table of the tournament owned by "t_owner"
TABLE_SIGHT = {**SIGHT, "games_owner": SPECTATOR, "t_owner": FULL}


def expected_status(route: str, sight) -> int:
    if sight == 401:
        return 401
    if route in ("audit", "export"):
        return 200 if sight == FULL else 0  # 401/403: checked per caller below
    if route == "legal-moves":
        return 200 if sight == 0 else 403
    if route == "replay-reviewer":
        return 200 if sight == FULL else 403
    if route == "replay-seat1":
        return 200 if sight == FULL else 403
    return 200


def whole_log_refusal(caller: str) -> int:
    """audit and export: who is refused how (no key: 401; a key without the scope or the sight, or a
    seat token of the game, known as one: 403)."""
    return {"anonymous": 401}.get(caller, 403)


def secrets_of(service, game_id: str, version: int) -> dict[str, set[str]]:
    """Strings that must not reach a caller without full sight: the salts of deals still
    hidden at ``version`` and the duplicate deal seed."""
    table = service.tables.fold_from_zero(game_id, version)
    salts = {d["salt"] for d in table["deals"]["open"] + table["deals"]["due"] if d.get("salt")}
    seeds = {table["deal_seed"]} if table.get("deal_seed") else set()
    return {"salts": salts, "seeds": seeds}


def check_events(events: list[dict], sight, caller: str) -> None:
    for env in events:
        private = env.get("private") or {}
        if sight == FULL:
            continue
        assert "setup" not in private, f"{caller} got the table's setup secret"
        allowed = {str(sight)} if isinstance(sight, int) else set()
        assert set(private) <= allowed, f"{caller} got the private part of seats {set(private) - allowed}"


def ask_game(
    client, service, game_id: str, who: dict[str, dict], sights: dict, tokens: list[str], key_secrets: list[str]
) -> int:
    head = service.tables.table(game_id)["version"]
    versions = sorted({1, max(1, head // 2), head})
    module = registry.get(service.tables.table(game_id)["game"])
    asked = 0
    for caller, headers in who.items():
        sight = sights[caller]
        routes = {
            "view": f"/games/{game_id}",
            "legal-moves": f"/games/{game_id}/legal-moves",
            "events": f"/games/{game_id}/events",
            "audit": f"/games/{game_id}/audit",
            "export": f"/games/{game_id}/export",
        }
        for v in versions:
            routes[f"replay@{v}"] = f"/games/{game_id}/replay?version={v}"
        routes["replay-reviewer"] = f"/games/{game_id}/replay?version={head}&as=reviewer"
        routes["replay-seat1"] = f"/games/{game_id}/replay?version={head}&as=seat:1"
        for route, path in routes.items():
            r = client.get(path, headers=headers)
            asked += 1
            want = expected_status(route, sight)
            if want == 0:
                want = whole_log_refusal(caller)
            if route == "legal-moves" and caller == "anonymous":
                want = 401  # a seat's operation without any credential; a key is 403 seat-required
            assert r.status_code == want, (caller, route, r.status_code, r.get_data(as_text=True)[:300])
            if r.status_code >= 300:
                assert r.mimetype == "application/problem+json"
                continue
            text = r.get_data(as_text=True)
            for secret in key_secrets:
                assert secret not in text, f"{caller} got a key's secret from {route}"
            for token in tokens:
                assert token not in text, f"{caller} got a seat token from {route}"
            if route in ("audit", "export"):
                continue
            body = r.get_json()
            at = (
                head
                if route in ("view", "events", "legal-moves", "replay-reviewer", "replay-seat1")
                else int(route.split("@")[1])
            )
            if sight != FULL:
                hidden = secrets_of(service, game_id, at)
                for value in hidden["salts"] | hidden["seeds"]:
                    assert value not in text, f"{caller} got a hidden deal secret from {route}"
            if route == "events":
                check_events(body["events"], sight, caller)
            elif route.startswith("replay") or route == "view":
                viewpoint = {FULL: REVIEWER}.get(sight, sight)
                if route == "replay-reviewer":
                    viewpoint = REVIEWER
                if route == "replay-seat1":
                    viewpoint = 1
                table = service.tables.fold_from_zero(game_id, at)
                shown = wire.encode_view(table["game"], module.view(table["state"], viewpoint))  # cards as codes
                assert body["state"] == shown, (caller, route)
    return asked


def play_some(client, created: dict, rng: random.Random, moves: int) -> None:
    toks = {s["seat"]: s["token"] for s in created["seats"]}
    for _ in range(moves):
        view = client.get(f"/games/{created['id']}", headers=bearer(toks[0])).get_json()
        if view["finished"] or not view["to_act"]:
            return
        seat = rng.choice(view["to_act"])
        legal = client.get(f"/games/{created['id']}/legal-moves", headers=bearer(toks[seat])).get_json()["moves"]
        assert (
            client.post(f"/games/{created['id']}/moves", json=rng.choice(legal), headers=bearer(toks[seat])).status_code
            == 201
        )


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_every_caller_on_every_game_route(client, integrator, service, keys, game):
    rng = random.Random(game)
    owner = bearer(keys["games_owner"]["key"])
    players = [f"p{i}" for i in range(PLAYERS[game])]
    created = create(client, owner, game=game, players=players, options=SHORT[game])
    other = create(client, owner, game=game, players=players, options=SHORT[game])
    tokens = [s["token"] for s in created["seats"]] + [s["token"] for s in other["seats"]]
    key_secrets = [k["key"] for k in keys.values()]
    who = callers(keys, created["seats"][0]["token"], other["seats"][0]["token"])
    # a seat may see its own token; any other token in its answers is a leak
    asked = 0
    for stage_moves in (6, 10_000):  # mid-game, then the end
        play_some(client, created, rng, stage_moves)
        asked += ask_game(client, service, created["id"], who, SIGHT, tokens, key_secrets)
    assert asked > 100


def test_every_caller_on_a_tournament_and_its_tables(client, integrator, service, keys):
    t_owner, t_other = bearer(keys["t_owner"]["key"]), bearer(keys["t_other"]["key"])
    made = {}
    for fmt in ("round_robin", "swiss", "duplicate"):
        body = {
            "game": "dalmuti",
            "options": {"hands": 1},
            "players": [f"q{i}" for i in range(8)],
            "format": fmt,
            "rounds": 1,
            "table_size": {"min": 4, "max": 4},
        }
        r = client.post("/tournaments", json=body, headers=t_owner)
        assert r.status_code == 201, r.get_json()
        made[fmt] = r.get_json()
    mine = client.post("/tournaments", json={**body, "format": "swiss"}, headers=t_other).get_json()
    all_tokens = [s["token"] for t in (*made.values(), mine) for tb in t["round_detail"]["tables"] for s in tb["seats"]]
    key_secrets = [k["key"] for k in keys.values()]
    for fmt, t in made.items():
        tid = t["id"]
        table = t["round_detail"]["tables"][0]
        who = callers(keys, table["seats"][0]["token"], mine["round_detail"]["tables"][0]["seats"][0]["token"])
        for caller, headers in who.items():
            privileged = caller in ("t_owner", "admin")
            refused = 401 if caller in ("revoked", "seat", "other_game_seat") else None
            for path in (
                f"/tournaments/{tid}",
                f"/tournaments/{tid}/standings",
                f"/tournaments/{tid}/rounds/1",
                f"/tournaments/{tid}/events",
            ):
                r = client.get(path, headers=headers)
                assert r.status_code == (refused or 200), (caller, path, r.status_code)
                if r.status_code != 200:
                    continue
                text = r.get_data(as_text=True)
                for secret in key_secrets:
                    assert secret not in text
                own = {s["token"] for tb in t["round_detail"]["tables"] for s in tb["seats"]}
                for token in all_tokens:
                    if token in own and privileged and path.endswith("/rounds/1"):
                        continue
                    assert token not in text, f"{caller} got a seat token from {path}"
                if path.endswith("/events"):
                    shown_private = [e for e in r.get_json()["events"] if e.get("private")]
                    assert bool(shown_private) == privileged or not shown_private, (caller, fmt)
                    if not privileged:
                        assert not shown_private, f"{caller} got the tournament's private parts"
            r = client.post(f"/tournaments/{tid}/withdraw", json={"player": "nobody"}, headers=headers)
            if refused or caller == "anonymous":
                want = 401
            elif caller == "t_owner":
                want = 422  # the owner is let through, and told the player is not registered
            else:
                want = 403  # no tournaments scope, or not the owner
            assert r.status_code == want, (caller, r.status_code, r.get_json())
        if fmt == "duplicate":
            continue  # its tables are embargoed for the public: tests/test_trust.py plays that meeting
        # the table's game: the tournament's owner sees it whole, the other owner does not
        sights = {**TABLE_SIGHT}
        asked = ask_game(
            client,
            service,
            table["game_id"],
            {c: h for c, h in who.items() if c in ("anonymous", "seat", "t_owner", "t_other", "review", "games_owner")},
            sights,
            [x for x in all_tokens if x != table["seats"][0]["token"]],
            key_secrets,
        )
        assert asked > 20
