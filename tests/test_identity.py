"""A process's copy of the seat tokens (service/core/identity.py): bounded, never holding a token that
is not one, and never trusted past AUTH_TTL."""

from __future__ import annotations

import time

import redis

from service.core.identity import AUTH_TTL
from service.core.naipes import Naipes


def test_the_copy_holds_at_most_cache_size_games_and_still_answers_for_the_others(redis_url):
    svc = Naipes(redis.Redis.from_url(redis_url), cache_size=2)
    games = [svc.games.create_game("dalmuti", list("abcde"), {"hands": 1}) for _ in range(3)]
    for _ in range(2):
        for g in games:
            for s in g["seats"]:
                assert svc.identity.seat_for_token(g["id"], s["token"]) == s["seat"]
    assert len(svc.identity._auth) == 2
    assert list(svc.identity._auth) == [games[1]["id"], games[2]["id"]]  # the longest unread went first


def test_a_token_that_is_not_one_is_never_remembered(redis_url):
    svc = Naipes(redis.Redis.from_url(redis_url))
    g = svc.games.create_game("dalmuti", list("abcde"), {"hands": 1})
    right = g["seats"][1]["token"]
    wrong = right[:-4] + ("AAAA" if not right.endswith("AAAA") else "BBBB")
    assert svc.identity.seat_for_token(g["id"], right) == 1
    assert svc.identity.seat_for_token(g["id"], wrong) is None
    assert svc.identity.seat_for_token(g["id"], right) == 1
    assert set(svc.identity._auth[g["id"]].by_token) == {right}


def test_a_token_replaced_elsewhere_stops_working_here_within_auth_ttl(redis_url):
    here = Naipes(redis.Redis.from_url(redis_url))
    elsewhere = Naipes(redis.Redis.from_url(redis_url))
    g = here.games.create_game("dalmuti", list("abcde"), {"hands": 1})
    token = g["seats"][0]["token"]
    assert here.identity.seat_for_token(g["id"], token) == 0  # remembered here
    elsewhere.store.set_tokens(g["id"], {}, replace=True)  # every token of the game dropped, in another process
    assert here.identity.seat_for_token(g["id"], token) == 0  # trusted a while ...
    time.sleep(AUTH_TTL + 0.1)
    assert here.identity.seat_for_token(g["id"], token) is None  # ... AUTH_TTL at most
