"""The hot path (service/web/hot.py) answers a move's two requests exactly as the Flask routes do.

Each check sends the same request to the application (the hot path in front) and to the same
application without it (its Flask ``wsgi_app`` alone), and compares status, headers and body.  The
plain requests of whole games are served by the hot path (Flask never sees them), on twin games
(one deal) so that both sides play the same moves; every other request (a refused credential,
body or header, a query, another method) reaches Flask untouched, and the refusals of counted
requests (the rate limit's 429, the rules' 409/412/422) are answered alike.
"""

from __future__ import annotations

import io
import random
import re

import orjson
import pytest
from werkzeug.test import Client
from werkzeug.wrappers import Response

from service.core import metrics
from service.web.app import AfterAnswer, create_app
from service.web.hot import HotPath

from .conftest import API_KEY, bearer
from .helpers import fresh_window
from .test_rate_limit_keys import _address

_HEX = re.compile(r"\b[0-9a-f]{32}\b|\b[0-9a-f]{64}\b")
_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
_REMAINING = re.compile(r"\b([rt])=\d+")
DEALS = {"DealerDealt", "GameDealt", "HandDealt", "RoundDealt", "RoundStarted"}  # a new deal, drawn from the log


class Sides:
    """The application with its hot path, the same application without it, and what reached Flask."""

    def __init__(self, service, rate_limit: str = "off"):
        self.app = create_app(service, rate_limit=rate_limit)
        self.hot = self.app.wsgi_app
        while not isinstance(self.hot, HotPath):  # ProxyFix (behind trusted proxies), then AfterAnswer
            self.hot = self.hot.inner if isinstance(self.hot, AfterAnswer) else self.hot.app
        flask = self.hot.inner
        self.flask = Client(flask, Response)
        self.reached: list[str] = []

        def counting(environ, start_response):
            self.reached.append(f"{environ['REQUEST_METHOD']} {environ['PATH_INFO']}")
            return flask(environ, start_response)

        self.hot.inner = counting
        self.client = self.app.test_client()

    def both(self, method: str, path: str, game_ids: tuple[str, str] | None = None, **kwargs):
        """The same request through the hot path and through Flask alone (``game_ids``: the twin
        games the path names in turn, with each side's credential in ``kwargs['headers']``)."""
        answers = []
        for side, client in enumerate((self.client, self.flask)):
            args = dict(kwargs)
            where = path
            if game_ids is not None:
                where = path.replace("{id}", game_ids[side])
                args["headers"] = kwargs["headers"][side]
            answers.append(client.open(where, method=method, **args))
        return answers


def normal(resp, game_ids=()) -> tuple[int, list, object]:
    """What must be equal on both sides: the status, the headers in order (the counts of the rate
    limit, which each request moves on, and a 429's Retry-After, which the clock moves on, left out)
    and the body (the twin games' own ids, times, hashes and salts left out)."""
    text = resp.get_data(as_text=True)
    for gid in game_ids:
        text = text.replace(gid, "<game>")
    text = _TIME.sub("<time>", _HEX.sub("<hex>", text))
    headers = [(k, _REMAINING.sub(r"\1=n", v)) for k, v in resp.headers.items()]
    if resp.status_code == 429:  # the seconds left in the window: a second may turn between two requests
        headers = [(k, "n" if k == "Retry-After" else v) for k, v in headers]
    if resp.headers.get("Content-Length"):  # the bodies' lengths differ only by what was left out
        headers = [(k, "n" if k == "Content-Length" else v) for k, v in headers]
    body = orjson.loads(text) if text else None
    return resp.status_code, headers, body


def twins(service, seed: int, game: str = "dalmuti", players=("a", "b", "c", "d"), options=None):
    options = {"hands": 1} if options is None else options
    made = [service.games.create_game(game, list(players), options, seed=seed) for _ in range(2)]
    ids = (made[0]["id"], made[1]["id"])
    tokens = [{s["seat"]: s["token"] for s in m["seats"]} for m in made]
    return ids, tokens


def to_act(service, game_id: str) -> list[int]:
    from service.core import facts

    return facts.to_act(service.tables.table(game_id, fresh=True))


@pytest.mark.parametrize(
    ("game", "players", "options"),
    [
        ("dalmuti", ("a", "b", "c", "d", "e"), {"hands": 1}),
        ("muerte", ("a", "b", "c", "d", "e", "f"), {}),
        ("cego", ("a", "b", "c", "d"), {}),
        ("onion", ("a", "b", "c"), {}),
    ],
)
def test_whole_games_are_served_by_the_hot_path_as_flask_serves_them(service, game, players, options):
    sides = Sides(service, rate_limit="100 per second")
    ids, tokens = twins(service, seed=7, game=game, players=players, options=options)
    rng = random.Random(11)
    moves = 0
    while (acting := to_act(service, ids[0])) and moves < 60:
        assert acting == to_act(service, ids[1])
        seat = rng.choice(acting)
        headers = [{**bearer(tokens[i][seat]), "Accept-Language": "es"} for i in (0, 1)]
        legal = sides.both("GET", "/games/{id}/legal-moves", ids, headers=headers)
        assert normal(legal[0], ids) == normal(legal[1], ids)
        assert legal[0].status_code == 200, legal[0].get_json()
        offered = legal[0].get_json()["moves"]
        move = rng.choice([m for m in offered if m["type"] != "accuse"] or offered)  # (an accusation ends Muerte)
        version = legal[0].get_json()["version"]
        headers = [{**h, "If-Match": f'"{version}"', "Idempotency-Key": f"k{moves}"} for h in headers]
        posted = sides.both("POST", "/games/{id}/moves", ids, headers=headers, json=move)
        assert posted[0].status_code == 201, posted[0].get_json()
        (status, heads, body), (*other, other_body) = (normal(r, ids) for r in posted)
        dealt = next((i for i, e in enumerate(body["events"]) if e["type"] in DEALS), None)
        if dealt is not None:  # each twin's next deal is drawn from its own log: they part here
            assert body["events"][:dealt] == other_body["events"][:dealt] and [status, heads] == other
            break
        assert (status, heads, body) == (*other, other_body)
        moves += 1
    assert moves >= 5
    assert sides.reached == [], "plain requests reached Flask"


def test_refusals_after_counting_are_answered_as_flask_answers_them(service):
    sides = Sides(service, rate_limit="100 per second")
    (gid, _), (tokens, _) = twins(service, seed=3, game="cego", options={})
    acting = to_act(service, gid)
    waiting = next(s for s in tokens if s not in acting)
    seat = acting[0]
    move = sides.client.get(f"/games/{gid}/legal-moves", headers=bearer(tokens[seat])).get_json()["moves"][0]
    cases = [
        ("not its turn", bearer(tokens[waiting]), move),
        ("a stale version", {**bearer(tokens[seat]), "If-Match": '"1"'}, move),
        ("a move no game has", bearer(tokens[seat]), {"type": "fly"}),
        ("a move missing its fields", bearer(tokens[seat]), {"type": move["type"], "cards": "x"}),
    ]
    for why, headers, body in cases:
        hot, flask = sides.both("POST", f"/games/{gid}/moves", headers=headers, json=body)
        assert hot.status_code in (409, 412, 422), (why, hot.get_json())
        assert normal(hot) == normal(flask), why
    assert sides.reached == [], "the hot path answered them"


def test_every_other_request_reaches_flask_untouched(service):
    sides = Sides(service, rate_limit="100 per second")
    (gid, other), (tokens, other_tokens) = twins(service, seed=5, game="cego", options={})
    seat = to_act(service, gid)[0]
    own = bearer(tokens[seat])
    move = sides.client.get(f"/games/{gid}/legal-moves", headers=own).get_json()["moves"][0]
    raw = orjson.dumps(move)
    json_type = {"Content-Type": "application/json"}
    cases = [
        ("GET", "/legal-moves", {}, None),
        ("GET", "/legal-moves", {"Authorization": "Basic eDp5"}, None),
        ("GET", "/legal-moves", {"Authorization": "Bearer"}, None),
        ("GET", "/legal-moves", bearer(API_KEY), None),
        ("GET", "/legal-moves", bearer(other_tokens[seat]), None),
        ("GET", "/legal-moves", bearer("st_" + gid + ".nope"), None),
        ("GET", "/legal-moves?seat=1", own, None),
        ("HEAD", "/legal-moves", own, None),
        ("OPTIONS", "/moves", own, None),
        ("GET", "/legal-moves/", own, None),
        ("GET", "/legal-moves", {**own, "Content-Type": "application/json"}, b"{"),
        ("GET", "/legal-moves", {**own, "Content-Type": "application/json"}, b"{}"),
        ("POST", "/legal-moves", {**own, **json_type}, raw),
        ("GET", "/moves", own, None),
        ("POST", "/moves", own, raw),
        ("POST", "/moves", {**own, "Content-Type": "text/plain"}, raw),
        ("POST", "/moves", {**own, "Content-Type": "application/json\xa0"}, raw),  # werkzeug strips " \t" only
        ("POST", "/moves", {**own, **json_type}, b""),
        ("POST", "/moves", {**own, **json_type}, b"{"),
        ("POST", "/moves", {**own, **json_type}, b'{"type": NaN}'),
        ("POST", "/moves", {**own, **json_type}, b'{"type": "pass", "n": 99999999999999999999}'),
        ("POST", "/moves", {**own, **json_type}, b'["pass"]'),
        ("POST", "/moves", {**own, **json_type}, b'{"type": 5}'),
        ("POST", "/moves", {**own, **json_type}, b'{"type": ""}'),
        ("POST", "/moves", {**own, **json_type}, b'{"type": "pass", "label": 3}'),
        ("POST", "/moves", {**own, **json_type}, b'{"type": "pass", "label": null}'),
        ("POST", "/moves", {**own, **json_type}, b'{"type": "' + b"p" * 65 + b'"}'),
        ("POST", "/moves", {**own, **json_type}, b'{"type": "pass", "x": ' + b"[" * 70 + b"]" * 70 + b"}"),
        *(  # the nesting limit holds whatever the stack under the parser (each side's differs)
            ("POST", "/moves", {**own, **json_type}, b'{"type": "pass", "x": ' + b"[" * n + b"]" * n + b"}")
            for n in (500, 930, 940, 990, 1100)
        ),
        ("POST", "/moves", {**own, **json_type}, b'{"type": "pass", "x": "' + b"y" * 70_000 + b'"}'),
        ("POST", "/moves", {**own, **json_type, "If-Match": "later"}, raw),
        ("POST", "/moves", {**own, **json_type, "Idempotency-Key": "two words"}, raw),
        ("POST", "/moves", {**bearer(other_tokens[seat]), **json_type}, raw),
    ]
    for method, tail, headers, data in cases:
        sides.reached.clear()
        hot, flask = sides.both(method, f"/games/{gid}{tail}", headers=headers, data=data)
        assert sides.reached == [f"{method} /games/{gid}{tail.partition('?')[0]}"], (method, tail, headers)
        assert normal(hot) == normal(flask), (method, tail, headers, data and data[:40])
    # a Content-Length that is no plain number (gunicorn refuses most), and a chunked body: Flask's
    for length in ("\u00b2", "0" * 20 + "1", "+5"):
        sides.reached.clear()
        hot, flask = (
            c.post(
                f"/games/{gid}/moves",
                headers={**own, **json_type},
                data=raw,
                environ_overrides={"CONTENT_LENGTH": length},
            )
            for c in (sides.client, sides.flask)
        )
        assert sides.reached == [f"POST /games/{gid}/moves"], length
        assert normal(hot) == normal(flask), length
    sides.reached.clear()
    resp = sides.client.post(
        f"/games/{gid}/moves",
        headers={**own, **json_type, "Transfer-Encoding": "chunked"},
        input_stream=io.BytesIO(raw),
    )
    assert sides.reached == [f"POST /games/{gid}/moves"], resp.status_code
    assert to_act(service, gid) == to_act(service, other), "no refused request changed the game"


def test_a_retry_is_the_same_move_whatever_the_order_of_its_members(service):
    # the idempotency fingerprint reads the move's members in no order: the hot path keeps the body's
    # order, Flask's schema its own, and a client may serialise its object either way
    sides = Sides(service)
    (gid, _), (tokens, _) = twins(service, seed=19, game="muerte", players=("a", "b", "c", "d", "e", "f"), options={})
    seat = to_act(service, gid)[0]
    own = {**bearer(tokens[seat]), "Idempotency-Key": "once"}
    offered = sides.client.get(f"/games/{gid}/legal-moves", headers=own).get_json()["moves"]
    move = next(m for m in offered if len(m) > 3)  # two members of its own beside type and label
    members = [(k, v) for k, v in move.items() if k != "label"]
    sent = {**own, "Content-Type": "application/json"}
    first = sides.client.post(f"/games/{gid}/moves", headers=sent, data=orjson.dumps(dict(members)))
    assert first.status_code == 201, first.get_json()
    backwards = orjson.dumps(dict(reversed(members)))
    for client in (sides.client, sides.flask):
        again = client.post(f"/games/{gid}/moves", headers=sent, data=backwards)
        assert again.status_code == 201 and again.get_json() == {**first.get_json(), "replayed": True}
    assert service.tables.table(gid, fresh=True)["version"] == first.get_json()["version"]


def test_the_hot_path_counts_each_request_once_and_refuses_past_the_limit_as_flask_does(service, monkeypatch):
    monkeypatch.setenv("NAIPES_RATE_LIMIT_ADDRESS", "off")
    sides = Sides(service, rate_limit="3 per minute")
    fresh_window(60)
    (gid, _), (tokens, _) = twins(service, seed=9)
    own = bearer(tokens[to_act(service, gid)[0]])
    seen = [sides.client.get(f"/games/{gid}/legal-moves", headers=own) for _ in range(4)]
    assert [r.status_code for r in seen] == [200, 200, 200, 429]
    assert [re.search(r"\br=(\d+)", r.headers["RateLimit"])[1] for r in seen] == ["2", "1", "0", "0"]
    refused = metrics.ERRORS.labels(status="429")._value.get()
    flask = sides.flask.get(f"/games/{gid}/legal-moves", headers=own)
    assert normal(seen[3]) == normal(flask)
    assert 0 <= int(seen[3].headers["Retry-After"]) - int(flask.headers["Retry-After"]) <= 1
    assert metrics.ERRORS.labels(status="429")._value.get() == refused + 1, "Flask counts its 429 too"
    assert int(seen[3].headers["Retry-After"]) >= 1
    assert sides.reached == [], "the hot path answered all four"


def test_behind_a_trusted_proxy_the_hot_path_counts_the_forwarded_address(service, monkeypatch):
    monkeypatch.setenv("NAIPES_TRUSTED_PROXIES", "1")
    monkeypatch.setenv("NAIPES_RATE_LIMIT_ADDRESS", "3 per minute")
    sides = Sides(service, rate_limit="100 per second")
    (gid, _), (tokens, _) = twins(service, seed=13)
    proxy = {"REMOTE_ADDR": _address()}
    one, other = _address(), _address()
    own = bearer(tokens[to_act(service, gid)[0]])
    fresh_window(60)

    def get(address):
        return sides.client.get(
            f"/games/{gid}/legal-moves", headers={**own, "X-Forwarded-For": address}, environ_base=proxy
        ).status_code

    assert [get(one) for _ in range(4)] == [200, 200, 200, 429]
    assert get(other) == 200
    assert sides.reached == []


def test_redis_away_is_the_same_503_on_both_paths(service, monkeypatch):
    """Redis failing under a counted request (here: the core's read, as when Redis restarts) is the
    503 problem with Retry-After on both paths, and a defect the same logged 500."""
    import redis

    sides = Sides(service, rate_limit="100 per second")
    (gid, _), (tokens, _) = twins(service, seed=17, game="cego", options={})
    own = bearer(tokens[to_act(service, gid)[0]])
    assert sides.client.get(f"/games/{gid}/legal-moves", headers=own).status_code == 200  # tokens cached

    def away(*_args, **_kwargs):
        raise redis.exceptions.ConnectionError("Connection refused")

    monkeypatch.setattr(service.reads, "legal_moves", away)
    hot, flask = sides.both("GET", f"/games/{gid}/legal-moves", headers=own)
    assert hot.status_code == 503 and hot.headers["Retry-After"] == "1", hot.get_json()
    assert normal(hot) == normal(flask)

    def defect(*_args, **_kwargs):
        raise KeyError("a defect")

    monkeypatch.setattr(service.reads, "legal_moves", defect)
    hot, flask = sides.both("GET", f"/games/{gid}/legal-moves", headers=own)
    assert hot.status_code == 500 and "a defect" not in hot.get_data(as_text=True)
    assert normal(hot) == normal(flask)
    assert sides.reached == [], "the hot path answered them"
