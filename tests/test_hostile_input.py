"""Hostile input at the edge: each answer is a 4xx application/problem+json
that names what was wrong, and nothing is stored.

Lone surrogates, integers beyond 64 bits, non-finite numbers, out-of-range
numbers in adjudications, malformed If-Match and Authorization headers and
JSON bodies sent chunked past the size limit.  Each of these once reached
the store or the response encoder (which cannot write them) and came back
as a 500.
"""

from __future__ import annotations

import io
import json

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.core.errors import ProblemError
from service.core.keys import KeyStore
from service.web.app import BadJSON, strict_loads

from .conftest import API_KEY, bearer
from .helpers import create, tokens

PROBLEM = "application/problem+json"
SURROGATE = "\ud800"  # json.dumps writes it as the escape \ud800, as a hostile client would
LIMIT = 64 * 1024
PLAYERS = ["ana", "bea", "carl", "dani"]
TOURNAMENT = {
    "name": "open",
    "game": "dalmuti",
    "players": PLAYERS,
    "format": "round_robin",
    "table_size": {"min": 4},
    "options": {"hands": 1},
}


def problem(r, status: int, *mentions: str) -> dict:
    assert r.status_code == status, (r.status_code, r.get_data(as_text=True)[:300])
    assert r.mimetype == PROBLEM, r.mimetype
    body = r.get_json()
    assert body["status"] == status and body["detail"], body
    for word in mentions:
        assert word in body["detail"], (word, body["detail"])
    return body


def post_raw(client, path: str, raw: str | bytes, headers: dict):
    data = raw.encode() if isinstance(raw, str) else raw
    return client.post(path, data=data, headers={**headers, "Content-Type": "application/json"})


def head(client, integrator, gid: str) -> tuple:
    audit = client.get(f"/games/{gid}/audit", headers=integrator).get_json()
    return audit["version"], audit["head_hash"]


def stored(client, integrator, gid: str) -> tuple:
    """The game's log, and how many games, tournaments, keys and webhooks there are."""
    return (
        head(client, integrator, gid),
        client.get("/games", headers=integrator).get_json()["total"],
        client.get("/tournaments", headers=integrator).get_json()["total"],
        len(client.get("/keys", headers=integrator).get_json()),
        len(client.get("/webhooks", headers=integrator).get_json()),
    )


@pytest.fixture()
def game(client, integrator):
    return create(client, integrator, "dalmuti", PLAYERS, {"hands": 1, "allow_joining": True})


def seat_to_act(client, created) -> tuple[int, dict]:
    seat = client.get(f"/games/{created['id']}").get_json()["to_act"][0]
    return seat, bearer(tokens(created)[seat])


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/games", {"game": "dalmuti", "players": ["ana", SURROGATE, "carl", "dani"]}, "players[1]"),
        ("/games", {"game": "dalm" + SURROGATE, "players": PLAYERS}, "game"),
        ("/games", {"game": "dalmuti", "players": PLAYERS, "options": {SURROGATE: 1}}, "options"),
        ("/games/{gid}/notes", {"text": "see " + SURROGATE}, "text"),
        ("/games/{gid}/freeze", {"reason": SURROGATE + " disconnect"}, "reason"),
        ("/games/{gid}/adjudications", {"action": "void", "reason": SURROGATE}, "reason"),
        ("/games/{gid}/players", {"player": "flor" + SURROGATE}, "player"),
        ("/keys", {"name": "club" + SURROGATE, "scopes": ["games"]}, "name"),
        ("/tournaments", {**TOURNAMENT, "name": "open" + SURROGATE}, "name"),
        ("/tournaments", {**TOURNAMENT, "players": PLAYERS[:3] + ["dani" + SURROGATE]}, "players[3]"),
        ("/webhooks", {"url": "https://example.org/" + SURROGATE}, "url"),
    ],
)
def test_a_lone_surrogate_anywhere_in_a_body_is_a_400_naming_the_field(client, integrator, game, path, body, field):
    gid = game["id"]
    before = stored(client, integrator, gid)
    r = post_raw(client, path.format(gid=gid), json.dumps(body), integrator)
    detail = problem(r, 400, field, "surrogate")["detail"]
    assert "\ud800" not in detail
    assert stored(client, integrator, gid) == before


def test_an_escaped_surrogate_pair_is_text_but_either_half_alone_is_a_400(client, integrator):
    """The pair \\ud83c\\udca1 is one character (U+1F0A1); each half alone is no character at all."""
    body = '{"game": "dalmuti", "players": ["%s", "b", "c", "d"]}'
    r = post_raw(client, "/games", body % "\\ud83c\\udca1", integrator)
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["seats"][0]["player"] == "\U0001f0a1"
    for half in ("\\ud83c", "\\udca1", "\\udca1\\ud83c"):
        problem(post_raw(client, "/games", body % half, integrator), 400, "players[0]", "surrogate")


@pytest.mark.parametrize("number", [str(2**63), str(-(2**63) - 1), "1" + "0" * 30, "9" * 5000])
def test_an_integer_beyond_64_bits_in_a_move_with_an_idempotency_key_is_a_400(client, integrator, game, number):
    _, auth = seat_to_act(client, game)
    before = head(client, integrator, game["id"])
    r = post_raw(
        client,
        f"/games/{game['id']}/moves",
        f'{{"type": "play", "cards": [{number}]}}',
        {**auth, "Idempotency-Key": "retry-1"},
    )
    problem(r, 400, "cards[0]", "64-bit")
    assert head(client, integrator, game["id"]) == before
    # the same key still works for a sound move afterwards: nothing was remembered for it
    lm = client.get(f"/games/{game['id']}/legal-moves", headers=auth).get_json()["moves"]
    r = client.post(f"/games/{game['id']}/moves", json=lm[0], headers={**auth, "Idempotency-Key": "retry-1"})
    assert r.status_code == 201, r.get_json()
    # the largest 64-bit integers are numbers like any other: the rules answer them
    _, auth = seat_to_act(client, game)
    for edge in (2**63 - 1, -(2**63)):
        r = post_raw(
            client,
            f"/games/{game['id']}/moves",
            f'{{"type": "play", "cards": [{edge}]}}',
            {**auth, "Idempotency-Key": f"edge-{edge}"},
        )
        assert r.status_code in (409, 422) and r.mimetype == PROBLEM, r.get_json()


@pytest.mark.parametrize("raw", ["1e400", "-1e400", "NaN", "Infinity", "-Infinity"])
def test_a_non_finite_number_is_a_400(client, integrator, game, raw):
    r = post_raw(
        client,
        f"/games/{game['id']}/adjudications",
        f'{{"action": "award", "reason": "r", "scores": [{raw}, 0, 0, 0]}}',
        integrator,
    )
    problem(r, 400, "scores[0]", "finite")


def test_if_match_takes_only_ascii_digits_of_sane_length(client, integrator, game):
    """'\u00b2' (superscript two) is a digit to str.isdigit but not to int; a WSGI header carries
    raw bytes as Latin-1, so the byte 0xB2 arrives as '\u00b2' (and the UTF-8 of '\u0663' as two
    Latin-1 characters)."""
    _, auth = seat_to_act(client, game)
    gid = game["id"]
    before = head(client, integrator, gid)
    version = before[0]
    bad = ["9" * 5000, "\u00b2", "\u0663".encode().decode("latin-1"), "1" * 19, "", "W/", "1 2", "0x1", "-1"]
    bad += [f'"{version}", "{version + 1}"', ",", " , ", '"', '""', "**", f'W/"{version}", "{version}"']
    bad += [f"W/{version}", f'W/"{version}', 'W/""']  # a weak tag is quoted too
    for value in bad:
        r = post_raw(client, f"/games/{gid}/moves", '{"type": "pass"}', {**auth, "If-Match": value})
        problem(r, 400, "If-Match", "ASCII digits")
    assert head(client, integrator, gid) == before
    # an entity tag is quoted (RFC 9110, 8.8.3): the bare number is no tag, and the detail shows it quoted
    r = post_raw(client, f"/games/{gid}/moves", '{"type": "pass"}', {**auth, "If-Match": str(version)})
    problem(r, 400, "If-Match", f'"{version}"')
    r = post_raw(client, f"/games/{gid}/moves", '{"type": "pass"}', {**auth, "If-Match": '"999"'})
    assert problem(r, 412, "999")["current_version"] == version
    # compared strongly: a tag with leading zeros is no tag any response gives, even for the current version
    for padded in (f'"0{version}"', f'"00{version}"'):
        r = post_raw(client, f"/games/{gid}/moves", '{"type": "pass"}', {**auth, "If-Match": padded})
        assert problem(r, 412, "leading zeros")["type"].endswith("precondition-failed")
    move = client.get(f"/games/{gid}/legal-moves", headers=auth).get_json()["moves"][0]
    # If-Match compares strongly (RFC 9110): a weak tag never matches, even the current version's
    for weak in (f'W/"{version}"', f'w/"{version}"'):
        r = client.post(f"/games/{gid}/moves", json=move, headers={**auth, "If-Match": weak})
        assert problem(r, 412, "weak")["type"].endswith("precondition-failed")
    assert head(client, integrator, gid) == before
    r = client.post(f"/games/{gid}/moves", json=move, headers={**auth, "If-Match": "*"})  # any version
    assert r.status_code == 201, r.get_json()
    # a list's empty elements are no tags (RFC 9110, 5.6.1): one tag among them is that tag
    _, auth = seat_to_act(client, game)
    move = client.get(f"/games/{gid}/legal-moves", headers=auth).get_json()["moves"][0]
    now = r.get_json()["version"]
    r = client.post(f"/games/{gid}/moves", json=move, headers={**auth, "If-Match": f' , "{now - 1}",'})
    assert problem(r, 412, str(now - 1))["current_version"] == now
    r = client.post(f"/games/{gid}/moves", json=move, headers={**auth, "If-Match": f'"{now}", '})
    assert r.status_code == 201, r.get_json()


def test_a_body_with_a_content_coding_is_a_415_naming_it_and_changes_nothing(client, integrator, game):
    """The service reads bodies as sent: a gzip body is no JSON to read, and a plain body under a header
    that calls it gzip is not taken at its word either way (the move's fast path included)."""
    import gzip

    _, auth = seat_to_act(client, game)
    gid = game["id"]
    before = head(client, integrator, gid)
    move = client.get(f"/games/{gid}/legal-moves", headers=auth).get_json()["moves"][0]
    plain = json.dumps(move).encode()
    for body, coding in ((gzip.compress(plain), "gzip"), (plain, "gzip"), (plain, "br, gzip")):
        r = post_raw(client, f"/games/{gid}/moves", body, {**auth, "Content-Encoding": coding})
        problem(r, 415, f"Content-Encoding {coding}")
        assert r.headers["Accept-Encoding"] == "identity"
    creation = json.dumps({"game": "dalmuti", "players": PLAYERS}).encode()
    r = post_raw(client, "/games", gzip.compress(creation), {**integrator, "Content-Encoding": "gzip"})
    problem(r, 415, "Content-Encoding gzip")
    assert head(client, integrator, gid) == before
    r = post_raw(client, f"/games/{gid}/moves", plain, {**auth, "Content-Encoding": "identity"})
    assert r.status_code == 201, r.get_json()


@pytest.mark.parametrize(("hand", "status"), [(10**30, 400), (2**63 - 1, 422), (10**9, 422), (-1, 422)])
def test_an_adjudicated_hand_is_within_what_a_game_can_have(client, integrator, game, hand, status):
    before = head(client, integrator, game["id"])
    r = post_raw(
        client,
        f"/games/{game['id']}/adjudications",
        f'{{"action": "void", "reason": "clock fault", "hand": {hand}}}',
        integrator,
    )
    problem(r, status, "hand", *(["64-bit"] if status == 400 else []))
    assert head(client, integrator, game["id"]) == before
    r = client.post(
        f"/games/{game['id']}/adjudications", json={"action": "void", "reason": "r", "hand": 3}, headers=integrator
    )
    assert r.status_code == 201, r.get_json()


def test_scores_stay_finite_through_awards_and_corrections(client, integrator, game):
    gid = game["id"]
    for body in (
        {"action": "award", "reason": "r", "scores": [1e308, 0, 0, 0]},
        {"action": "award", "reason": "r", "scores": [-1e13, 0, 0, 0]},
    ):
        problem(client.post(f"/games/{gid}/adjudications", json=body, headers=integrator), 422, "scores")
    r = client.post(
        f"/games/{gid}/adjudications",
        json={"action": "award", "reason": "r", "scores": [1e12, 0, 0, 0]},
        headers=integrator,
    )
    assert r.status_code == 201, r.get_json()
    before = head(client, integrator, gid)
    problem(
        client.post(
            f"/games/{gid}/adjudications",
            json={"action": "correct_score", "reason": "r", "deltas": [1e308, 0, 0, 0]},
            headers=integrator,
        ),
        422,
        "deltas",
    )
    assert head(client, integrator, gid) == before
    r = client.post(
        f"/games/{gid}/adjudications",
        json={"action": "correct_score", "reason": "r", "deltas": [1e12, -5, 0, 0]},
        headers=integrator,
    )
    assert r.status_code == 201, r.get_json()
    view = client.get(f"/games/{gid}", headers=integrator)
    assert view.status_code == 200 and view.get_json()["result"]["scores"][:2] == [2e12, -5]


def test_the_application_keeps_corrected_scores_finite(client, integrator, service, game):
    """Past the HTTP schema too (a CLI or worker calling the application): a correction that would make
    a score infinite is refused, and nothing is appended."""
    reviewer = service.identity.require(API_KEY, "review")
    gid = game["id"]
    before = head(client, integrator, gid)
    for body in (
        {"action": "award", "reason": "r", "scores": [1e308, 0, 0, 0]},  # whole, but past any exact integer
        {"action": "award", "reason": "r", "scores": [float("inf"), 0, 0, 0]},
    ):
        with pytest.raises(ProblemError) as caught:
            service.records.review(gid, reviewer, "adjudicate", body)
        assert caught.value.status == 422 and "finite" in caught.value.detail
        assert head(client, integrator, gid) == before
    service.records.review(gid, reviewer, "adjudicate", {"action": "award", "reason": "r", "scores": [2**53, 0, 0, 0]})
    before = head(client, integrator, gid)
    for deltas in ([1e308, 0, 0, 0], [float("inf"), 0, 0, 0]):
        with pytest.raises(ProblemError) as caught:
            service.records.review(
                gid, reviewer, "adjudicate", {"action": "correct_score", "reason": "r", "deltas": deltas}
            )
        assert caught.value.status == 422 and "finite" in caught.value.detail
    assert head(client, integrator, gid) == before


def chunked(client, path: str, body: bytes, headers: dict):
    """A body without Content-Length, as gunicorn hands over a Transfer-Encoding: chunked one: a stream
    the server has de-chunked and terminated (wsgi.input_terminated)."""
    return client.post(
        path,
        input_stream=io.BytesIO(body),
        headers={**headers, "Content-Type": "application/json", "Transfer-Encoding": "chunked"},
        environ_overrides={"wsgi.input_terminated": True},
    )


def game_body(size: int) -> bytes:
    body = json.dumps({"game": "dalmuti", "players": PLAYERS, "options": {"hands": 1}}).encode()
    return body + b" " * (size - len(body))  # still one valid JSON object: only its tail is over the limit


def test_a_chunked_body_over_the_limit_is_a_413_not_truncated(client, integrator):
    total = client.get("/games", headers=integrator).get_json()["total"]
    for size in (LIMIT + 1, LIMIT + 4096, 4 * LIMIT):
        problem(chunked(client, "/games", game_body(size), integrator), 413)
    assert client.get("/games", headers=integrator).get_json()["total"] == total
    for size in (300, LIMIT):  # up to the limit, read whole
        assert chunked(client, "/games", game_body(size), integrator).status_code == 201
    assert client.get("/games", headers=integrator).get_json()["total"] == total + 2


@pytest.mark.parametrize("query", ["after=" + "9" * 30, "after=1000000001"])
def test_huge_numbers_in_a_query_are_a_422(client, integrator, game, query):
    problem(client.get(f"/games/{game['id']}/events?{query}", headers=integrator), 422)


@pytest.mark.parametrize("path", ["/games?offset=" + "9" * 30, "/tournaments?offset=" + "9" * 30])
def test_huge_offsets_are_a_422(client, integrator, path):
    problem(client.get(path, headers=integrator), 422, "offset")


@pytest.mark.parametrize("credential", ["nk_\u00e9t\u00e9", "x" * 600, "a\tb"])
def test_a_credential_is_visible_ascii(client, game, credential):
    r = client.get(f"/games/{game['id']}", headers={"Authorization": f"Bearer {credential}"})
    problem(r, 401, "ASCII")


@pytest.mark.parametrize("name", ["club\x00ladder", "tab\there", "\u202e" * 3])
def test_a_key_name_is_printable(client, integrator, redis_client, name):
    keys = client.get("/keys", headers=integrator).get_json()
    problem(client.post("/keys", json={"name": name, "scopes": ["games"]}, headers=integrator), 422, "name")
    with pytest.raises(ValueError, match="printable"):
        KeyStore(redis_client).create(name, ["games"])
    with pytest.raises(ValueError, match="printable"):
        KeyStore(redis_client).create("club" + SURROGATE, ["games"])  # as a command line may pass it
    assert client.get("/keys", headers=integrator).get_json() == keys


@pytest.mark.parametrize(
    ("raw", "mentions"),
    [
        ('{"a": "\\udc00"}', "a: a string holds a lone surrogate"),
        ('{"a": [1, {"\\ud800x": 0}]}', "a[1]: a member name holds a lone surrogate"),
        (f"[{2**64}]", "[0]: the integer is outside the 64-bit range"),
        ('{"a": {"b": [0, 1e999]}}', "a.b[1]: the number is too large"),
        ('{"a": NaN}', "a: NaN is not JSON"),
        ("-Infinity", "the body: -Infinity is not JSON"),
        (b'{"a": "\xff"}', "UTF-8"),
        ('{"a": ', "not valid JSON"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ],
)
def test_the_strict_parser_names_what_it_refuses(raw, mentions):
    with pytest.raises(BadJSON) as caught:
        strict_loads(raw)
    assert mentions in str(caught.value)
    # and reads everything else as Python's own JSON does
    sound = f'{{"a": [1, -2, 2.5, 1e308, {2**63 - 1}, {-(2**63)}, "\\u00f1\\ud83c\\udca1\\u0000", null, true, {{}}]}}'
    assert strict_loads(sound) == json.loads(sound) == strict_loads(sound.encode())


_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=20,
)


def _nested(depth: int, inner: str = "0") -> str:
    return "[" * depth + inner + "]" * depth


@settings(max_examples=300, deadline=None)
@given(_JSON)
def test_the_fast_read_of_a_plain_body_is_the_strict_parse(value):
    """A body orjson reads with nothing to refuse is taken as orjson read it; the answer, or the refusal
    and its words, is the one of the full parse (json.loads with the strict hooks) for any body."""
    raw = json.dumps(value)
    for text in (raw, _nested(60, raw), _nested(63, raw), _nested(64, raw), _nested(65, raw)):
        expected = _strict_slow(text)
        try:
            got = strict_loads(text)
        except BadJSON as exc:
            got = ("refused", str(exc))
        assert got == expected
        if not isinstance(expected, tuple):
            assert json.dumps(got) == json.dumps(expected)  # the same numbers, to the type


def _strict_slow(text: str):
    from service.web import bodies

    plain = bodies._plain
    bodies._plain = lambda _value: False  # the full parse, always
    try:
        return strict_loads(text)
    except BadJSON as exc:
        return ("refused", str(exc))
    finally:
        bodies._plain = plain


def test_the_fast_read_leaves_every_refusal_to_the_full_parse():
    from service.web import bodies

    for raw in (f"[{2**64}]", f"[{-(2**63) - 1}]", "[1.5e-400]", "[1e308]", _nested(65), '{"a": 2.0}'):
        assert not bodies._plain(orjson.loads(raw)), raw
    for raw in (f"[{2**63 - 1}]", f"[{-(2**63)}]", _nested(64), '{"type": "play", "cards": ["7S"]}', "[true, null]"):
        assert bodies._plain(orjson.loads(raw)), raw
