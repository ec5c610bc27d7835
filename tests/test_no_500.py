"""No route answers hostile input with a 500.

Every route of the application's URL map (read at run time, so a new route
is covered without a word here) gets requests made by hypothesis: path ids
that exist and hostile ones (unicode, lone surrogates, huge numbers,
thousands of characters), hostile query strings, hostile Authorization,
If-Match, If-None-Match, Idempotency-Key and Last-Event-ID headers, and JSON
bodies (sound bodies of the route with one member made hostile, and any
JSON at all: integers far beyond 64 bits, 1e308 and its overflow, NaN,
lone surrogates, deep nesting, long strings; and broken bytes) sent with a
valid integrator key, a seat token, nothing or garbage.  Every answer must
be below 500 (a 503 only when Redis is really down), and every error an
application/problem+json with type, title, status and detail.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections import Counter
from urllib.parse import quote, urlencode

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from .conftest import API_KEY

PROBLEM = "application/problem+json"
PER_ROUTE = 40  # examples per (route, method) ...
PER_BODY_ROUTE = 120  # ... and per route taking a JSON body: about 2,300 requests in all
GAMES = {
    "dalmuti": (["ana", "bea", "carl", "dani"], {"hands": 1, "allow_joining": True}),
    "cego": (["ana", "bea", "carl", "dani"], {}),
    "muerte": (["ana", "bea", "carl", "dani", "eva", "flor"], {}),
    "onion": (["ana", "bea", "carl", "dani"], {}),
}
_ARG = re.compile(r"<(?:(\w+)(?:\([^)]*\))?:)?(\w+)>")

# ----------------------------------------------------------------- hostile values
SPECIAL_TEXT = [
    "",
    " ",
    "\x00",
    "\ud800",
    "\udfff",
    "\ud83c\udca1",
    "\U0001f0a1",
    "\u202e",
    "\u00b2",
    "\u0663",
    "..",
    "../..",
    "%00",
    "%ED%A0%80",
    "t-0123456789abcdef",
    "key_000000000000",
    "a" * 5000,
    "9" * 5000,
    "-1",
    "0",
    "1e308",
    "NaN",
    "null",
    "[]",
    "{}",
    "\\",
    '"',
    "'",
    "<script>",
]
TEXT = st.one_of(
    st.sampled_from(SPECIAL_TEXT),
    st.text(alphabet=st.characters(exclude_categories=()), max_size=40),  # surrogates included
    st.text(alphabet="0123456789", min_size=15, max_size=30),
)
BIG_INTS = [2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 2**64, 10**30, -(10**30), 10**400]
NUMBERS = st.one_of(
    st.integers(),
    st.sampled_from(BIG_INTS),
    st.integers(min_value=-(10**400), max_value=10**400),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([1e308, -1e308, 5e-324, -0.0]),
)
SCALARS = st.one_of(st.none(), st.booleans(), NUMBERS, TEXT)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(TEXT, inner, max_size=5)),
    max_leaves=20,
)
# as a hostile client may send them: bytes no JSON encoder would write
RAW_BODIES = [
    b"{",
    b'{"type": ',
    b"\xff\xfe\x00",
    b"\xef\xbb\xbf{}",
    b'{"a": NaN}',
    b'{"a": Infinity}',
    b"[1e999]",
    b"1" * 5000,
    b"[" * 100_000 + b"]" * 100_000,
    b'{"a":' * 3000 + b"1" + b"}" * 3000,
    b'{"pad": "' + b"x" * (70 * 1024) + b'"}',
    b'"\\ud800"',
    b'{"\\udc00": 1}',
    b"null",
    b"[]",
    b'""',
]
LATIN1 = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0xFF), max_size=40)
HEADER = st.one_of(
    LATIN1,
    st.sampled_from(
        ["9" * 5000, "\u00b2", '"1"', 'W/"2"', "1", "0", "-1", "*", "", "99999999999999999999", "\u00d9\u00a3"]
    ),
)
QUERY_KEYS = ["after", "limit", "offset", "wait", "version", "as", "game", "status", "token"]


def _dumps(value) -> bytes:
    """JSON as a client could write it: lone surrogates as \\udXXX escapes, NaN and Infinity as such."""
    return json.dumps(value, ensure_ascii=True, allow_nan=True).encode()


def _segment(text: str) -> str:
    return quote(text, safe="", errors="surrogatepass")


# ----------------------------------------------------------------- the world the requests aim at
@pytest.fixture()
def world(app, client, integrator, service):
    app.config["NAIPES_SSE_HEARTBEAT"] = 0.05
    games = []
    for game, (players, options) in GAMES.items():
        for _ in range(2):
            created = service.games.create_game(game, players, options)
            games.append({"id": created["id"], "tokens": [s["token"] for s in created["seats"]]})
    r = client.post(
        "/tournaments",
        json={
            "name": "cup",
            "game": "dalmuti",
            "players": GAMES["cego"][0],
            "format": "round_robin",
            "table_size": {"min": 4},
            "options": {"hands": 1},
        },
        headers=integrator,
    )
    assert r.status_code == 201, r.get_json()
    key = client.post("/keys", json={"name": "spare", "scopes": ["games"]}, headers=integrator).get_json()
    hook = client.post("/webhooks", json={"url": "http://127.0.0.1:9/hook"}, headers=integrator)
    return {
        "games": games,
        "tournament": r.get_json()["id"],
        "key": key["id"],
        "webhook": hook.get_json()["id"] if hook.status_code == 201 else "wh_0000000000000000",
        "service": service,
    }


def path_value(world: dict, converter: str | None, name: str):
    real = {
        "game_id": [g["id"] for g in world["games"]],
        "tournament_id": [world["tournament"]],
        "key_id": [world["key"]],
        "webhook_id": [world["webhook"]],
        "number": ["1", "2"],
        "filename": ["index.html", "viewer.js"],
    }.get(name, [])
    hostile = TEXT.map(_segment)
    if converter == "int":
        hostile = st.one_of(hostile, NUMBERS.filter(lambda n: isinstance(n, int)).map(lambda n: str(abs(n))))
    if real:  # mostly an id that exists, to get past the lookup
        return st.one_of(st.sampled_from(real), st.sampled_from(real), st.sampled_from(real), hostile)
    return hostile


def templates(world: dict, method: str, rule: str) -> list:
    """Sound bodies of a route, for hostile members to be put in (any JSON serves where none is known)."""
    players = ["ana", "bea", "carl", "dani"]
    if method != "POST":
        return []
    if rule == "/games":
        return [{"game": g, "players": p, "options": o} for g, (p, o) in GAMES.items()]
    if rule == "/tournaments":
        return [
            {
                "name": "cup",
                "game": "dalmuti",
                "players": players,
                "format": f,
                "table_size": {"min": 4},
                "options": {"hands": 1},
                "rounds": 1,
                "seed": 7,
            }
            for f in ("round_robin", "swiss", "duplicate")
        ]
    if rule == "/keys":
        return [{"name": "ladder", "scopes": ["games", "review"]}]
    if rule == "/webhooks":
        return [{"url": "http://127.0.0.1:9/hook", "events": ["game.finished"]}]
    tail = rule.rsplit("/", 1)[-1]
    return {
        "moves": [
            {"type": "pass"},
            {"type": "play", "cards": [12, 12]},
            {"type": "bid", "amount": 1},
            {"type": "play", "card": "AS"},
            {"type": "raise", "amount": 2},
        ],
        "players": [{"player": "flor"}],
        "freeze": [{"reason": "checking"}],
        "notes": [{"text": "seen", "version": 1}],
        "adjudications": [
            {"action": "award", "reason": "r", "scores": [1, 2, 3, 4]},
            {"action": "correct_score", "reason": "r", "deltas": [1, 0, 0, -1]},
            {"action": "void", "reason": "r", "hand": 1},
            {"action": "unfreeze", "reason": "r"},
        ],
        "withdraw": [{"player": "ana"}],
    }.get(tail, [])


# What to do to a sound body.  Drawn the same way whatever the body is (the moves of a live game
# change as it is played, and hypothesis needs the same draws to replay an example).
MUTATION = st.fixed_dictionaries(
    {
        "how": st.sampled_from(["shaped", "shaped", "any", "added"]),
        "pick": st.integers(0, 2**16),
        "name": TEXT,
        "scalars": st.lists(st.one_of(NUMBERS, TEXT, st.booleans(), st.none()), min_size=1, max_size=8),
        "json": JSON,
    }
)


def _like(value, scalars: list):
    """Hostile scalars in the place of a sound value, keeping its shape (four scores stay four numbers)."""
    if isinstance(value, list):
        return [
            _like(value[i % len(value)] if value else None, scalars[i:] + scalars[:i])
            for i in range(max(len(value), 1))
        ]
    if isinstance(value, dict):
        return {k: _like(v, scalars[i:] + scalars[:i]) for i, (k, v) in enumerate(value.items())}
    alike = (
        [x for x in scalars if isinstance(x, (int, float)) and not isinstance(x, bool)]
        if isinstance(value, (int, float)) and not isinstance(value, bool)
        else []
    )
    return (alike or scalars)[0]


def mutate(body: dict, how: dict) -> dict:
    """One member of a sound body replaced by hostile values (in its shape, or any JSON), or one added."""
    body = dict(body)
    names = sorted(body)
    if how["how"] == "added" or not names:
        body[how["name"]] = how["json"]
        return body
    member = names[how["pick"] % len(names)]
    body[member] = how["json"] if how["how"] == "any" else _like(body[member], how["scalars"])
    return body


def pick(options: list, index: int):
    return options[index % len(options)]


def seat_to_act(world: dict, game: dict) -> tuple[str, list[dict]]:
    """The token of a seat to act in a game, and the moves it may make."""
    service = world["service"]
    acting = service.reads.state_view(game["id"], service.identity.viewer(None, None))["to_act"]
    token = game["tokens"][acting[0] if acting else 0]
    return token, service.reads.legal_moves(game["id"], service.identity.viewer(game["id"], token))[
        "moves"
    ] if acting else []


def credential(data, game: dict, seat_token: str) -> dict:
    choice = data.draw(
        st.sampled_from(["integrator", "integrator", "seat", "seat", "other seat", "none", "garbage"]),
        label="credential",
    )
    if choice == "integrator":
        return {"Authorization": f"Bearer {API_KEY}"}
    if choice == "seat":
        return {"Authorization": f"Bearer {seat_token}"}
    if choice == "other seat":
        return {"Authorization": f"Bearer {pick(game['tokens'], data.draw(st.integers(0, 5), label='token'))}"}
    if choice == "garbage":
        return {"Authorization": data.draw(st.one_of(HEADER, HEADER.map(lambda v: "Bearer " + v)), label="auth")}
    return {}


def query_string(data) -> str:
    pairs = data.draw(
        st.lists(
            st.tuples(st.one_of(st.sampled_from(QUERY_KEYS), TEXT), st.one_of(TEXT, NUMBERS.map(str))), max_size=4
        ),
        label="query",
    )
    out = []
    for k, v in pairs:
        if k == "wait":  # a long-poll of up to 30 s would only eat the time budget
            try:
                seconds = float(v)
            except ValueError:
                seconds = math.nan
            if math.isfinite(seconds) and seconds > 0.05:
                v = "0.05"
        out.append((k, v))
    return urlencode(out, quote_via=quote, errors="surrogatepass")


def routes(app) -> list[tuple[str, str]]:
    return sorted(
        (method, rule.rule) for rule in app.url_map.iter_rules() for method in rule.methods - {"HEAD", "OPTIONS"}
    )


def check(response, service, label: str) -> None:
    status = response.status_code
    if status == 503:
        try:
            alive = service.redis.ping()
        except Exception:  # noqa: BLE001 - Redis really down: 503 is the right answer
            alive = False
        assert not alive, f"{label}: 503 while Redis answers: {response.get_data(as_text=True)[:300]}"
    else:
        assert status < 500, f"{label}: {status} {response.get_data(as_text=True)[:300]}"
    if status >= 400:
        assert response.mimetype == PROBLEM, f"{label}: error {status} served as {response.mimetype}"
        problem = response.get_json()
        assert {"type", "title", "status", "detail"} <= set(problem), (label, problem)
        assert problem["status"] == status and isinstance(problem["detail"], str) and problem["detail"], problem


def fuzz(client, world: dict, method: str, rule: str, tried: Counter) -> None:
    """Hostile requests to one route, each checked by :func:`check`."""
    service = world["service"]
    args = _ARG.findall(rule)
    sound = templates(world, method, rule)
    # mostly sound bodies with one hostile member where the route has a body, to get past the schema
    kinds = (
        ["none", "sound", "sound", "mutated", "mutated", "mutated", "any", "raw"]
        if sound
        else ["none", "any", "any", "raw"]
        if method == "POST"
        else ["none", "none", "none", "any", "raw"]
    )

    @given(data=st.data())
    @settings(
        max_examples=PER_BODY_ROUTE if sound else PER_ROUTE,
        deadline=None,
        database=None,
        derandomize=True,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    def run(data):
        values = {name: data.draw(path_value(world, conv, name), label=name) for conv, name in args}
        path = _ARG.sub(lambda m: values[m.group(2)], rule)
        game = next((g for g in world["games"] if g["id"] == values.get("game_id")), None) or data.draw(
            st.sampled_from(world["games"]), label="token's game"
        )
        seat_token, legal = seat_to_act(world, game)
        headers = credential(data, game, seat_token)
        bodies = (legal or sound) if rule.endswith("/moves") else sound
        for name in ("If-Match", "If-None-Match", "Idempotency-Key", "Last-Event-ID"):
            if data.draw(st.integers(0, 3), label=f"send {name}") == 0:
                headers[name] = data.draw(HEADER, label=name)
        kind = data.draw(st.sampled_from(kinds), label="body")
        body = {
            "none": lambda: None,
            "sound": lambda: _dumps(pick(bodies, data.draw(st.integers(0, 2**16), label="sound"))),
            "mutated": lambda: _dumps(
                mutate(
                    pick(bodies, data.draw(st.integers(0, 2**16), label="sound")), data.draw(MUTATION, label="mutation")
                )
            ),
            "any": lambda: _dumps(data.draw(JSON, label="json")),
            "raw": lambda: data.draw(st.sampled_from(RAW_BODIES), label="raw"),
        }[kind]()
        if body is not None:
            headers["Content-Type"] = data.draw(
                st.sampled_from(["application/json", "application/json", "application/problem+json"]), label="type"
            )
        query = query_string(data)
        url = f"{path}?{query}" if query else path
        response = client.open(url, method=method, headers=headers, data=body)
        try:
            if response.mimetype == "text/event-stream":
                next(response.iter_encoded(), None)  # the stream opened; closing it frees its slot
            check(response, service, f"{method} {url[:200]} ({kind} body)")
        finally:
            response.close()
        tried[(method, rule)] += 1

    run()


def test_no_route_answers_hostile_input_with_a_500(app, client, world):
    tried: Counter = Counter()
    started = time.monotonic()
    table = routes(app)
    assert len(table) >= 30 and ("POST", "/games") in table, table
    for method, rule in table:
        fuzz(client, world, method, rule, tried)
    missing = [r for r in table if not tried[r]]
    assert not missing, f"routes never tried: {missing}"
    total = sum(tried.values())
    print(f"\n{total} requests over {len(table)} routes in {time.monotonic() - started:.1f}s")
