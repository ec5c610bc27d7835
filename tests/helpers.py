"""Bots and checks shared by the HTTP tests."""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable

from redis.connection import Connection

from .conftest import bearer

_GREETINGS = {"CLIENT", "HELLO", "AUTH", "SELECT"}  # a new connection's handshake, not a request's


def wire_commands(monkeypatch, counted: Callable[[Connection], bool] = lambda conn: True) -> Counter:
    """The commands, by name, that the connections for which ``counted`` holds send to Redis from now
    on, read off the wire: every command of a pipeline, and those sent over the event store's own
    connections (``events/lane.py``) as well as the client's.  A connection's greeting is left out."""
    sent: Counter = Counter()
    original = Connection.send_packed_command

    def counting(conn, command, check_health=True):
        if counted(conn):
            raw = command if isinstance(command, bytes) else b"".join(command)
            for name in _command_names(raw):
                if name not in _GREETINGS:
                    sent[name] += 1
        return original(conn, command, check_health)

    monkeypatch.setattr(Connection, "send_packed_command", counting)
    return sent


def _command_names(raw: bytes) -> list[str]:
    """The name of each command in RESP-packed ``raw`` (arrays of bulk strings)."""
    names, at = [], 0
    while at < len(raw):
        end = raw.index(b"\r\n", at)
        args, at = int(raw[at + 1 : end]), end + 2
        for i in range(args):
            end = raw.index(b"\r\n", at)
            size = int(raw[at + 1 : end])
            if i == 0:
                names.append(raw[end + 2 : end + 2 + size].decode().upper())
            at = end + 2 + size + 2
    return names


# options for a short match of each game (one hand or round; two rounds of Cripple Mr Onion)
SHORT = {"dalmuti": {"hands": 1}, "cego": {"rounds": 1}, "muerte": {"games": 1}, "onion": {"rounds": 2}}


def fresh_window(window: float, needed: float = 5.0) -> None:
    """Rate-limit windows are fixed and aligned on the clock (a minute's starts at :00): a test that
    counts requests within one window begins where at least ``needed`` seconds of one are left,
    sleeping into the next when fewer are (``needed`` >= ``window``: always at a window's start)."""
    left = window - time.time() % window
    if left < min(needed, window):
        time.sleep(left + 0.02)


def create(client, integrator, game="dalmuti", players=None, options=None, status=201):
    players = players or ["ana", "bea", "carl", "dani", "eva"]
    r = client.post("/games", json={"game": game, "players": players, "options": options or {}}, headers=integrator)
    assert r.status_code == status, r.get_json()
    return r.get_json()


def tokens(created) -> dict[int, str]:
    return {s["seat"]: s["token"] for s in created["seats"]}


def play_http(client, created, rng: random.Random, on_step=None, max_moves=20000) -> dict:
    """Play a game to its end through the API, choosing among legal-moves only."""
    gid = created["id"]
    toks = tokens(created)
    for _ in range(max_moves):
        # a seat's view is live; a spectator's may be held back (a duplicate round's embargo)
        view = client.get(f"/games/{gid}", headers=bearer(toks[0])).get_json()
        if view["finished"]:
            return view
        seat = rng.choice(view["to_act"])
        lm = client.get(f"/games/{gid}/legal-moves", headers=bearer(toks[seat])).get_json()
        assert lm["moves"], f"seat {seat} must act but has no legal move"
        move = rng.choice(lm["moves"])
        r = client.post(f"/games/{gid}/moves", json=move, headers=bearer(toks[seat]))
        assert r.status_code == 201, (move, r.get_json())
        if on_step:
            on_step(gid, toks, r.get_json())
    raise AssertionError("game did not finish")


def private_seats(events: list[dict]) -> set[str]:
    out: set[str] = set()
    for e in events:
        out.update((e.get("private") or {}).keys())
    return out
