"""The replay viewer end to end in headless Chromium (Debian's package, driven by Playwright).

For each game type a finished game is opened at /replay/{id}; the slider is
moved, the seats and cards must be drawn as the chosen viewer may see them,
the live mode must follow new events, and a screenshot must not be blank.
"""

from __future__ import annotations

import io
import os
import random
import shutil
import threading
import time

import pytest
import requests

from events.envelope import loads
from service.core.identity import Viewer

from .conftest import API_KEY
from .live import live_server  # noqa: F401 - fixture

CHROMIUM = os.environ.get("NAIPES_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
GAMES = {
    "dalmuti": (["ana", "bea", "carl", "dani"], {"hands": 1}),
    "cego": (["ana", "bea", "carl"], {"rounds": 1}),
    "muerte": (["ana", "bea", "carl", "dani", "eva", "flor"], {}),
    "onion": (["ana", "bea", "carl"], {"rounds": 2}),
}
DOCS_SCREENSHOT = os.environ.get("NAIPES_VIEWER_SCREENSHOT")  # write the dalmuti screenshot there (docs)

if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
    pytest.skip(
        f"no Chromium at {CHROMIUM}: install Debian's 'chromium' package (./naipes test does as root)",
        allow_module_level=True,
    )
playwright_api = pytest.importorskip("playwright.sync_api")


def play(service, game: str, players: list[str], options: dict, seed: int, stop_at: int | None = None) -> dict:
    g = service.games.create_game(game, players, options)
    rng = random.Random(seed)
    while True:
        table = service.tables.table(g["id"])
        view = service.reads.state_view(g["id"], Viewer("spectator"), table)
        if view["finished"] or (stop_at is not None and view["version"] >= stop_at):
            return g
        seat = rng.choice(view["to_act"])
        moves = service.reads.legal_moves(g["id"], Viewer("seat", seat=seat))["moves"]
        service.moves.move(g["id"], seat, rng.choice(moves))


@pytest.fixture(scope="module")
def browser():
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium"), args=ARGS, headless=True
        )
        yield b
        b.close()


def distinct_colours(png: bytes) -> int:
    from PIL import Image

    img = Image.open(io.BytesIO(png)).convert("RGB")
    img.thumbnail((400, 400))
    pixels = img.get_flattened_data() if hasattr(img, "get_flattened_data") else img.getdata()
    return len(set(pixels))


def rendered(page, version: int, viewer: str | None = None) -> None:
    """Wait until the page shows ``version`` (as ``viewer``: spectator, integrator, seat<n>)."""
    extra = f'[data-viewer="{viewer}"]' if viewer else ""
    page.wait_for_selector(f'body[data-rendered="{version}"]{extra}', timeout=10000)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_viewer_draws_every_version_of_a_finished_game(browser, live_server, service, game, tmp_path):
    players, options = GAMES[game]
    g = play(service, game, players, options, seed=len(game))
    head = service.store.head(g["id"])[0]
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        # a spectator first: seats drawn, hands hidden (card backs only)
        page.goto(f"{live_server.url}/replay/{g['id']}")
        rendered(page, head, "spectator")
        assert page.locator("#seats .seat").count() == len(players)
        names = page.locator("#seats .seat .name").all_inner_texts()
        assert names == players
        assert page.locator("#result-body tr.winner").count() >= 1
        assert page.locator("#version-label").inner_text() == f"version {head} / {head}"

        # the integrator key, pasted in the page: every hand is visible at an early version
        page.fill("#token", API_KEY)
        page.click("#use-token")
        rendered(page, head, "integrator")
        assert page.evaluate("sessionStorage.getItem('naipes.token')") == API_KEY
        # the view's viewer.full: the page names the reviewer's sight, not the key's kind
        assert page.locator("#viewer-kind").inner_text() == "viewing as reviewer: every hand shown"
        early = min(head, 5)
        page.locator("#slider").fill(str(early))
        rendered(page, early)
        assert page.locator("#version-label").inner_text() == f"version {early} / {head}"
        review = service.reads.replay(g["id"], Viewer("integrator", scopes=frozenset({"review"})), early)
        hands = review["state"].get("hands") or []
        shown = page.locator("#seats .seat .hand .card:not(.back)").count()
        assert shown == sum(len(h) for h in hands) and shown > 0, (shown, hands)

        # step buttons move one version at a time
        page.click("#next")
        rendered(page, early + 1)
        page.click("#prev")
        rendered(page, early)
        page.click("#last")
        rendered(page, head)

        # a seat's token: its own cards only, the others face down
        page.fill("#token", g["seats"][1]["token"])
        page.click("#use-token")
        rendered(page, head, "seat1")
        page.locator("#slider").fill(str(early))
        rendered(page, early)
        seat_view = service.reads.replay(g["id"], Viewer("seat", seat=1), early)
        own = page.locator('#seats .seat[data-seat="1"] .hand .card:not(.back)').count()
        others = page.locator('#seats .seat:not([data-seat="1"]) .hand .card:not(.back)').count()
        assert own == len(seat_view["state"]["hand"]) and others == 0
        assert page.locator('#seats .seat[data-seat="1"]').get_attribute("class").split().count("me") == 1

        shot = page.screenshot(full_page=True)
        assert distinct_colours(shot) > 30, "the screenshot is blank"
        if DOCS_SCREENSHOT and game == "dalmuti":
            page.fill("#token", API_KEY)
            page.click("#use-token")
            rendered(page, head, "integrator")
            middle = max(1, head // 3)
            page.locator("#slider").fill(str(middle))
            rendered(page, middle)
            page.screenshot(path=DOCS_SCREENSHOT, full_page=True)
        assert not errors, errors
    finally:
        page.close()


def test_viewer_keeps_the_version_on_screen_when_the_viewpoint_changes(browser, live_server, service):
    """A reviewer stepping through a past version who pastes a key, or picks another viewpoint, sees the same
    version from there; the address names the version shown, so a reload or a link opens it."""
    g = play(service, "cego", ["ana", "bea", "carl"], {"rounds": 1}, seed=4)
    head = service.store.head(g["id"])[0]
    early = min(head - 1, 6)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(f"{live_server.url}/replay/{g['id']}")
        rendered(page, head, "spectator")
        assert "version=" not in page.url  # the latest version: none named
        page.locator("#slider").fill(str(early))
        rendered(page, early, "spectator")
        assert f"version={early}" in page.url
        page.fill("#token", API_KEY)
        page.select_option("#as", "reviewer")
        page.click("#use-token")
        rendered(page, early, "integrator")
        assert page.locator("#version-label").inner_text() == f"version {early} / {head}"
        page.click("#next")
        rendered(page, early + 1, "integrator")
        page.click("#forget-token")
        rendered(page, early + 1, "spectator")
        page.reload()
        rendered(page, early + 1, "spectator")
        page.click("#last")
        rendered(page, head)
        assert "version=" not in page.url
        page.fill("#token", g["seats"][0]["token"])
        page.select_option("#as", "")
        page.click("#use-token")
        rendered(page, head, "seat0")  # following the latest version, it stays there
    finally:
        page.close()


def test_viewer_writes_the_events_in_the_language_asked(browser, live_server, service):
    """?lang=es: the event log reads in Spanish (the labels the API writes for Accept-Language: es)."""
    g = play(service, "cego", ["ana", "bea", "carl"], {"rounds": 1}, seed=4)
    head = service.store.head(g["id"])[0]

    def last_label(lang: str) -> str:
        url = f"{live_server.url}/games/{g['id']}/events"
        r = requests.get(url, params={"after": head - 1}, headers={"Accept-Language": lang}, timeout=10)
        return r.json()["events"][-1]["label"]

    spanish, english = last_label("es"), last_label("en")
    assert spanish != english
    shown = "t => [...document.querySelectorAll('#events li .label')].some(e => e.textContent === t)"
    page = browser.new_page(viewport={"width": 1280, "height": 900}, locale="en-US")
    try:
        for query, label in (("?lang=es&live=0", spanish), ("?live=0", english)):
            page.goto(f"{live_server.url}/replay/{g['id']}{query}")
            rendered(page, head)
            page.wait_for_function(shown, arg=label, timeout=10000)
    finally:
        page.close()


def test_viewer_live_mode_follows_the_stream(browser, live_server, service):
    g = play(service, "dalmuti", ["ana", "bea", "carl", "dani"], {"hands": 1}, seed=9, stop_at=10)
    start = service.store.head(g["id"])[0]
    page = browser.new_page(viewport={"width": 1100, "height": 800})
    try:
        page.goto(f"{live_server.url}/replay/{g['id']}")
        rendered(page, start)
        assert page.locator("#live").is_checked()  # an unfinished game opens live
        page.wait_for_function("document.getElementById('live-status').textContent.startsWith('following')")

        def more_moves():
            rng = random.Random(10)
            for _ in range(3):
                view = service.reads.state_view(g["id"], Viewer("spectator"))
                seat = rng.choice(view["to_act"])
                service.moves.move(
                    g["id"], seat, rng.choice(service.reads.legal_moves(g["id"], Viewer("seat", seat=seat))["moves"])
                )
                time.sleep(0.2)

        mover = threading.Thread(target=more_moves)
        mover.start()
        mover.join()
        head = service.store.head(g["id"])[0]
        assert head > start
        rendered(page, head)
        assert page.locator("#version-label").inner_text() == f"version {head} / {head}"
    finally:
        page.close()


def test_viewer_live_mode_reads_the_game_anew_when_its_position_is_past_the_log(browser, live_server, service):
    """The viewer's live stream was sent an event the log no longer has (as after a failover that lost
    the log's end: here the first stream's answer is replaced by one naming an event five versions past
    the head). Resuming from it, the server refuses the position (409 after-past-end), and the viewer
    reads the game anew, follows it from its head and draws the moves that come (before, it asked for
    the same position again every two seconds, for good)."""
    g = play(service, "dalmuti", ["ana", "bea", "carl", "dani"], {"hands": 1}, seed=9, stop_at=10)
    start = service.store.head(g["id"])[0]
    page = browser.new_page(viewport={"width": 1100, "height": 800})
    statuses: list[int] = []
    faked: list[bool] = []

    def lost_end(route):
        if not faked:  # the first stream: one event past the head, then the stream ends
            faked.append(True)
            body = f": naipes event stream\nretry: 2000\n\nid: {start + 5}\nevent: MovePlayed\ndata: {{}}\n\n"
            route.fulfill(status=200, headers={"Content-Type": "text/event-stream"}, body=body)
        else:
            route.continue_()

    page.on("response", lambda r: statuses.append(r.status) if "/stream" in r.url else None)
    page.route("**/games/*/stream", lost_end)
    try:
        page.goto(f"{live_server.url}/replay/{g['id']}")
        page.wait_for_function(
            "document.getElementById('live-status').textContent.startsWith('following')", timeout=15000
        )
        rng = random.Random(11)
        for _ in range(2):
            view = service.reads.state_view(g["id"], Viewer("spectator"))
            seat = rng.choice(view["to_act"])
            moves = service.reads.legal_moves(g["id"], Viewer("seat", seat=seat))["moves"]
            service.moves.move(g["id"], seat, rng.choice(moves))
        head = service.store.head(g["id"])[0]
        rendered(page, head)
        assert page.locator("#version-label").inner_text() == f"version {head} / {head}"
        assert statuses[:2] == [200, 409], statuses
    finally:
        page.close()


def test_viewer_page_of_an_unknown_game_is_a_problem(live_server):
    r = requests.get(f"{live_server.url}/replay/no-such-game", timeout=10)
    assert r.status_code == 404 and r.headers["Content-Type"] == "application/problem+json"
    assets = [
        requests.get(f"{live_server.url}/static/viewer/{name}", timeout=10) for name in ("viewer.js", "viewer.css")
    ]
    assert all(a.status_code == 200 and len(a.content) > 1000 for a in assets)


SCREENSHOTS = os.environ.get("NAIPES_VIEWER_SCREENSHOTS")  # a folder: one screenshot per game
RAW_JSON = ('{"', "[[", '":')
SUIT_GLYPHS = "♠♥♦♣⚔⚚🍷🪙"


def code_map(deck: list[dict]):
    """API value -> card code: a code maps to itself, an older game's id to its code."""
    by_code = {c["code"]: c["code"] for c in deck}
    by_id = {str(c["id"]): c["code"] for c in deck}

    def code(value):
        if isinstance(value, str) and value in by_code:
            return value
        return by_id[str(value)]

    return code


def expected_faces(base: str, game_id: str, version: int, token: str | None, code) -> dict[int, list[str]]:
    """The hands the API shows this viewer at ``version``, seat -> card codes (in order)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    r = requests.get(f"{base}/games/{game_id}/replay", params={"version": version}, headers=headers, timeout=10)
    r.raise_for_status()
    st = r.json()["state"]
    if isinstance(st.get("hands"), list):
        hands = dict(enumerate(st["hands"]))
    elif isinstance(st.get("hand"), list):
        hands = {st["seat"]: st["hand"]}
    else:
        hands = {}
    return {seat: [code(c) for c in cards] for seat, cards in hands.items()}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_viewer_draws_cards_from_the_game_description(browser, live_server, service, game, tmp_path):
    players, options = GAMES[game]
    g = play(service, game, players, options, seed=len(game) + 1)
    head = service.store.head(g["id"])[0]
    deck = requests.get(f"{live_server.url}/game-types/{game}", timeout=10).json()["deck"]
    code = code_map(deck)
    first_dealt = next(
        v
        for v in range(1, head + 1)
        if any(service.reads.replay(g["id"], Viewer("integrator", scopes=frozenset({"review"})), v)["state"]["hands"])
    )
    versions = {"start": first_dealt, "mid": (first_dealt + head) // 2, "end": head}
    viewers = {"reviewer": API_KEY, "seat1": g["seats"][1]["token"], "spectator": None}
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(f"{live_server.url}/static/viewer/viewer.css")  # the origin, for sessionStorage
        for who, token in viewers.items():
            page.evaluate(
                "t => t ? sessionStorage.setItem('naipes.token', t) : sessionStorage.removeItem('naipes.token')", token
            )
            for when, version in versions.items():
                page.goto(f"{live_server.url}/replay/{g['id']}?version={version}&live=0", wait_until="commit")
                rendered(page, version)
                want = expected_faces(live_server.url, g["id"], version, token, code)
                for seat in range(len(players)):
                    shown = page.locator(f'#seats .seat[data-seat="{seat}"] .hand .card[data-code]').evaluate_all(
                        "els => els.map(e => e.dataset.code)"
                    )
                    assert shown == want.get(seat, []), (who, when, seat, shown, want)
                body = page.inner_text("body")
                assert not [s for s in RAW_JSON if s in body], (who, when, body)
                assert not [s for s in SUIT_GLYPHS if s in body], (who, when)
                assert page.evaluate("document.documentElement.scrollWidth") <= 1280, (who, when)
                faces = page.locator(".card[data-code]")
                assert page.locator(".card.suited svg.suit").count() == page.locator(".card.suited").count()
                if faces.count():
                    assert faces.first.get_attribute("title")
                if who == "reviewer":
                    shot = page.screenshot(path=str(tmp_path / f"{game}-{when}.png"), full_page=True)
                    assert distinct_colours(shot) > 30
                    if SCREENSHOTS and when == "mid":
                        os.makedirs(SCREENSHOTS, exist_ok=True)
                        shutil.copy(tmp_path / f"{game}-{when}.png", os.path.join(SCREENSHOTS, f"{game}.png"))
        assert not errors, errors
    finally:
        page.close()


def save_shot(page, tmp_path, name: str) -> bytes:
    """A screenshot kept with the test's files, and in $NAIPES_VIEWER_SCREENSHOTS when set."""
    path = tmp_path / f"{name}.png"
    shot = page.screenshot(path=str(path), full_page=True)
    if SCREENSHOTS:
        os.makedirs(SCREENSHOTS, exist_ok=True)
        shutil.copy(path, os.path.join(SCREENSHOTS, f"{name}.png"))
    return shot


def open_at(page, base: str, game_id: str, version: int, token: str | None = None, as_: str | None = None) -> None:
    page.goto(f"{base}/static/viewer/viewer.css")  # the origin, for sessionStorage
    page.evaluate(
        "([t, a]) => { t ? sessionStorage.setItem('naipes.token', t) : sessionStorage.removeItem('naipes.token');"
        " a ? sessionStorage.setItem('naipes.as', a) : sessionStorage.removeItem('naipes.as'); }",
        [token, as_],
    )
    page.goto(f"{base}/replay/{game_id}?version={version}&live=0", wait_until="commit")
    rendered(page, version)


def chart_points(page) -> dict[int, list[str]]:
    """seat -> the titles of its points on the score chart."""
    page.wait_for_selector("#score-chart")
    return page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('#score-chart g.series')].map(
            g => [g.dataset.seat, [...g.querySelectorAll('circle.point')].map(c => c.textContent)]))"""
    )


def test_viewer_charts_the_scores_of_every_hand(browser, live_server, service, tmp_path):
    players = ["ana", "bea", "carl", "dani"]
    g = play(service, "dalmuti", players, {"hands": 2}, seed=21)
    head = service.store.head(g["id"])[0]
    ends = [e for e in service.reads.events(g["id"], Viewer("spectator"))["events"] if e["type"] == "HandEnded"]
    assert len(ends) == 2
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        for version, played in ((ends[0]["version"] - 1, 0), (ends[0]["version"], 1), (head, 2)):
            open_at(page, live_server.url, g["id"], version)
            if not played:
                page.wait_for_selector("#chart p")
                assert page.locator("#score-chart").count() == 0
                continue
            points = chart_points(page)
            assert sorted(points) == [str(s) for s in range(len(players))]  # one series per seat
            for seat, titles in points.items():
                # as many points as hands played, each the seat's total after that hand
                want = [
                    f"{players[int(seat)]}: {e['data']['scores'][int(seat)]} after hand {i + 1}"
                    for i, e in enumerate(ends[:played])
                ]
                assert titles == want, (version, seat, titles, want)
            assert page.get_attribute("#score-chart", "data-points") == str(played)
        assert page.evaluate("document.documentElement.scrollWidth") <= 1280
        save_shot(page, tmp_path, "dalmuti-chart")
    finally:
        page.close()


def showdown_game(service):
    """An Onion game whose first round ends at the Showdown, and the version of that RoundEnded."""
    for seed in range(40):
        g = play(service, "onion", ["ana", "bea", "carl"], {"rounds": 1}, seed=seed)
        for e in service.reads.events(g["id"], Viewer("spectator"))["events"]:
            if e["type"] == "RoundEnded" and e["data"]["showdown"]:
                return g, e
    pytest.fail("no seed reached a Showdown")


def test_viewer_lays_out_the_onion_showdown(browser, live_server, service, tmp_path):
    g, ended = showdown_game(service)
    deck = requests.get(f"{live_server.url}/game-types/onion", timeout=10).json()["deck"]
    code = code_map(deck)
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        open_at(page, live_server.url, g["id"], ended["version"])
        showdown = ended["data"]["showdown"]
        rows = page.locator("#focus .showdown .sd-hand")
        assert rows.count() == len(showdown)
        for seat, arrangement in showdown.items():
            row = page.locator(f'#focus .showdown .sd-hand[data-seat="{seat}"]')
            assert row.locator(".sd-who").inner_text().startswith(["ana", "bea", "carl"][int(seat)])
            groups = row.locator(".grouping:not(.unused)")
            assert groups.count() == len(arrangement["groupings"])
            for i, grouping in enumerate(arrangement["groupings"]):
                box = groups.nth(i)
                name = box.locator(".g-name").inner_text()
                assert name.replace("-", " ").replace(" ", "_") == grouping["kind"], (name, grouping["kind"])
                shown = box.locator(".card[data-code]").evaluate_all("els => els.map(e => e.dataset.code)")
                assert shown == [code(c) for c in grouping["cards"]]
                assert box.locator(".card.suited svg.suit").count() == box.locator(".card.suited").count()
            unused = row.locator(".grouping.unused .card[data-code]").evaluate_all(
                "els => els.map(e => e.dataset.code)"
            )
            assert unused == [code(c) for c in arrangement.get("unused", [])]
        winner = page.locator("#focus .showdown .sd-hand.winner")
        assert winner.count() == 1 and winner.get_attribute("data-seat") == str(ended["data"]["winner"])
        assert "showdown" not in page.inner_text("#table-state").split("last round", 1)[-1].split("\n")[0]
        body = page.inner_text("body")
        assert not [s for s in RAW_JSON if s in body]
        assert page.evaluate("document.documentElement.scrollWidth") <= 1280
        save_shot(page, tmp_path, "onion-showdown")
        # the chart: one point per round played, from the bankrolls at each round's end
        head = service.store.head(g["id"])[0]
        open_at(page, live_server.url, g["id"], head)
        rounds = service.reads.replay(g["id"], Viewer("spectator"), head)["result"]["rounds_played"]
        points = chart_points(page)
        assert len(points) == 3 and all(len(p) == rounds for p in points.values())
    finally:
        page.close()


def test_viewer_draws_a_dalmuti_trick_without_a_card_for_its_rank(browser, live_server, service, tmp_path):
    g = play(service, "dalmuti", ["ana", "bea", "carl", "dani"], {"hands": 1}, seed=4, stop_at=40)
    deck = requests.get(f"{live_server.url}/game-types/dalmuti", timeout=10).json()["deck"]
    code = code_map(deck)
    tricks = [(v, service.reads.replay(g["id"], Viewer("spectator"), v)["state"].get("trick")) for v in range(1, 41)]
    tricks = [(v, t) for v, t in tricks if t]
    assert tricks, "no trick in the first 40 versions"
    version, trick = max(tricks, key=lambda vt: (vt[1]["count"], -vt[0]))  # a set of several cards if any
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        open_at(page, live_server.url, g["id"], version)
        box = page.locator("#focus .panel.trick")
        shown = box.locator(".card").evaluate_all("els => els.map(e => e.dataset.code)")
        assert shown == [code(c) for c in trick["cards"]]  # the played set, and no face for the rank
        rank = box.locator(".trick-rank")
        assert rank.locator(".card").count() == 0
        assert rank.get_attribute("data-rank") == str(trick["rank"])
        assert rank.inner_text().startswith(f"rank {trick['rank']}")
        assert "trick" not in page.locator("#table-state dt").all_inner_texts()
        save_shot(page, tmp_path, "dalmuti-trick")
    finally:
        page.close()


def test_viewer_checks_the_deal_commitments_for_the_reviewer(browser, live_server, service, tmp_path):
    g = play(service, "cego", ["ana", "bea", "carl"], {"rounds": 1}, seed=5)
    head = service.store.head(g["id"])[0]
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        # the page's own SHA-256 agrees with Python's (ASCII and not)
        import hashlib

        open_at(page, live_server.url, g["id"], head)
        for sample in ("", "abc", "salt|[1,2,3]", "x" * 119, "rey de bastos · tréboles · 🂡" * 5):
            assert page.evaluate("s => sha256hex(s)", sample) == hashlib.sha256(sample.encode()).hexdigest()
        open_at(page, live_server.url, g["id"], head, token=API_KEY, as_="reviewer")
        page.wait_for_selector("#deal-badge")
        assert page.get_attribute("#deal-badge", "data-check") == "ok"
        assert page.get_attribute("#chain-badge", "data-check") == "ok"
        assert "checks out" in page.inner_text("#deal-badge")
        # every seat's hand, for the reviewer, at a version with cards dealt
        dealt = next(
            e["version"]
            for e in service.reads.events(g["id"], Viewer("spectator"))["events"]
            if e["type"] == "RoundDealt"
        )
        open_at(page, live_server.url, g["id"], dealt + 1, token=API_KEY, as_="reviewer")
        for seat in range(3):
            assert page.locator(f'#seats .seat[data-seat="{seat}"] .hand .card[data-code]').count() > 0
        page.wait_for_selector("#audit:not([hidden]) .small")
        assert "sealed" in page.inner_text("#audit")  # the deal is not revealed before the round ends
        # a spectator gets no badge
        open_at(page, live_server.url, g["id"], head)
        assert page.locator("#audit").is_hidden()
        save_shot(page, tmp_path, "cego-reviewer")
    finally:
        page.close()


def test_viewer_viewpoints_never_leave_a_blank_page(browser, live_server, service, tmp_path):
    players = ["ana", "bea", "carl", "dani", "eva", "flor"]
    g = play(service, "muerte", players, {}, seed=3, stop_at=12)
    version = service.store.head(g["id"])[0]
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        # a key may look as any seat: that seat's cards only
        open_at(page, live_server.url, g["id"], version, token=API_KEY, as_="seat:2")
        page.wait_for_selector('body[data-viewer="seat2"]')
        assert page.locator('#seats .seat:not([data-seat="2"]) .hand .card[data-code]').count() == 0
        assert page.locator('#seats .seat[data-seat="2"] .hand .card[data-code]').count() > 0
        assert page.locator("#as").input_value() == "seat:2"
        assert page.locator("#error").is_hidden()
        # the identity cards, per team
        teams = page.locator("#focus .teams .team")
        assert teams.count() == 2
        assert sorted(teams.evaluate_all("els => els.map(e => e.dataset.team)")) == ["bastos", "espadas"]
        # a seat's token asking for another seat: the reason, the other viewpoints offered, the page drawn
        open_at(page, live_server.url, g["id"], version, token=g["seats"][1]["token"], as_="seat:4")
        page.wait_for_selector('body[data-viewer="seat1"]')
        error = page.locator("#error")
        assert error.is_visible() and "seat:4" in error.inner_text() and "token" in error.inner_text()
        offered = error.locator("button").evaluate_all("els => els.map(e => e.dataset.as)")
        assert "spectator" in offered and "seat:4" not in offered
        assert page.locator("#seats .seat").count() == len(players)
        save_shot(page, tmp_path, "muerte-refused")
        error.locator('button[data-as="spectator"]').click()
        page.wait_for_selector('body[data-viewer="spectator"]')
        assert page.locator("#error").is_hidden()
        assert page.locator("#seats .seat .hand .card[data-code]").count() == 0
    finally:
        page.close()


def test_viewer_shows_the_timeout_move_to_its_seat_and_the_reviewer_only(browser, live_server, service, tmp_path):
    # Dalmuti's taxes: the move the table makes for a seat out of time (its two best cards) is in the
    # TurnTimedOut's private part; the seat and a reviewer read it in the event list, nobody else
    # two hands: the taxes come before the second; nobody declares a revolution, which would skip them
    g = service.games.create_game("dalmuti", ["ana", "bea", "carl", "dani"], {"hands": 2, "turn_seconds": 600})
    while True:
        table = service.tables.table(g["id"])
        view = service.reads.state_view(g["id"], Viewer("spectator"), table)
        if view["state"]["phase"] == "taxes":
            break
        assert not view["finished"], "the game ended before its taxes"
        seat = view["to_act"][0]
        moves = service.reads.legal_moves(g["id"], Viewer("seat", seat=seat))["moves"]
        service.moves.move(g["id"], seat, next(m for m in moves if m["type"] != "declare_revolution"))
    late = view["to_act"][0]
    assert service.deadlines.enforce_deadline(g["id"], view["version"], late)
    timed = next(
        e
        for e in service.reads.events(g["id"], Viewer("integrator", scopes=frozenset({"review"})))["events"]
        if e["type"] == "TurnTimedOut"
    )
    move = timed["private"][str(late)]["move"]
    other = (late + 1) % 4
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        for token, as_, sees in (
            (g["seats"][late]["token"], None, True),
            (API_KEY, "reviewer", True),
            (None, None, False),
            (g["seats"][other]["token"], None, False),
        ):
            open_at(page, live_server.url, g["id"], timed["version"], token=token, as_=as_)
            item = page.locator(f'#events li[data-version="{timed["version"]}"]')
            item.wait_for()
            shown = item.locator(".timeout-move")
            if sees:
                shown.wait_for()
                words = shown.inner_text()
                assert "bea" in words or g["seats"][late]["player"] in words
                assert "give taxes" in words
                assert sorted(shown.locator(".card[data-code]").evaluate_all("cs => cs.map(c => c.dataset.code)")) == (
                    sorted(move["cards"])
                )
            else:
                assert shown.count() == 0
        save_shot(page, tmp_path, "dalmuti-timeout-move")
    finally:
        page.close()


def test_viewer_says_a_game_was_imported(browser, live_server, service, tmp_path):
    from .test_import_authority import _reseal

    g = play(service, "cego", ["ana", "bea", "carl"], {"rounds": 1, "turn_seconds": 600}, seed=4, stop_at=8)
    auth = {"Authorization": f"Bearer {API_KEY}"}
    lines = requests.get(f"{live_server.url}/games/{g['id']}/export", headers=auth).content.splitlines()
    # the same log under a new id (this store holds the game already): chained anew, unsealed
    new_id = g["id"] + "-imp"
    body = _reseal(loads(lines[0]), [loads(x) for x in lines[1:]], new_id)
    r = requests.post(
        f"{live_server.url}/games/import", data=body, headers={**auth, "Content-Type": "application/x-ndjson"}
    )
    assert r.status_code == 201, r.text
    answer = r.json()
    head = answer["version"]
    g = {"id": new_id}
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        open_at(page, live_server.url, g["id"], head)
        prov = page.locator("#provenance")
        prov.wait_for()
        assert prov.get_attribute("data-kind") == "imported"
        words = prov.inner_text()
        assert "imported" in words and str(answer["provenance"]["imported_version"]) in words
        assert "ClocksRestarted" in page.inner_text("#events")
        save_shot(page, tmp_path, "cego-imported")
    finally:
        page.close()


def test_viewer_lists_the_rulings_with_their_reason_and_authority(browser, live_server, service, tmp_path):
    g = play(service, "muerte", ["ana", "bea", "carl", "dani", "eva", "flor"], {}, seed=3, stop_at=6)
    base = f"{live_server.url}/games/{g['id']}"
    auth = {"Authorization": f"Bearer {API_KEY}"}
    assert requests.post(f"{base}/freeze", json={"reason": "a seat saw cards"}, headers=auth).status_code == 201
    assert requests.post(f"{base}/notes", json={"version": 3, "text": "look here"}, headers=auth).status_code == 201
    scores = [1, 0, 1, 0, 1, 0]
    r = requests.post(
        f"{base}/adjudications", json={"action": "award", "reason": "carl cheated", "scores": scores}, headers=auth
    )
    assert r.status_code == 201
    head = r.json()["version"]
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        open_at(page, live_server.url, g["id"], head)
        rulings = page.locator("#rulings li")
        rulings.first.wait_for()
        assert rulings.count() == 3
        words = page.inner_text("#rulings")
        assert "a seat saw cards" in words and "carl cheated" in words and "look here" in words
        assert "made here" in words
        assert "sets the result" in words  # the seats' played scores are not the result
        # the note is on version 3: shown there; before the rulings none is counted as made
        open_at(page, live_server.url, g["id"], 3)
        page.locator("#rulings").wait_for()
        assert "after this version" in page.inner_text("#rulings")
        assert page.locator("#rulings li.here").count() == 1
        save_shot(page, tmp_path, "muerte-rulings")
    finally:
        page.close()


def test_viewer_names_the_places_a_newcomer_may_take(browser, live_server, service, tmp_path):
    g = play(
        service,
        "dalmuti",
        ["ana", "bea", "carl", "dani", "eva"],
        {"hands": 2, "allow_joining": True},
        seed=2,
        stop_at=6,
    )
    service.games.join(g["id"], "zoe", Viewer("integrator", scopes=frozenset({"admin"})))
    rng = random.Random(2)
    while True:
        view = service.reads.state_view(g["id"], Viewer("spectator"))
        if view["state"]["phase"] == "placing":
            break
        seat = rng.choice(view["to_act"])
        service.moves.move(
            g["id"], seat, rng.choice(service.reads.legal_moves(g["id"], Viewer("seat", seat=seat))["moves"])
        )
    gd = view["to_act"][0]
    moves = service.reads.legal_moves(g["id"], Viewer("seat", seat=gd))["moves"]
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        open_at(page, live_server.url, g["id"], view["version"], token=g["seats"][gd]["token"])
        slots = page.locator("#table-state .slot")
        slots.first.wait_for()
        shown = slots.all_inner_texts()
        # each slot as the legal move's words put it: between two named players
        assert len(shown) == len(moves)
        for text_, move in zip(shown, moves, strict=True):
            between = move["label"].split(" between ", 1)[1]
            assert between in text_, (text_, move["label"])
        save_shot(page, tmp_path, "dalmuti-newcomer-slots")
    finally:
        page.close()
