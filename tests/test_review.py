"""Dispute review: verifiable deals, tamper evidence, export and import,
per-viewer replays, adjudication, scopes, revocation and rate limits."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest
import redis
from click.testing import CliRunner

from domain import registry
from domain.base import deal_commitment
from events.embedded import EmbeddedRedis
from events.envelope import dumps, loads
from events.store import key
from service.cli import main as cli
from service.core.keys import KEYS
from service.core.naipes import Naipes
from service.web.app import create_app

from .conftest import API_KEY, ROOT, bearer
from .helpers import create, fresh_window, play_http, tokens

SHORT = {"dalmuti": {"hands": 2}, "cego": {"rounds": 2}, "muerte": {"games": 2}, "onion": {"rounds": 2}}
PLAYERS = {"dalmuti": 4, "cego": 4, "muerte": 6, "onion": 3}


def finished_game(client, integrator, game="dalmuti", seed=1, **options) -> dict:
    created = create(
        client,
        integrator,
        game=game,
        players=[f"p{i}" for i in range(PLAYERS[game])],
        options={**SHORT[game], **options},
    )
    play_http(client, created, random.Random(seed))
    return created


def export(client, integrator, gid) -> bytes:
    r = client.get(f"/games/{gid}/export", headers=integrator)
    assert r.status_code == 200 and r.mimetype == "application/x-ndjson"
    return r.get_data()


# ------------------------------------------------------------------ commitments


@pytest.mark.parametrize("game", list(registry.GAME_MODULES))
def test_every_deal_is_committed_before_play_and_revealed_when_its_hand_is_over(client, integrator, game):
    """Issue: at each shuffle the public deal event carries SHA-256 over the deck and a salt; when the
    hand is over an event reveals both, so anyone can check the cards dealt were the ones committed."""
    created = finished_game(client, integrator, game)
    gid = created["id"]
    spectator_log = client.get(f"/games/{gid}/events").get_json()["events"]
    deals = {e["version"]: e for e in spectator_log if "commitment" in e["data"] and e["type"] != "DealRevealed"}
    reveals = [e for e in spectator_log if e["type"] == "DealRevealed"]
    assert len(deals) >= 2 and sorted(r["data"]["deal_version"] for r in reveals) == sorted(deals)
    module = registry.get(created["game"] if "game" in created else game)
    for r in reveals:
        d, dealt = r["data"], deals[r["data"]["deal_version"]]
        assert d["commitment"] == dealt["data"]["commitment"] == deal_commitment(d["deck"], d["salt"])
        # revealed in the same append as the event that ended its hand, and only then
        ended = [
            e
            for e in spectator_log
            if dealt["version"] < e["version"] < r["version"] and e["type"] in module.HAND_OVER_EVENTS
        ]
        assert ended and ended[0]["time"] == r["time"]
        # before the reveal, nobody but the integrator held the salt
        before = client.get(f"/games/{gid}/replay?version={r['version'] - 1}").get_data(as_text=True)
        assert d["salt"] not in before
        assert d["salt"] not in json.dumps([e for e in spectator_log if e["version"] < r["version"]])
    # the seats' dealt cards are cards of the committed deck
    full = client.get(f"/games/{gid}/audit", headers=integrator).get_json()["events"]
    first = next(e for e in full if e["version"] == min(deals))
    dealt_cards = sorted(json.dumps(c) for k, p in first["private"].items() if k.isdigit() for c in _flat(p["hand"]))
    deck = sorted(json.dumps(c) for c in _flat(first["private"]["deal"]["deck"]))
    assert set(dealt_cards) <= set(deck)


def _flat(value):
    if isinstance(value, dict):
        return [c for k in sorted(value) for c in _flat(value[k])]
    if isinstance(value, list):
        return [c for v in value for c in _flat(v)]
    return [value]


# ------------------------------------------------------------------ tampering


def _rewrite(redis_client, gid: str, change) -> None:
    """What someone with write access to Redis could do: rewrite the stream."""
    stream = key(gid, "events")
    rows = [loads(f[b"e"]) for _id, f in redis_client.xrange(stream)]
    rows = change(rows)
    pipe = redis_client.pipeline()
    pipe.delete(stream)
    for i, env in enumerate(rows, start=1):
        pipe.xadd(stream, {"e": dumps(env)}, id=f"{i}-0")
    pipe.execute()


def _verify(tmp_path, data: bytes) -> tuple[int, str]:
    path = tmp_path / "game.jsonl"
    path.write_bytes(data)
    result = CliRunner().invoke(cli, ["verify", str(path)])
    return result.exit_code, result.output


TAMPERINGS = {
    "data": lambda rows: [dict(r, data={**r["data"], "forged": True}) if r["version"] == 7 else r for r in rows],
    "order": lambda rows: rows[:6] + [rows[7], rows[6]] + rows[8:],
    "deleted": lambda rows: rows[:6] + rows[7:],
}


@pytest.mark.parametrize("how", list(TAMPERINGS))
def test_tampering_is_named_at_its_first_broken_link_by_audit_and_verify(
    client, integrator, redis_client, tmp_path, how
):
    created = finished_game(client, integrator)
    gid = created["id"]
    clean = export(client, integrator, gid)
    code, out = _verify(tmp_path, clean)
    assert code == 0 and "verified" in out, out
    _rewrite(redis_client, gid, TAMPERINGS[how])
    audit = client.get(f"/games/{gid}/audit", headers=integrator).get_json()
    assert not audit["chain"]["ok"] and audit["chain"]["broken_at"] == 7, audit["chain"]
    code, out = _verify(tmp_path, export(client, integrator, gid))
    assert code == 1 and "chain broken at version 7" in out, out


def test_a_removed_last_event_is_caught(client, integrator, redis_client, tmp_path):
    gid = finished_game(client, integrator)["id"]
    _rewrite(redis_client, gid, lambda rows: rows[:-1])
    audit = client.get(f"/games/{gid}/audit", headers=integrator).get_json()
    assert not audit["chain"]["ok"] and "removed from the end" in audit["chain"]["reason"]
    code, out = _verify(tmp_path, export(client, integrator, gid))
    assert code == 1 and "removed from the end" in out


def test_a_forged_deck_with_a_rebuilt_chain_fails_the_commitment(client, integrator, tmp_path):
    """Rebuilding every hash hides an edit from the chain, not from the commitment made before play."""
    from events.envelope import GENESIS, event_hash

    gid = finished_game(client, integrator)["id"]
    lines = export(client, integrator, gid).splitlines()
    envs = [loads(x) for x in lines[1:]]
    reveal = next(e for e in envs if e["type"] == "DealRevealed")
    deck = reveal["data"]["deck"]
    original = list(deck)
    # the first card swapped with one of another face (a deck holds many alike: two alike swapped change nothing)
    other = next(i for i, card in enumerate(deck) if card != deck[0])
    deck[0], deck[other] = deck[other], deck[0]
    assert deck != original
    prev = GENESIS
    for e in envs:
        e["prev_hash"] = prev
        e["hash"] = event_hash(prev, {k: v for k, v in e.items() if k != "hash"})
        prev = e["hash"]
    header = loads(lines[0])
    header["head_hash"] = prev
    code, out = _verify(tmp_path, b"\n".join([dumps(header)] + [dumps(e) for e in envs]))
    assert code == 1 and f"the deck revealed at version {reveal['version']} does not match" in out, out


def test_verify_refuses_a_wrong_recorded_outcome(client, integrator, tmp_path):
    gid = finished_game(client, integrator)["id"]
    lines = export(client, integrator, gid).splitlines()
    header = loads(lines[0])
    header["outcome"] = {**header["outcome"], "scores": [s + 1 for s in header["outcome"]["scores"]]}
    code, out = _verify(tmp_path, b"\n".join([dumps(header)] + lines[1:]))
    assert code == 1 and "folding the events gives the outcome" in out


def test_verify_is_a_command_of_the_installed_cli(client, integrator, tmp_path):
    gid = finished_game(client, integrator)["id"]
    path = tmp_path / "g.jsonl"
    path.write_bytes(export(client, integrator, gid))
    done = subprocess.run(
        [sys.executable, "-m", "service.cli", "verify", str(path)], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and "verified" in done.stdout, done.stdout + done.stderr


# ------------------------------------------------------------------ export / import


@pytest.mark.parametrize("game", list(registry.GAME_MODULES))
def test_export_imports_into_a_fresh_redis_and_replays_identically(client, integrator, tmp_path, game):
    created = finished_game(client, integrator, game, seed=7)
    gid = created["id"]
    data = export(client, integrator, gid)
    other = EmbeddedRedis(tmp_path / "other").start()
    try:
        fresh = create_app(Naipes(redis.Redis.from_url(other.url), api_keys=[API_KEY]), rate_limit="off")
        c2 = fresh.test_client()
        r = c2.post("/games/import", data=data, headers={**integrator, "Content-Type": "application/x-ndjson"})
        assert r.status_code == 201, r.get_json()
        new_tokens = tokens(r.get_json())
        again = c2.post("/games/import", data=data, headers={**integrator, "Content-Type": "application/x-ndjson"})
        assert again.status_code == 409
        head = client.get(f"/games/{gid}", headers=integrator).get_json()["version"]
        old_tokens = tokens(created)
        for version in range(1, head + 1):
            for as_ in ("reviewer", "spectator", *(f"seat:{s}" for s in old_tokens)):
                a = client.get(f"/games/{gid}/replay?version={version}&as={as_}", headers=integrator).get_json()
                b = c2.get(f"/games/{gid}/replay?version={version}&as={as_}", headers=integrator).get_json()
                # the same game, except that the copy says where it came from
                assert a.pop("provenance") == {"kind": "native"}
                assert b.pop("provenance")["kind"] == "imported"
                assert a == b, (version, as_)
        # the imported game's seats read their own viewpoint with their new tokens
        seat_view = c2.get(f"/games/{gid}/replay?version={head}&as=seat", headers=bearer(new_tokens[0]))
        assert seat_view.status_code == 200 and seat_view.get_json()["viewer"]["seat"] == 0
        assert c2.get(f"/games/{gid}/audit", headers=integrator).get_json()["chain"]["ok"]
    finally:
        other.stop()


def test_import_refuses_a_tampered_file_and_writes_nothing(client, integrator):
    gid = finished_game(client, integrator)["id"]
    lines = export(client, integrator, gid).splitlines()
    env = loads(lines[5])
    env["data"]["forged"] = 1
    bad = b"\n".join(lines[:5] + [dumps(env)] + lines[6:])
    client.application.extensions["naipes"].redis.delete(*[key(gid, p) for p in ("events", "head", "snap", "auth")])
    r = client.post("/games/import", data=bad, headers={**integrator, "Content-Type": "application/x-ndjson"})
    assert r.status_code == 422 and "chain broken at version 5" in r.get_json()["detail"]
    assert client.get(f"/games/{gid}", headers=integrator).status_code == 404


@pytest.mark.parametrize("where", ["among the events", "as the header"])
def test_import_refuses_a_file_with_an_empty_object_line(client, integrator, where):
    """A line holding an empty JSON object is a line of the file like any other: it breaks the chain
    (or is no header), and the import is refused, not passed over as a blank line would be."""
    gid = finished_game(client, integrator)["id"]
    lines = export(client, integrator, gid).splitlines()
    bad = b"\n".join(lines[:3] + [b"{}"] + lines[3:] + [b"{}"] if where == "among the events" else [b"{}", *lines])
    client.application.extensions["naipes"].redis.delete(*[key(gid, p) for p in ("events", "head", "snap", "auth")])
    r = client.post("/games/import", data=bad, headers={**integrator, "Content-Type": "application/x-ndjson"})
    assert r.status_code == 422 and r.get_json()["type"].endswith(":bad-export"), r.get_json()
    assert client.get(f"/games/{gid}", headers=integrator).status_code == 404


# ------------------------------------------------------------------ viewpoints


def test_replay_viewpoints_are_limited_to_what_the_caller_is_entitled_to(client, integrator):
    g = create(client, integrator, players=["a", "b", "c", "d"])
    gid, toks = g["id"], tokens(g)
    v = 3
    own = client.get(f"/games/{gid}/replay?version={v}&as=seat", headers=bearer(toks[1]))
    assert own.status_code == 200 and own.get_json()["viewer"] == {"kind": "seat", "seat": 1, "full": False}
    assert "hand" in own.get_json()["state"]
    named = client.get(f"/games/{gid}/replay?version={v}&as=seat:1", headers=bearer(toks[1]))
    assert named.get_json() == own.get_json()
    for as_, headers in (
        ("seat:2", bearer(toks[1])),
        ("reviewer", bearer(toks[1])),
        ("reviewer", {}),
        ("seat:0", {}),
        ("seat", {}),
    ):
        r = client.get(f"/games/{gid}/replay?version={v}&as={as_}", headers=headers)
        assert r.status_code == 403 and r.mimetype == "application/problem+json", (as_, r.get_json())
    spectator = client.get(f"/games/{gid}/replay?version={v}&as=spectator", headers=bearer(toks[1])).get_json()
    assert spectator["viewer"] == {"kind": "spectator", "seat": None, "full": False}
    assert "hand" not in spectator["state"]
    reviewer = client.get(f"/games/{gid}/replay?version={v}&as=reviewer", headers=integrator).get_json()
    assert "hands" in reviewer["state"]
    assert reviewer["viewer"] == {"kind": "integrator", "seat": None, "full": True}  # the client can tell full sight
    seat2 = client.get(f"/games/{gid}/replay?version={v}&as=seat:2", headers=integrator).get_json()
    assert seat2["state"]["hand"] == reviewer["state"]["hands"][2]
    assert client.get(f"/games/{gid}/replay?version={v}&as=king", headers=integrator).status_code == 422


def test_the_whole_log_becomes_public_after_the_end_only_by_option(client, integrator):
    closed = finished_game(client, integrator)
    opened = finished_game(client, integrator, public_after_end=True)
    for g, public in ((closed, False), (opened, True)):
        log = client.get(f"/games/{g['id']}/events").get_json()["events"]
        assert any("private" in e for e in log) == public
        r = client.get(f"/games/{g['id']}/replay?version=3&as=reviewer")
        assert r.status_code == (200 if public else 403)
    # while it runs, the option reveals nothing
    running = create(client, integrator, players=["a", "b", "c", "d"], options={"public_after_end": True})
    assert not any("private" in e for e in client.get(f"/games/{running['id']}/events").get_json()["events"])


# ------------------------------------------------------------------ adjudication


def test_freeze_notes_and_adjudication_only_grow_the_log(client, integrator):
    g = create(client, integrator, players=["a", "b", "c", "d"], options={"hands": 1})
    gid, toks = g["id"], tokens(g)
    before = client.get(f"/games/{gid}/audit", headers=integrator).get_json()["events"]
    r = client.post(f"/games/{gid}/freeze", json={"reason": "seat 2 disputes the deal"}, headers=integrator)
    assert r.status_code == 201 and r.get_json()["frozen"]
    view = client.get(f"/games/{gid}").get_json()
    assert view["frozen"] and view["to_act"] == []
    seat = next(iter(toks))
    refused = client.post(f"/games/{gid}/moves", json={"type": "pass"}, headers=bearer(toks[seat]))
    assert refused.status_code == 409 and refused.get_json()["type"].endswith("game-frozen")
    assert client.get(f"/games/{gid}/legal-moves", headers=bearer(toks[seat])).get_json()["moves"] == []
    assert client.post(f"/games/{gid}/freeze", json={"reason": "again"}, headers=integrator).status_code == 409
    note = client.post(
        f"/games/{gid}/notes", json={"version": 3, "text": "commitment of version 3 checked"}, headers=integrator
    )
    assert note.status_code == 201
    assert client.post(f"/games/{gid}/notes", json={"version": 999, "text": "x"}, headers=integrator).status_code == 422
    un = client.post(
        f"/games/{gid}/adjudications", json={"action": "unfreeze", "reason": "deal verified"}, headers=integrator
    )
    assert un.status_code == 201 and not un.get_json()["frozen"]
    assert client.get(f"/games/{gid}").get_json()["to_act"]
    award = client.post(
        f"/games/{gid}/adjudications",
        json={"action": "award", "reason": "seat 0 abandoned", "scores": [0, 3, 2, 1]},
        headers=integrator,
    )
    assert award.status_code == 201 and award.get_json()["result"]["winners"] == [1]
    fix = client.post(
        f"/games/{gid}/adjudications",
        json={"action": "correct_score", "reason": "miscounted", "deltas": [0, 0, 2, 0]},
        headers=integrator,
    ).get_json()
    assert fix["result"]["scores"] == [0, 3, 4, 1] and fix["result"]["winners"] == [2]
    view = client.get(f"/games/{gid}").get_json()
    assert view["finished"] and view["result"]["adjudicated"] and view["result"]["scores"] == [0, 3, 4, 1]
    # as the contract says: the state is the game as play stopped, and nobody is to act in it
    assert view["to_act"] == [] and view["state"]["phase"] != "finished" and view["state"]["outcome"] is None
    assert client.get(f"/games/{gid}/legal-moves", headers=bearer(toks[seat])).get_json()["moves"] == []
    assert client.post(f"/games/{gid}/moves", json={"type": "pass"}, headers=bearer(toks[seat])).status_code == 409
    audit = client.get(f"/games/{gid}/audit", headers=integrator).get_json()
    assert audit["chain"]["ok"] and audit["events"][: len(before)] == before
    assert [(x["type"], x.get("action")) for x in audit["review"]] == [
        ("GameFrozen", None),
        ("NoteAdded", None),
        ("Adjudicated", "unfreeze"),
        ("Adjudicated", "award"),
        ("Adjudicated", "correct_score"),
    ]
    assert all(x["actor"].startswith("reviewer:") for x in audit["review"])
    assert audit["review"][0]["reason"] == "seat 2 disputes the deal"
    # the fold from scratch gives the adjudicated result
    assert client.get(f"/games/{gid}/replay?version={audit['version']}").get_json()["result"] == view["result"]


def test_void_ends_a_game_without_a_result(client, integrator):
    g = create(client, integrator, players=["a", "b", "c", "d"])
    r = client.post(
        f"/games/{g['id']}/adjudications",
        json={"action": "void", "reason": "server clock fault", "hand": 1},
        headers=integrator,
    )
    assert r.status_code == 201 and r.get_json()["result"]["void"]
    assert client.get(f"/games/{g['id']}").get_json()["finished"]


def test_bad_adjudications_are_4xx(client, integrator):
    g = create(client, integrator, players=["a", "b", "c", "d"])
    for body, status in (
        ({"action": "award", "reason": "x", "scores": [1, 2]}, 422),
        ({"action": "correct_score", "reason": "x", "deltas": [0, 0, 0, 0]}, 409),
        ({"action": "unfreeze", "reason": "x"}, 409),
        ({"action": "explode", "reason": "x"}, 422),
        ({"action": "void"}, 422),
    ):
        r = client.post(f"/games/{g['id']}/adjudications", json=body, headers=integrator)
        assert r.status_code == status and r.mimetype == "application/problem+json", (body, r.get_json())


# ------------------------------------------------------------------ keys and scopes


def test_scopes_decide_what_a_key_may_do(client, integrator):
    def new_key(*scopes):
        r = client.post("/keys", json={"name": "k", "scopes": list(scopes)}, headers=integrator)
        assert r.status_code == 201
        return {"Authorization": f"Bearer {r.get_json()['key']}"}, r.get_json()["id"]

    games, _ = new_key("games")
    review, _ = new_key("review")
    tourn, _ = new_key("tournaments")
    g = create(client, games, players=["a", "b", "c", "d"])
    gid = g["id"]
    assert (
        client.post("/games", json={"game": "dalmuti", "players": ["a", "b", "c", "d"]}, headers=review).status_code
        == 403
    )
    assert (
        client.post("/games", json={"game": "dalmuti", "players": ["a", "b", "c", "d"]}, headers=tourn).status_code
        == 403
    )
    assert client.post(f"/games/{gid}/freeze", json={"reason": "x"}, headers=games).status_code == 403
    assert client.post(f"/games/{gid}/freeze", json={"reason": "x"}, headers=review).status_code == 201
    assert client.get(f"/games/{gid}/audit", headers=review).status_code == 200
    assert client.get(f"/games/{gid}/audit", headers=tourn).status_code == 403
    # a key without games or review scope sees what a spectator sees
    assert "hands" not in client.get(f"/games/{gid}", headers=tourn).get_json()["state"]
    assert "hands" in client.get(f"/games/{gid}", headers=review).get_json()["state"]
    forbidden = client.post("/keys", json={"name": "x", "scopes": ["admin"]}, headers=games)
    assert forbidden.status_code == 403 and forbidden.get_json()["type"].endswith("scope-missing")
    listed = client.get("/keys", headers=integrator).get_json()
    assert all("key" not in k for k in listed)
    raw = client.application.extensions["naipes"].redis.hgetall(KEYS)
    secret = games["Authorization"].split()[1]
    assert all(secret.encode() not in v and secret.encode() != k for k, v in raw.items())  # stored hashed


def test_a_revoked_key_is_refused_at_once(client, integrator):
    r = client.post("/keys", json={"name": "temp", "scopes": ["games"]}, headers=integrator).get_json()
    headers = {"Authorization": f"Bearer {r['key']}"}
    assert client.get("/games", headers=headers).status_code == 200
    assert client.delete(f"/keys/{r['id']}", headers=integrator).status_code == 200
    refused = client.get("/games", headers=headers)
    assert refused.status_code == 401 and refused.mimetype == "application/problem+json"
    assert client.delete("/keys/key_nope", headers=integrator).status_code == 404


def test_keys_from_the_command_line(redis_url, monkeypatch):
    monkeypatch.setenv("REDIS_URL", redis_url)
    runner = CliRunner()
    made = runner.invoke(cli, ["keys", "create", "--name", "ladder", "--scope", "games", "--scope", "review"])
    assert made.exit_code == 0, made.output
    key_id, secret = made.output.split()[:2]
    svc = Naipes(redis.Redis.from_url(redis_url))
    assert svc.identity.integrator(secret).scopes == frozenset({"games", "review"})
    assert key_id in runner.invoke(cli, ["keys", "list"]).output
    assert runner.invoke(cli, ["keys", "revoke", key_id]).exit_code == 0
    assert Naipes(redis.Redis.from_url(redis_url)).identity.integrator(secret) is None


# ------------------------------------------------------------------ rate limits


def test_a_burst_gets_429_with_retry_after_per_credential(service):
    app = create_app(service, rate_limit="10 per minute")
    c = app.test_client()
    g = create(c, {"Authorization": f"Bearer {API_KEY}"}, players=["a", "b", "c", "d"])
    toks = tokens(g)
    fresh_window(60)  # a burst within one window (fixed windows: one that straddles two may pass 20)
    burst = [c.get(f"/games/{g['id']}", headers=bearer(toks[0])) for _ in range(30)]
    codes = [r.status_code for r in burst]
    assert codes.count(200) == 10 and 429 in codes
    limited = next(r for r in burst if r.status_code == 429)
    assert limited.mimetype == "application/problem+json" and int(limited.headers["Retry-After"]) >= 1
    assert "too many requests" in limited.get_json()["detail"]
    # another seat's token has its own budget
    assert c.get(f"/games/{g['id']}", headers=bearer(toks[1])).status_code == 200


# ------------------------------------------------------------------ rules versions


def test_a_game_keeps_the_rules_version_it_started_under(client, integrator, monkeypatch):
    """Every event records the rules version that produced it; a game started under an older version
    keeps it (the new release still folds it: it is in the module's FOLDS_RULES)."""
    module = registry.get("dalmuti")
    original = module.RULES_VERSION
    old = create(client, integrator, players=["a", "b", "c", "d"])
    monkeypatch.setattr(module, "RULES_VERSION", "next")
    monkeypatch.setattr(module, "FOLDS_RULES", (original,))
    new = create(client, integrator, players=["a", "b", "c", "d"])
    for g, version in ((old, original), (new, "next")):
        toks = tokens(g)
        view = client.get(f"/games/{g['id']}").get_json()
        seat = view["to_act"][0]
        move = client.get(f"/games/{g['id']}/legal-moves", headers=bearer(toks[seat])).get_json()["moves"][0]
        assert client.post(f"/games/{g['id']}/moves", json=move, headers=bearer(toks[seat])).status_code == 201
        events = client.get(f"/games/{g['id']}/events").get_json()["events"]
        assert {e["rules"] for e in events} == {version}
        assert client.get(f"/games/{g['id']}").get_json()["rules_version"] == version


def test_an_append_during_an_audit_or_an_export_is_not_taken_for_tampering(service, monkeypatch):
    # issue "Dispute review": the audit names a broken link only where the log was changed; a move appended
    # while the audit (or an export) reads the log is not one, whatever the order the reads land in
    from service.core.verify import verify_export

    gid = service.games.create_game("dalmuti", ["a", "b", "c", "d"], {"turn_seconds": 30, "hands": 1})["id"]
    original = service.store.iter_all
    appended = []

    def read_then_someone_moves(game_id, *args, **kwargs):
        out = list(original(game_id, *args, **kwargs))
        if not appended:  # between this read and the next, a deadline fires
            appended.append(True)
            table = service.tables.table(game_id, fresh=True)
            seat = next(int(s) for s, c in table["clock"].items() if c.get("deadline"))
            assert service.deadlines.enforce_deadline(game_id, table["version"], seat)
        return iter(out)

    monkeypatch.setattr(service.store, "iter_all", read_then_someone_moves)
    report = service.records.audit(gid)
    assert appended and report["chain"]["ok"], report["chain"]
    assert service.store.head(gid)[0] > report["version"] == report["events"][-1]["version"]
    appended.clear()
    exported = list(service.records.export_lines(gid))
    assert appended and verify_export(exported)["ok"], verify_export(exported)["problems"]
    assert json.loads(exported[0])["version"] == len(exported) - 1


@pytest.mark.parametrize(
    "game,players",
    [
        ("dalmuti", ["a", "b", "c", "d"]),
        ("cego", ["a", "b", "c", "d"]),
        ("muerte", ["a", "b", "c", "d", "e", "f"]),
        ("onion", ["a", "b", "c"]),
    ],
)
def test_a_reviewers_award_keeps_every_games_scores_whole(client, integrator, game, players):
    """Every game's scores are whole numbers (seed 004 counts points per opponent, 001 its table of
    points, 003 payments of whole points times whole factors, 002 whole chips: its Pot is never
    split): an award or a correction of fractions is refused, and whole numbers sent as 3.0 are stored
    and shown as integers."""
    g = create(client, integrator, game=game, players=players)
    gid = g["id"]
    n = len(players)

    def adjudicate(body: dict):
        return client.post(f"/games/{gid}/adjudications", json={"reason": "r", **body}, headers=integrator)

    half = adjudicate({"action": "award", "scores": [0.5] + [0] * (n - 1)})
    assert half.status_code == 422 and half.get_json()["type"].endswith("bad-adjudication"), half.get_json()
    award = adjudicate({"action": "award", "scores": [3.0] + [1.0] * (n - 1)})
    assert award.status_code == 201, award.get_json()
    assert award.get_json()["result"]["scores"] == [3] + [1] * (n - 1)
    assert adjudicate({"action": "correct_score", "deltas": [0.25] + [0] * (n - 1)}).status_code == 422
    fixed = adjudicate({"action": "correct_score", "deltas": [0.0, 4.0] + [0] * (n - 2)})
    assert fixed.status_code == 201
    raw = client.get(f"/games/{gid}", headers=integrator).data
    assert b'"scores":[3,5' in raw.replace(b" ", b""), raw[:300]  # integers on the wire, not 3.0
    audit = client.get(f"/games/{gid}/audit", headers=integrator).get_json()
    assert audit["chain"]["ok"]
