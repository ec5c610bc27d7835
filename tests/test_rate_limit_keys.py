"""Rate limits count the validated credential, else the client address; one address has a budget of its own."""

from __future__ import annotations

import random
import secrets

from service.web.app import create_app

from .conftest import API_KEY, bearer
from .helpers import create, fresh_window, tokens

INTEGRATOR = {"Authorization": f"Bearer {API_KEY}"}


def _address() -> str:
    """An address of the test's own: the counts live in the session's Redis for a minute."""
    return f"10.{random.randrange(256)}.{random.randrange(256)}.{random.randrange(1, 255)}"


def _client(service, monkeypatch, limits: str = "10 per minute", address_limits: str = "off", **env):
    monkeypatch.setenv("NAIPES_RATE_LIMIT_ADDRESS", address_limits)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    app = create_app(service, rate_limit=limits)
    fresh_window(60)  # the tests count within one minute
    return app.test_client()


def test_a_random_token_with_each_request_does_not_escape_the_limit(service, monkeypatch):
    c = _client(service, monkeypatch)
    g = create(c, INTEGRATOR, players=["a", "b", "c", "d"])
    env = {"REMOTE_ADDR": _address()}
    # the README's EventSource form, with a made-up token each time: unknown, so counted by address
    streams = [
        c.get(f"/games/{g['id']}/stream?token=st_{secrets.token_urlsafe(24)}", environ_base=env).status_code
        for _ in range(15)
    ]
    assert 429 in streams and streams.count(401) <= 10, streams
    # on a route that ignores ?token=, the same
    reads = [c.get(f"/games/{g['id']}?token={secrets.token_hex(8)}", environ_base=env).status_code for _ in range(15)]
    assert reads.count(200) <= 10 and 429 in reads, reads
    # a seat's real token has its budget, whatever the address spent
    assert c.get(f"/games/{g['id']}", headers=bearer(tokens(g)[0]), environ_base=env).status_code == 200


def test_a_random_bearer_value_is_counted_by_the_client_address(service, monkeypatch):
    c = _client(service, monkeypatch)
    g = create(c, INTEGRATOR, players=["a", "b", "c", "d"])
    env = {"REMOTE_ADDR": _address()}
    codes = [
        c.get(f"/games/{g['id']}/legal-moves", headers=bearer(secrets.token_urlsafe(16)), environ_base=env).status_code
        for _ in range(15)
    ]
    assert codes.count(401) <= 10 and 429 in codes, codes
    limited = c.get(f"/games/{g['id']}/legal-moves", headers=bearer("nope"), environ_base=env)
    assert limited.status_code == 429 and limited.mimetype == "application/problem+json"
    assert int(limited.headers["Retry-After"]) >= 1
    # another address is not held back
    assert (
        c.get(
            f"/games/{g['id']}/legal-moves", headers=bearer("nope"), environ_base={"REMOTE_ADDR": _address()}
        ).status_code
        == 401
    )


def test_rotating_valid_seat_tokens_from_one_address_meets_the_address_budget(service, monkeypatch):
    c = _client(service, monkeypatch, address_limits="12 per minute")
    env = {"REMOTE_ADDR": _address()}
    games = [create(c, INTEGRATOR, players=["a", "b", "c", "d"]) for _ in range(3)]  # a key: not the address's
    seats = [(g["id"], tok) for g in games for tok in tokens(g).values()]
    codes = [
        c.get(f"/games/{gid}", headers=bearer(tok), environ_base=env).status_code
        for _ in range(2)
        for gid, tok in seats
    ]  # each seat twice: far below its own 10
    assert codes.count(200) <= 12 and 429 in codes, codes
    limited = c.get(f"/games/{seats[0][0]}", headers=bearer(seats[0][1]), environ_base=env)
    assert limited.status_code == 429 and "client address" in limited.get_json()["detail"]
    # an integrator key from the same address is counted by its key only
    assert c.get("/games", headers=INTEGRATOR, environ_base=env).status_code == 200


def test_the_client_address_comes_from_x_forwarded_for_only_behind_trusted_proxies(service, monkeypatch):
    proxy = {"REMOTE_ADDR": _address()}
    spoofed = [{"X-Forwarded-For": _address(), **bearer(secrets.token_hex(8))} for _ in range(15)]

    # no trusted proxy: a made-up X-Forwarded-For changes nothing
    c = _client(service, monkeypatch)
    g = create(c, INTEGRATOR, players=["a", "b", "c", "d"])
    codes = [c.get(f"/games/{g['id']}", headers=h, environ_base=proxy).status_code for h in spoofed]
    assert 429 in codes, codes

    # one trusted proxy: its X-Forwarded-For names the client, each client has its own count
    c = _client(service, monkeypatch, NAIPES_TRUSTED_PROXIES="1")
    proxy = {"REMOTE_ADDR": _address()}
    one, other = _address(), _address()
    codes = [
        c.get(
            f"/games/{g['id']}", headers={"X-Forwarded-For": one, **bearer(secrets.token_hex(8))}, environ_base=proxy
        ).status_code
        for _ in range(15)
    ]
    assert 429 in codes, codes
    assert (
        c.get(f"/games/{g['id']}", headers={"X-Forwarded-For": other, **bearer("nope")}, environ_base=proxy).status_code
        == 401
    )
    # a client cannot prepend addresses of its own: the proxy's hop is the one taken
    assert (
        c.get(
            f"/games/{g['id']}", headers={"X-Forwarded-For": f"{other}, {one}", **bearer("nope")}, environ_base=proxy
        ).status_code
        == 429
    )


def test_a_bad_trusted_proxies_setting_is_named(service, monkeypatch):
    monkeypatch.setenv("NAIPES_TRUSTED_PROXIES", "all")
    try:
        create_app(service, rate_limit="off")
    except ValueError as exc:
        assert "NAIPES_TRUSTED_PROXIES" in str(exc)
    else:
        raise AssertionError("a bad NAIPES_TRUSTED_PROXIES must stop the start")
