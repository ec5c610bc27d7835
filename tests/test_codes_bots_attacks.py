"""Careless and hostile clients against cards as codes, bot seats and the stream's ``state`` messages.

Every bad input gets a clear 4xx problem+json that names what is wrong, never a 500, and leaves
the game as it was: its version and its audit chain are checked after each refused request.
"""

from __future__ import annotations

import random
import threading
import time

import orjson
import pytest
import requests

from domain import registry, wire
from domain.base import deal_commitment
from events.envelope import GENESIS, dumps, event_hash, loads

from .conftest import bearer
from .helpers import SHORT, create, play_http, tokens
from .live import live_server  # noqa: F401 - fixture
from .test_card_codes import PLAYERS, _first_card_move
from .test_stream import sse

OTHER_CODES = {"cego": "T21", "dalmuti": "JS", "muerte": "O12", "onion": "10C"}


def _problem(r, status: int | tuple[int, ...] = 422) -> dict:
    statuses = (status,) if isinstance(status, int) else status
    assert r.status_code in statuses, (r.status_code, r.get_data(as_text=True)[:500])
    assert r.headers["Content-Type"].startswith("application/problem+json"), r.headers["Content-Type"]
    body = r.get_json()
    assert body["status"] == r.status_code and body["detail"], body
    return body


def _unchanged(client, integrator, gid, version):
    assert client.get(f"/games/{gid}", headers=integrator).get_json()["version"] == version
    audit = client.get(f"/games/{gid}/audit", headers=integrator).get_json()
    assert audit["chain"]["ok"] is True, audit["chain"]


def _not_a_code(game: str, value) -> bool:
    try:
        wire.notation(game).card(value)
    except (ValueError, TypeError, KeyError):
        return True
    return False


def _lookalike(code: str) -> str:
    """The code with its first character as its fullwidth form (``K`` -> ``Ｋ``, ``1`` -> ``１``)."""
    return chr(ord(code[0]) + 0xFEE0) + code[1:]


def _bad_cards(game: str, code: str) -> dict[str, object]:
    """Values a careless or hostile client writes where ``code`` belongs, each no card of ``game``."""
    bad = {
        "lowercase": code.lower(),
        "leading space": " " + code,
        "trailing space": code + " ",
        "trailing newline": code + "\n",
        "fullwidth look-alike": _lookalike(code),
        "cyrillic look-alike": code.replace("C", "С").replace("O", "О").replace("K", "К").replace("T", "Т"),
        "zero-width joiner": code + "\u200d",
        "integer": 5,
        "float": 1.5,
        "boolean": True,
        "null": None,
        "nested list": [code],
        "doubly nested list": [[code]],
        "object": {"card": code},
        "empty string": "",
        "long string": code * 5000,
    }
    for other, foreign in OTHER_CODES.items():
        if other != game:
            bad[f"a code of {other}"] = foreign
    return {name: value for name, value in bad.items() if _not_a_code(game, value)}


def _card_move_at(client, integrator, game):
    created = create(client, integrator, game, players=[f"p{i}" for i in range(PLAYERS[game])], options=SHORT[game])
    gid, toks = created["id"], tokens(created)
    seat, move = _first_card_move(client, gid, toks, integrator)
    move = {k: v for k, v in move.items() if k != "label"}
    version = client.get(f"/games/{gid}", headers=integrator).get_json()["version"]
    return gid, toks[seat], move, version


@pytest.mark.parametrize("game", sorted(registry.GAME_MODULES))
def test_no_card_field_of_any_game_takes_anything_but_a_code_of_its_game(client, integrator, game):
    gid, tok, move, version = _card_move_at(client, integrator, game)
    paths = wire.move_paths(game, move["type"])
    tried = 0
    for path in paths:
        if path[-1] == "*":  # a list of cards: its first card is replaced
            field = "/".join(path[:-1])
            if not move.get(field):
                continue
            code, where = move[field][0], f"/{field}/0"

            def put(value, field=field):
                return {**move, field: [value, *move[field][1:]]}
        else:
            field = path[0]
            if move.get(field) is None:
                continue
            code, where = move[field], f"/{field}"

            def put(value, field=field):
                return {**move, field: value}

        for name, value in _bad_cards(game, code).items():
            r = client.post(f"/games/{gid}/moves", json=put(value), headers=bearer(tok))
            body = _problem(r, 422)
            assert body["type"].endswith("malformed-move"), (name, body)
            assert body["detail"].startswith(where) or body.get("field") == where, (name, where, body)
            tried += 1
    assert tried >= 10
    _unchanged(client, integrator, gid, version)
    assert client.post(f"/games/{gid}/moves", json=move, headers=bearer(tok)).status_code == 201


@pytest.mark.parametrize("game", ["cego", "dalmuti", "onion"])
def test_a_card_list_of_the_wrong_shape_is_refused_naming_the_field(client, integrator, game):
    gid, tok, move, version = _card_move_at(client, integrator, game)
    field = next(p[0] for p in wire.move_paths(game, move["type"]) if p[-1] == "*" and move.get(p[0]))
    code = move[field][0]
    shapes = {
        "a string for a list": code,
        "an object for a list": {"0": code},
        "five thousand codes": [code] * 5_000,
        "a list of lists": [[c] for c in move[field]],
        "an integer": 7,
    }
    for name, value in shapes.items():
        r = client.post(f"/games/{gid}/moves", json={**move, field: value}, headers=bearer(tok))
        body = _problem(r, (409, 422))
        assert field in body["detail"] or body.get("field", "").startswith(f"/{field}"), (name, body)
    r = client.post(f"/games/{gid}/moves", json={**move, field: [code] * 100_000}, headers=bearer(tok))
    _problem(r, 413)  # a move's body is at most 64 KiB
    _unchanged(client, integrator, gid, version)


def test_a_move_type_that_is_no_string_or_another_games_is_refused(client, integrator):
    gid, tok, move, version = _card_move_at(client, integrator, "cego")
    for kind in (["play"], {"play": 1}, 3, None, "accuse", "PLAY", "play "):
        r = client.post(f"/games/{gid}/moves", json={**move, "type": kind}, headers=bearer(tok))
        _problem(r, (409, 422))
    _unchanged(client, integrator, gid, version)


# ---------------------------------------------------------------- imports


def _played_export(client, integrator, game="dalmuti"):
    """The export of a finished game (its deals revealed), as envelopes."""
    created = create(client, integrator, game, players=[f"p{i}" for i in range(PLAYERS[game])], options=SHORT[game])
    play_http(client, created, random.Random(3))
    lines = client.get(f"/games/{created['id']}/export", headers=integrator).get_data().splitlines()
    return loads(lines[0]), [loads(x) for x in lines[1:]]


def _rechained(header: dict, envs: list[dict], new_id: str) -> bytes:
    header = {**header, "game_id": new_id}
    prev = GENESIS
    for env in envs:
        env["game_id"] = new_id
        env["prev_hash"] = prev
        env["hash"] = event_hash(prev, {k: v for k, v in env.items() if k != "hash"})
        prev = env["hash"]
    header["head_hash"] = prev
    header["version"] = len(envs)
    return b"\n".join([dumps(header), *(dumps(e) for e in envs)])


def _import(client, integrator, body: bytes):
    return client.post("/games/import", data=body, headers={**integrator, "Content-Type": "application/x-ndjson"})


def test_a_coded_log_with_a_hand_written_as_values_does_not_import(client, integrator):
    """A log that says ``cards: codes`` and writes one dealt hand (a private part) as the rules' values."""
    header, envs = _played_export(client, integrator)
    assert envs[0]["data"]["cards"] == wire.CODES
    mixed = [dict(e) for e in envs]
    i = next(i for i, e in enumerate(mixed) if e["type"] == "HandDealt")
    decoded = wire.decode_event("dalmuti", {"type": "HandDealt", "private": mixed[i]["private"]})
    mixed[i] = {**mixed[i], "private": decoded["private"]}
    r = _import(client, integrator, _rechained(header, mixed, "mixed-two"))
    body = _problem(r, 422)
    assert body["type"].endswith("bad-export") and "card code" in dumps(body).decode(), body
    assert client.get("/games/mixed-two", headers=integrator).status_code == 404


def test_a_forged_revealed_deck_with_its_commitment_recomputed_never_verifies(client, integrator):
    header, envs = _played_export(client, integrator)
    i = next(i for i, e in enumerate(envs) if e["type"] == "DealRevealed")
    data = envs[i]["data"]
    deck = list(data["deck"])
    j = next(k for k in range(1, len(deck)) if deck[k] != deck[0])
    deck[0], deck[j] = deck[j], deck[0]
    # the reveal's own commitment made again over the forged deck (the deal's stays as it was)
    envs[i] = {**envs[i], "data": {**data, "deck": deck, "commitment": deal_commitment(deck, data["salt"])}}
    r = _import(client, integrator, _rechained(header, [dict(e) for e in envs], "forged-deck"))
    body = _problem(r, 422)
    assert body["type"].endswith("bad-export") and "commitment" in dumps(body).decode(), body
    # the deck written as the rules' values, its commitment made over them
    values = wire.decode_event("dalmuti", {"type": "DealRevealed", "data": {**data}})["data"]
    envs[i] = {**envs[i], "data": {**values, "commitment": deal_commitment(values["deck"], values["salt"])}}
    r = _import(client, integrator, _rechained(header, [dict(e) for e in envs], "forged-deck2"))
    _problem(r, 422)
    assert client.get("/games/forged-deck", headers=integrator).status_code == 404


def test_a_card_that_is_no_value_of_the_rules_is_named_when_a_log_is_written(client, integrator):
    """wire.encode_event names the field of a card that is no value of the rules: what an import of a
    log of before the notation needs to refuse codes in it (the test below); every stored log of
    before the notation passes it."""
    header, envs = _played_export(client, integrator)
    dealt = next(e for e in envs if e["type"] == "HandDealt")
    with pytest.raises(wire.CardError) as caught:
        wire.encode_event("dalmuti", dealt)  # its cards are codes already: no value of the rules
    assert caught.value.path.startswith("/private/")
    from .test_card_codes import OLD_LOGS

    checked = 0
    for path in OLD_LOGS:
        lines = path.read_bytes().splitlines()
        game = loads(lines[1])["data"]["game"]
        for line in lines[2:]:
            wire.encode_event(game, loads(line))
            checked += 1
    assert checked > 100


def test_a_log_without_the_codes_mark_that_writes_codes_does_not_import(client, integrator):
    header, envs = _played_export(client, integrator)
    for gid, cards in (("uncoded-one", None), ("uncoded-two", "values")):
        old = [dict(e) for e in envs]
        data = {k: v for k, v in old[0]["data"].items() if k != "cards"}
        old[0] = {**old[0], "data": data if cards is None else {**data, "cards": cards}}
        r = _import(client, integrator, _rechained(header, old, gid))
        if r.status_code == 201:  # what it costs: the imported game cannot be shown
            assert client.get(f"/games/{gid}", headers=integrator).status_code == 200
        body = _problem(r, 422)
        assert body["type"].endswith("bad-export"), body


# ---------------------------------------------------------------- bot seats


@pytest.mark.parametrize(
    "bots",
    [
        {"99": "random"},
        {"4": "random"},
        {"15": "random"},
        {"-1": "random"},
        {"01": "random"},
        {"": "random"},
        {"1": "genius"},
        {"1": "Random"},
        {"1": 5},
        {"1": None},
        {"1": ["random"]},
        ["random"],
        "random",
        None,
        {str(i): "random" for i in range(17)},
    ],
    ids=lambda b: str(b)[:30],
)
def test_a_bots_option_that_names_no_seat_or_no_kind_is_refused(client, integrator, bots):
    before = client.get("/games?limit=1", headers=integrator).get_json()
    r = client.post(
        "/games",
        json={"game": "dalmuti", "players": ["a", "b", "c", "d"], "options": {"bots": bots}},
        headers=integrator,
    )
    body = _problem(r, 422)
    assert body["type"].endswith("invalid-options") and "bots" in body["detail"], body
    assert client.get("/games?limit=1", headers=integrator).get_json() == before


def test_ten_thousand_bot_seats_are_refused_by_size_not_by_work(client, integrator):
    bots = {str(i): "search" for i in range(10_000)}
    r = client.post(
        "/games",
        json={"game": "dalmuti", "players": ["a", "b", "c", "d"], "options": {"bots": bots}},
        headers=integrator,
    )
    _problem(r, (413, 422))


def test_a_tournament_naming_bots_wrongly_is_refused(client, integrator):
    base = {
        "game": "dalmuti",
        "format": "round_robin",
        "players": ["a", "b", "c", "d"],
        "table_size": {"min": 4, "max": 4},
    }
    for bots in ({"zed": "random"}, {"a": "genius"}, {"a": ["random"]}, ["a"], {"": "random"}):
        r = client.post("/tournaments", json={**base, "bots": bots}, headers=integrator)
        _problem(r, 422)


def test_a_person_cannot_move_for_a_seat_a_bot_plays(client, integrator):
    """No worker runs here: the bot's turn waits in the queue, and its seat's token tries to take it."""
    created = create(
        client,
        integrator,
        "dalmuti",
        players=["a", "b", "c", "d"],
        options={"hands": 1, "bots": {str(s): "random" for s in range(4)}},
    )
    gid, toks = created["id"], tokens(created)
    view = client.get(f"/games/{gid}", headers=integrator).get_json()
    seat = view["to_act"][0]
    listed = client.get(f"/games/{gid}/legal-moves", headers=bearer(toks[seat])).get_json()["moves"]
    assert listed == [], "a bot's seat is offered no move: the service plays it"
    move = {"type": "decline_revolution"}  # a move the seat could make, were it a person's
    r = client.post(f"/games/{gid}/moves", json=move, headers=bearer(toks[seat]))
    body = _problem(r, 403)
    assert body["bot"] == "random" and f"seat {seat}" in body["detail"]
    _unchanged(client, integrator, gid, view["version"])


def test_a_person_beside_a_bot_still_moves_for_their_own_seat(client, integrator):
    created = create(
        client, integrator, "dalmuti", players=["a", "b", "c", "d"], options={"hands": 1, "bots": {"1": "random"}}
    )
    gid, toks = created["id"], tokens(created)
    view = client.get(f"/games/{gid}", headers=integrator).get_json()
    seat = next(s for s in view["to_act"] if s != 1)
    moves = client.get(f"/games/{gid}/legal-moves", headers=bearer(toks[seat])).get_json()["moves"]
    assert client.post(f"/games/{gid}/moves", json=moves[0], headers=bearer(toks[seat])).status_code == 201


# ---------------------------------------------------------------- the stream's state messages


def _read(resp, seconds: float, limit: int = 100_000) -> list[tuple[str, object]]:
    """What a stream sends in ``seconds`` (at most ``limit`` items): ("comment", text) and
    (event type, {"id", **data})."""
    out: list[tuple[str, object]] = []
    end = time.monotonic() + seconds
    try:
        for kind, msg in sse(resp, timeout=seconds + 30):
            if kind == "comment":
                out.append(("comment", msg))
            else:
                out.append((msg["event"], {"id": int(msg["id"]), **orjson.loads(msg["data"])}))
            if time.monotonic() > end or len(out) >= limit:
                break
    except requests.exceptions.ConnectionError:
        pass
    return out


@pytest.mark.parametrize("view", ["", "EVERY", "every ", "all", "first,every", "\u0435very", "x" * 600])
def test_a_view_that_is_no_mode_is_refused_before_the_stream_opens(live_server, integrator, view):
    g = create_http(live_server.url, integrator)
    r = requests.get(f"{live_server.url}/games/{g['id']}/stream", params={"view": view}, stream=True, timeout=10)
    assert r.status_code == 422 and r.headers["Content-Type"].startswith("application/problem+json"), r.text
    assert "view" in r.text


def create_http(base: str, integrator: dict, options: dict | None = None) -> dict:
    r = requests.post(
        f"{base}/games",
        headers=integrator,
        json={"game": "dalmuti", "players": ["ana", "bea", "carl", "dani"], "options": options or {"hands": 1}},
    )
    assert r.status_code == 201, r.text
    return r.json()


def test_view_every_neither_skips_nor_repeats_an_event_and_each_state_follows_its_batch(live_server, integrator):
    base = live_server.url
    g = create_http(base, integrator)
    gid, toks = g["id"], tokens(g)
    got: dict[str, list] = {}

    def follow(name, headers):
        with requests.get(f"{base}/games/{gid}/stream?view=every", headers=headers, stream=True, timeout=60) as r:
            got[name] = _read(r, 240)  # the stream ends with the game

    followers = [
        threading.Thread(target=follow, args=(name, h))
        for name, h in (("spectator", {}), ("seat0", bearer(toks[0])), ("key", integrator))
    ]
    for t in followers:
        t.start()
    time.sleep(0.3)
    rng = random.Random(5)
    for _ in range(400):
        view = requests.get(f"{base}/games/{gid}").json()
        if view["finished"]:
            break
        seat = rng.choice(view["to_act"])
        moves = requests.get(f"{base}/games/{gid}/legal-moves", headers=bearer(toks[seat])).json()["moves"]
        requests.post(f"{base}/games/{gid}/moves", json=rng.choice(moves), headers=bearer(toks[seat]))
    for t in followers:
        t.join(250)
    for name, headers in (("spectator", {}), ("seat0", bearer(toks[0])), ("key", integrator)):
        items = [(k, m) for k, m in got[name] if k != "comment"]
        assert items and items[0][0] == "state", name
        first = items[0][1]["version"]
        events = [m for k, m in items if k != "state"]
        listed = requests.get(f"{base}/games/{gid}/events?after={first}&limit=1000", headers=headers).json()["events"]
        assert [e["id"] for e in events] == [e["version"] for e in listed], f"{name}: skipped or repeated events"
        assert [e["hash"] for e in events] == [e["hash"] for e in listed]
        last = first
        for kind, msg in items:
            if kind == "state":
                assert msg["id"] == msg["version"] == last, f"{name}: a state that is not the last event's"
                mine = msg["view"]
                assert mine["viewer"]["kind"] == {"spectator": "spectator", "seat0": "seat", "key": "integrator"}[name]
                if name == "spectator":
                    assert msg["legal_moves"] is None and mine["viewer"]["seat"] is None
                    assert not {"hand", "hands", "transfers_all", "tax_chosen"} & set(mine["state"]), mine["state"]
                if name == "seat0":
                    assert mine["state"]["seat"] == 0 and "hand" in mine["state"]
                    assert not {"hands", "transfers_all", "tax_chosen"} & set(mine["state"]), mine["state"]
            else:
                last = msg["id"]


def test_a_stream_held_at_an_embargo_shows_nothing_past_it_and_does_not_spin(live_server, client, integrator, service):
    from .test_trust import duplicate_tournament, play_until_deals_done

    t = duplicate_tournament(client, integrator)
    a, _b = t["round_detail"]["tables"]
    play_until_deals_done(client, service, a, 1, random.Random(1))
    gid = a["game_id"]
    horizon = service.tables.table(gid)["deals"]["starts"][0] - 1
    head = service.tables.table(gid)["version"]
    assert head > horizon + 5
    for mode in ("every", "first"):
        with requests.get(f"{live_server.url}/games/{gid}/stream?view={mode}", stream=True, timeout=30) as r:
            items = _read(r, 2.0, limit=5000)
        kinds = [k for k, _ in items]
        assert kinds[1] == "state", kinds[:5]
        state = items[1][1]
        assert state["version"] == state["id"] == horizon and state["view"]["embargo"]["version"] == horizon
        assert state["view"]["version"] == horizon and state["legal_moves"] is None
        assert not {"hand", "hands"} & set(state["view"]["state"])
        assert all(m["id"] <= horizon for k, m in items if k not in ("comment",)), "an event past the horizon"
        # the heartbeat comes every 0.5 s here: a held stream waits, it does not read the log in a loop
        assert kinds.count("comment") <= 12, f"{kinds.count('comment')} comments in 2 s ({mode})"
    # a seat of the table sees its table live, the revealed deck withheld, its own hand only
    seat_tok = a["seats"][0]["token"]
    with requests.get(
        f"{live_server.url}/games/{gid}/stream?view=every&after=0", headers=bearer(seat_tok), stream=True, timeout=30
    ) as r:
        items = _read(r, 2.0, limit=head + 2)
    # resumed (after=0): the events it owed first, then the state (its id is its version)
    kinds = [k for k, _ in items if k != "comment"]
    assert kinds.index("state") == head, kinds[:5]
    state = next(m for k, m in items if k == "state")
    assert state["version"] == head and state["view"]["embargo"] is None
    assert "hands" not in state["view"]["state"] and state["view"]["state"]["seat"] == 0
    reveals = [m for k, m in items if k == "DealRevealed"]
    assert reveals and all("deck" not in m["data"] for m in reveals)


def test_one_client_cannot_open_streams_without_bound(live_server, integrator, monkeypatch):
    from service.web import live

    monkeypatch.setattr(live, "_streams", live.StreamSlots(50, 3, 3))
    g = create_http(live_server.url, integrator)
    url = f"{live_server.url}/games/{g['id']}/stream?view=every"
    opened = [requests.get(url, stream=True, timeout=10) for _ in range(3)]
    try:
        assert all(r.status_code == 200 for r in opened)
        r = requests.get(url, stream=True, timeout=10)
        assert r.status_code == 429 and r.headers["Content-Type"].startswith("application/problem+json")
        assert r.headers["Retry-After"]
    finally:
        for r in opened:
            r.close()


def test_two_hundred_tables_of_bots_do_not_hold_up_another_games_deadline(redis_url, client, integrator):
    """200 tables of bots created in a loop queue 800 bot turns at once.  The workers read the timers'
    queue first, so a person's deadline at another table still fires on time; the bots' games only
    share what is left of the workers."""
    from .test_timers import kill_group, start_worker, timeouts, wait_for

    bots = {str(s): "heuristic" for s in range(4)}
    t0 = time.monotonic()
    games = [
        create(client, integrator, "dalmuti", players=[f"b{i}" for i in range(4)], options={"hands": 1, "bots": bots})[
            "id"
        ]
        for _ in range(200)
    ]
    created_in = time.monotonic() - t0
    proc = start_worker(redis_url)
    try:
        person = create(client, integrator, options={"turn_seconds": 1.0, "hands": 1})
        view = client.get(f"/games/{person['id']}").get_json()
        found = wait_for(lambda: timeouts(client, integrator, person["id"])[0], timeout=8)
        assert found, "the person's deadline never fired behind the bots' turns"
        first = found[0]
        late = _epoch(first["time"]) - _epoch(view["deadlines"][str(first["data"]["seat"])])
        # alone on the machine it fires 0.6 s late; under a shared 2-core test run up to 3.5 s: a worker
        # ends the bot turn it holds first.  Behind the 800 bot turns in order it would be far later.
        assert late <= 5.0, f"the deadline fired {late:.2f} s late behind 800 bot turns"
        moved = sum(client.get(f"/games/{g}").get_json()["version"] > 3 for g in games)
        print(f"200 bot tables created in {created_in:.1f} s; deadline {late:.2f} s late; {moved} tables moved")
    finally:
        kill_group(proc)
        for gid in games:  # frozen: their clocks stop and their queued turns do nothing
            client.post(f"/games/{gid}/freeze", json={"reason": "test over"}, headers=integrator)


def _epoch(iso: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


@pytest.mark.parametrize("game", ["cego", "muerte", "onion"])  # a Dalmuti hand rarely has a move with such a field
def test_a_card_code_in_a_field_that_holds_no_card_is_refused(client, integrator, game):
    created = create(client, integrator, game, players=[f"p{i}" for i in range(PLAYERS[game])], options=SHORT[game])
    gid, toks = created["id"], tokens(created)
    rng = random.Random(11)
    code = OTHER_CODES[game]
    tried = 0
    for _ in range(60):
        view = client.get(f"/games/{gid}", headers=integrator).get_json()
        if view["finished"]:
            break
        seat = rng.choice(view["to_act"])
        moves = client.get(f"/games/{gid}/legal-moves", headers=bearer(toks[seat])).get_json()["moves"]
        for move in moves[:5]:
            cards = {p[0] for p in wire.move_paths(game, move["type"])}
            for field in set(move) - {"type", "label"} - cards:
                r = client.post(f"/games/{gid}/moves", json={**move, field: code}, headers=bearer(toks[seat]))
                body = _problem(r, 422)
                assert f"/{field}" in body["detail"], body
                tried += 1
        assert client.get(f"/games/{gid}", headers=integrator).get_json()["version"] == view["version"]
        assert client.post(f"/games/{gid}/moves", json=rng.choice(moves), headers=bearer(toks[seat])).status_code == 201
    assert tried > 0
    _unchanged(client, integrator, gid, client.get(f"/games/{gid}", headers=integrator).get_json()["version"])
