"""The answers gunicorn writes on its own (a request it cannot parse never reaches the application) are
problem+json as every other error of the service: the status gunicorn chose, a ``type`` of
``urn:naipes:problem:<kind>``, a ``detail`` naming what was wrong, ``Connection: close``, and no HTML.
Over a real gunicorn (the start command's settings), with raw sockets: a client library would refuse to
send most of these requests."""

from __future__ import annotations

import json
import socket

import pytest
import requests

from service.core import problems

from .live import start_gunicorn

PROBLEM = "application/problem+json"


@pytest.fixture(scope="module")
def server(redis_url):
    proc, base = start_gunicorn(redis_url)
    try:
        yield base
    finally:
        proc.terminate()
        proc.wait(15)


def exchange(base: str, raw: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send ``raw`` as it is and read the answer to its end (the server closes the connection)."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(raw)
        data = b""
        while True:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return status, headers, body


def request(target: str, *headers: str, method: str = "GET") -> bytes:
    lines = [f"{method} {target} HTTP/1.1", "Host: localhost", *headers, "", ""]
    return "\r\n".join(lines).encode("latin-1")


CASES = {
    "a 5,000-character id in the path": (request("/games/" + "a" * 5000), 414, "request line"),
    "a 10,000-character cursor": (request("/games?cursor=" + "c" * 10_000), 414, "request line"),
    "2,000 query parameters": (request("/games?" + "&".join(f"p{i}=1" for i in range(2000))), 414, "request line"),
    "a NUL in a header value": (request("/health", "X-Note: a\x00b"), 400, "X-NOTE"),
    "a Content-Length of -1": (request("/games", "Content-Length: -1", method="POST"), 400, "Content-Length"),
    "a Content-Length of abc": (request("/games", "Content-Length: abc", method="POST"), 400, "Content-Length"),
    "a Content-Length of 1,2": (request("/games", "Content-Length: 1,2", method="POST"), 400, "Content-Length"),
    "two Content-Lengths": (
        request("/games", "Content-Length: 1", "Content-Length: 2", method="POST"),
        400,
        "Content-Length",
    ),
    "too many headers": (request("/health", *(f"X-H{i}: v" for i in range(200))), 431, "header fields"),
    "a header over 8190 bytes": (request("/health", "X-Big: " + "v" * 9000), 431, "8190 bytes"),
    "a header line without a colon": (request("/health", "no colon here"), 400, "header"),
    "a header name that is no token": (request("/health", "X(y): 1"), 400, "header name"),
    "a malformed request line": (b"GET\r\n\r\n", 400, "request line"),
    "a method that is no token": (request("/health", method="G(T"), 400, "method"),
    "an HTTP version gunicorn does not speak": (b"GET /health HTTP/9.9\r\nHost: x\r\n\r\n", 400, "HTTP version"),
    "a transfer coding nobody knows": (request("/games", "Transfer-Encoding: zip", method="POST"), 501, "zip"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_what_gunicorn_refuses_itself_is_a_problem(server, case):
    raw, status, named = CASES[case]
    got, headers, body = exchange(server, raw)
    assert got == status, (case, got, body[:300])
    assert headers.get("content-type") == PROBLEM, (case, headers, body[:300])
    assert headers.get("connection", "").lower() == "close", headers
    assert int(headers["content-length"]) == len(body)
    assert b"<" not in body, body[:300]  # no HTML
    problem = json.loads(body)
    assert problem["type"] == problems.PREFIX + problems.for_status(status), problem
    assert problem["type"].removeprefix(problems.PREFIX) in problems.PROBLEM_TYPES
    assert problem["status"] == status and problem["title"], problem
    assert status == 400 or problem["title"] != "Bad Request", problem  # the title of the status sent
    assert named.lower() in problem["detail"].lower(), problem
    assert "\x00" not in problem["detail"], problem  # what was sent is named, not echoed
    # the server goes on serving
    r = requests.get(f"{server}/health", timeout=10)
    assert r.status_code == 200, r.text


def test_the_request_lines_limit_is_named(server):
    _, _, body = exchange(server, CASES["a 5,000-character id in the path"][0])
    assert json.loads(body)["detail"] == "the request line is longer than 4094 bytes"


def test_a_request_line_within_the_limit_reaches_the_application(server):
    status, headers, body = exchange(server, request("/games/" + "a" * 3000, "Connection: close"))
    assert status == 404 and headers["content-type"] == PROBLEM, (status, body[:300])
    assert json.loads(body)["type"] == problems.PREFIX + "not-found"


def test_the_threaded_worker_answers_problems_too(redis_url):
    proc, base = start_gunicorn(redis_url, {"NAIPES_WORKER_CLASS": "gthread", "NAIPES_WEB_WORKERS": "1"})
    try:
        for case in ("a 10,000-character cursor", "a NUL in a header value", "too many headers"):
            raw, status, named = CASES[case]
            got, headers, body = exchange(base, raw)
            assert (got, headers.get("content-type")) == (status, PROBLEM), (case, got, body[:300])
            assert named.lower() in json.loads(body)["detail"].lower()
        assert requests.get(f"{base}/health", timeout=10).status_code == 200
    finally:
        proc.terminate()
        proc.wait(15)
