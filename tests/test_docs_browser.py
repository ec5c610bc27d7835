"""The rendered API docs at /docs, in headless Chromium (Debian's package, driven by Playwright).

The page draws the served contract (/openapi.json) with Swagger UI: its operations are listed, a
move's body shows the typed moves, and every request the page makes stays on the server (the
assets come from the swagger-ui-bundle package, no CDN).
"""

from __future__ import annotations

import os
import shutil
from urllib.parse import urlsplit

import pytest
import requests

from .live import live_server  # noqa: F401 - fixture
from .test_viewer_browser import ARGS, CHROMIUM

if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
    pytest.skip(
        f"no Chromium at {CHROMIUM}: install Debian's 'chromium' package (./naipes test does as root)",
        allow_module_level=True,
    )
playwright_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def browser():
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium"), args=ARGS, headless=True
        )
        yield b
        b.close()


def test_docs_page_lists_the_operations_and_stays_on_the_server(browser, live_server):
    origin = urlsplit(live_server.url)
    requested: list[str] = []
    failed: list[str] = []
    page = browser.new_page()
    page.on("request", lambda r: requested.append(r.url))
    page.on("requestfailed", lambda r: failed.append(r.url))
    page.on("pageerror", lambda e: failed.append(f"page error: {e}"))
    try:
        resp = page.goto(live_server.url + "/docs", wait_until="load")
        assert resp is not None and resp.status == 200
        page.wait_for_selector(".opblock", timeout=30_000)
        moves = page.locator(".opblock-post", has_text="/games/{game_id}/moves").first
        moves.wait_for(timeout=10_000)
        assert "Make a move for the caller's seat" in moves.inner_text()
        spec = requests.get(live_server.url + "/openapi.json", timeout=10).json()
        paths = [p.get_attribute("data-path") for p in page.locator(".opblock-summary-path").all()]
        documented = [path for path, ops in spec["paths"].items() for m in ops if m in ("get", "post", "delete")]
        assert sorted(paths) == sorted(documented)  # every operation of the contract, once
        # the body of a move, opened: the games' unions of typed moves
        moves.locator(".opblock-summary").click()
        page.wait_for_selector(".opblock-post.is-open .opblock-section-request-body", timeout=10_000)
        page.locator(".opblock-post.is-open .opblock-section-request-body .tablinks", has_text="Schema").click()
        body = page.locator(".opblock-post.is-open .opblock-section-request-body").inner_text()
        assert "Move" in body and "anyOf" in body, body[:500]
        page.wait_for_load_state("networkidle")
    finally:
        page.close()
    assert not failed, failed
    assert any(u.endswith("/openapi.json") for u in requested), requested
    assert any(u.endswith("/docs/swagger-ui-bundle.js") for u in requested), requested
    outside = [u for u in requested if urlsplit(u).netloc != origin.netloc and not u.startswith("data:")]
    assert not outside, f"the docs page reached outside the server: {outside}"


def test_docs_try_it_out_asks_the_server_serving_the_page(browser, live_server):
    """The contract's server is the start command's default address; the page puts its own server first, so
    "Try it out" works wherever the service listens (the test's server is on another port)."""
    asked: list[str] = []
    page = browser.new_page()
    page.on("request", lambda r: asked.append(r.url) if "/game-types" in r.url else None)
    try:
        page.goto(live_server.url + "/docs", wait_until="load")
        page.wait_for_selector(".opblock", timeout=30_000)
        servers = page.locator(".servers select option").all_inner_texts()
        assert servers[0].startswith(live_server.url), servers
        op = page.locator(".opblock-get", has_text="/game-types").first
        op.locator(".opblock-summary").click()
        page.locator(".opblock.is-open .try-out__btn").click()
        page.locator(".opblock.is-open .execute").click()
        status = page.locator(".opblock.is-open .live-responses-table .response .response-col_status").first
        status.wait_for(timeout=10_000)
        assert status.inner_text().strip() == "200", status.inner_text()
    finally:
        page.close()
    assert asked == [live_server.url + "/game-types"], asked


def test_docs_assets_are_the_packaged_files_only(live_server):
    css = requests.get(live_server.url + "/docs/swagger-ui.css", timeout=10)
    assert css.status_code == 200 and "swagger-ui" in css.text
    page = requests.get(live_server.url + "/docs", timeout=10)
    assert "default-src 'none'" in page.headers["Content-Security-Policy"]
    for name in ("index.html", "..%2Fpyproject.toml", "oauth2-redirect.html"):
        missing = requests.get(f"{live_server.url}/docs/{name}", timeout=10)
        assert missing.status_code == 404
        assert missing.headers["Content-Type"].startswith("application/problem+json")
