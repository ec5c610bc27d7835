"""Shared fixtures: a real redis-server of the tests' own, the app over it."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import redis

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from events.embedded import EmbeddedRedis  # noqa: E402
from service.core.naipes import Naipes  # noqa: E402
from service.web.app import create_app  # noqa: E402

API_KEY = "nk_test_integrator_key"
# the webhook tests deliver to receivers on this machine's loopback (refused by default; see
# tests/test_tournaments.py::test_webhooks_to_private_addresses_are_refused_by_default)
os.environ["NAIPES_WEBHOOK_PRIVATE"] = "allow"


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    """A private redis-server on a free port (never a shared one)."""
    server = EmbeddedRedis(tmp_path_factory.mktemp("redis")).start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def redis_url(redis_server) -> str:
    return redis_server.url


@pytest.fixture()
def redis_client(redis_url):
    client = redis.Redis.from_url(redis_url)
    yield client
    client.close()


@pytest.fixture()
def service(redis_client) -> Naipes:
    from service.core.timers import attach_scheduler

    # one key's games with search bots are counted (service.core.quotas): the count has its own tests
    # (tests/test_search_quota.py), and the tests' Redis keeps every test's games
    svc = Naipes(redis_client, api_keys=[API_KEY], max_search_games=0)
    attach_scheduler(svc)
    return svc


@pytest.fixture()
def app(service):
    app = create_app(service, rate_limit="off")  # limits have their own tests
    app.config["TESTING"] = True
    return app


@pytest.fixture()
def client(app):
    return app.test_client()


@pytest.fixture()
def integrator():
    return {"Authorization": f"Bearer {API_KEY}"}


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}
