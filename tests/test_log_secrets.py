"""No seat token or key reaches a log line; environment keys are revocable like any other."""

from __future__ import annotations

import io
import logging
import os
import secrets
import subprocess
import sys
import time

import pytest
import redis
import requests
from click.testing import CliRunner

from events.embedded import free_port
from service.cli import main as cli
from service.core.naipes import Naipes
from service.web.app import create_app

from .conftest import API_KEY, ROOT, bearer
from .helpers import tokens
from .test_stream import new_game

INTEGRATOR = {"Authorization": f"Bearer {API_KEY}"}


def _gunicorn(redis_url: str, env: dict, log_path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    full = {
        **os.environ,
        "REDIS_URL": redis_url,
        "NAIPES_API_KEYS": API_KEY,
        "NAIPES_BIND": f"127.0.0.1:{port}",
        "PYTHONPATH": str(ROOT),
        "NAIPES_WEB_WORKERS": "2",
        "NAIPES_RATE_LIMIT": "off",
        "NAIPES_SSE_HEARTBEAT": "0.5",
        **env,
    }
    for name in ("NAIPES_LOG_LEVEL", "NAIPES_ACCESS_LOG"):
        if name not in env:
            full.pop(name, None)
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "-c",
                str(ROOT / "service" / "web" / "gunicorn_conf.py"),
                "service.web.app:create_app()",
            ],
            cwd=ROOT,
            env=full,
            stdout=log,
            stderr=log,
        )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if requests.get(base + "/health", timeout=1).status_code == 200:
                return proc, base
        except requests.RequestException:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("gunicorn did not start: " + log_path.read_text()[-3000:])


@pytest.mark.parametrize(
    "env", [{}, {"NAIPES_ACCESS_LOG": "-"}, {"NAIPES_LOG_LEVEL": "debug"}], ids=["default", "access-log", "debug"]
)
def test_no_token_or_key_reaches_gunicorns_log(redis_url, tmp_path, env):
    log_path = tmp_path / "gunicorn.log"
    proc, base = _gunicorn(redis_url, env, log_path)
    try:
        g = new_game(base, INTEGRATOR)
        gid, toks = g["id"], tokens(g)
        key = requests.post(f"{base}/keys", json={"name": "logs", "scopes": ["games"]}, headers=INTEGRATOR).json()
        made_up = f"st_{secrets.token_urlsafe(24)}"
        # the README's EventSource form: the token in the query
        with requests.get(f"{base}/games/{gid}/stream?token={toks[0]}", stream=True, timeout=10) as r:
            assert r.status_code == 200
            next(r.iter_lines())
        with requests.get(
            f"{base}/games/{gid}/stream", params={"token": key["key"], "after": 2}, stream=True, timeout=10
        ) as r:
            assert r.status_code == 200
            next(r.iter_lines())
        assert requests.get(f"{base}/games/{gid}/stream?token={made_up}", timeout=10).status_code == 401
        assert requests.get(f"{base}/games/{gid}", headers=bearer(toks[1]), timeout=10).status_code == 200
        assert requests.get(f"{base}/games/{gid}?token={toks[2]}&x=1", timeout=10).status_code == 200
        assert requests.get(f"{base}/games/{toks[3]}/events", timeout=10).status_code == 404
        assert requests.get(f"{base}/games/{gid}/legal-moves", headers=bearer(made_up), timeout=10).status_code == 401
        assert requests.delete(f"{base}/keys/{key['id']}", headers=INTEGRATOR, timeout=10).status_code == 200
        # refused at once by the worker that revoked it, within the key cache's 2 s by the other
        assert requests.get(f"{base}/games?token={API_KEY}", headers=bearer(key["key"]), timeout=10).status_code in (
            200,
            401,
        )
    finally:
        proc.terminate()
        proc.wait(15)
    text = log_path.read_text()
    for secret in (*toks.values(), key["key"], API_KEY, made_up):
        assert secret not in text, f"a credential in the log: ...{text[max(0, text.find(secret) - 200) :][:400]}"
    if env:  # these levels write a line per request: the test looked at them
        assert f"/games/{gid}/stream" in text and "[redacted]" in text, text[-2000:]


def test_the_applications_log_lines_carry_no_credential(app):
    from service.logs import handler

    stream = io.StringIO()
    log = logging.getLogger("naipes.test.secrets")
    log.addHandler(handler(stream))
    log.setLevel(logging.DEBUG)
    seat = f"st_{secrets.token_urlsafe(24)}"
    key = f"nk_{secrets.token_urlsafe(32)}"
    try:
        log.debug("GET /games/abc/stream?after=3&token=%s done", seat)
        log.info("Authorization: Bearer %s", key)
        try:
            raise ValueError(f"bad credential {seat}")
        except ValueError:
            log.exception("failed for %s", key)
        log.warning("env key %s", API_KEY)
    finally:
        log.handlers.clear()
    text = stream.getvalue()
    assert text.count("\n") == 4
    for secret in (seat, key, API_KEY):
        assert secret not in text


# ------------------------------------------------------------------ environment keys


def test_an_environment_key_is_listed_revocable_and_stays_revoked_after_a_restart(redis_url):
    env_key = f"env_{secrets.token_urlsafe(16)}"  # a key of this test alone (the session's Redis is shared)
    svc = Naipes(redis.Redis.from_url(redis_url), api_keys=[API_KEY, env_key])
    key_id = svc.identity.integrator(env_key).key_id
    listed = {r["id"]: r for r in svc.keys.list()}
    assert key_id.startswith("env-") and listed[key_id]["name"] == "environment key"
    assert listed[key_id]["revoked_at"] is None and set(listed[key_id]["scopes"]) >= {"games", "admin"}

    c = create_app(svc, rate_limit="off").test_client()
    assert c.get("/games", headers=bearer(env_key)).status_code == 200
    assert key_id in [r["id"] for r in c.get("/keys", headers=bearer(env_key)).get_json()]
    assert c.delete(f"/keys/{key_id}", headers=INTEGRATOR).status_code == 200
    refused = c.get("/games", headers=bearer(env_key))
    assert refused.status_code == 401 and refused.get_json()["type"] == "urn:naipes:problem:key-revoked"

    # a restart with the key still in the environment: still revoked
    again = Naipes(redis.Redis.from_url(redis_url), api_keys=[env_key])
    assert again.identity.integrator(env_key) is None and again.keys.find(env_key).revoked
    c = create_app(again, rate_limit="off").test_client()
    assert c.get("/games", headers=bearer(env_key)).status_code == 401
    # a process without that key in its environment grants nothing with it
    assert Naipes(redis.Redis.from_url(redis_url), api_keys=[API_KEY]).identity.integrator(env_key) is None


def test_environment_keys_from_the_command_line(redis_url, monkeypatch):
    env_key = f"env_{secrets.token_urlsafe(16)}"
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("NAIPES_API_KEYS", env_key)
    key_id = Naipes(redis.Redis.from_url(redis_url), api_keys=[env_key]).identity.integrator(env_key).key_id
    runner = CliRunner()
    listed = runner.invoke(cli, ["keys", "list"])
    assert listed.exit_code == 0 and key_id in listed.output
    line = next(x for x in listed.output.splitlines() if x.startswith(key_id))
    assert "environment key" in line and "live" in line
    assert runner.invoke(cli, ["keys", "revoke", key_id]).exit_code == 0
    assert "revoked" in next(
        x for x in runner.invoke(cli, ["keys", "list"]).output.splitlines() if x.startswith(key_id)
    )
    assert Naipes(redis.Redis.from_url(redis_url), api_keys=[env_key]).identity.integrator(env_key) is None


def test_an_environment_key_written_like_a_seat_token_is_still_a_key(redis_url, monkeypatch):
    """Seat tokens (st_...) are not hashed and looked up among the keys, unless an environment key
    itself starts with st_: then that key works, and a seat token is still no key."""
    from service.core import keys as keys_module

    hashed: list[str] = []
    original = keys_module.digest

    def counting(secret: str) -> str:
        hashed.append(secret)
        return original(secret)

    monkeypatch.setattr(keys_module, "digest", counting)
    plain = Naipes(redis.Redis.from_url(redis_url), api_keys=[API_KEY])
    hashed.clear()
    assert plain.identity.integrator("st_abc.def") is None
    assert hashed == [], "a seat token is not hashed as a key when no key is written like one"
    odd = "st_operator_key_" + "x" * 20
    svc = Naipes(redis.Redis.from_url(redis_url), api_keys=[API_KEY, odd])
    assert svc.identity.integrator(odd) is not None
    assert svc.identity.integrator("st_abc.def") is None
