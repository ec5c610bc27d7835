"""The gunicorn settings' one-write responses: a whole body leaves with its headers in one sendall,
through gunicorn's own request parser and response; anything else is written as gunicorn writes it."""

from __future__ import annotations

import importlib.util

import pytest
from gunicorn.config import Config
from gunicorn.http import wsgi
from gunicorn.http.parser import RequestParser

from .conftest import ROOT


class Socket:
    """What gunicorn writes, call by call."""

    def __init__(self):
        self.writes: list[bytes] = []

    def sendall(self, data: bytes) -> None:
        self.writes.append(bytes(data))

    def send(self, data: bytes) -> int:
        self.sendall(data)
        return len(data)


@pytest.fixture(scope="module")
def patched():
    before = wsgi.Response.write
    spec = importlib.util.spec_from_file_location("naipes_gunicorn_conf", ROOT / "service" / "web" / "gunicorn_conf.py")
    conf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conf)
    conf._one_write_responses()
    conf._one_write_responses()  # a second worker init in the same process patches nothing more
    assert wsgi.Response.write is not before
    yield
    wsgi.Response.write = before
    wsgi.Response._naipes_one_write = False


def respond(raw: bytes, status: str, headers: list[tuple[str, str]], chunks: list[bytes]) -> list[bytes]:
    cfg = Config()
    req = next(iter(RequestParser(cfg, iter([raw]), ("127.0.0.1", 40000))))
    sock = Socket()
    resp, _environ = wsgi.create(req, sock, ("127.0.0.1", 40000), ("127.0.0.1", 8000), cfg)
    resp.start_response(status, headers)
    for chunk in chunks:
        resp.write(chunk)
    resp.close()
    return sock.writes


GET = b"GET /games/x HTTP/1.1\r\nHost: localhost\r\n\r\n"


def test_a_whole_body_leaves_with_its_headers_in_one_write(patched):
    body = b'{"version":42}'
    writes = respond(GET, "200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))], [body])
    assert len(writes) == 1
    head, _, sent = writes[0].partition(b"\r\n\r\n")
    assert sent == body
    lines = head.decode("latin-1").split("\r\n")
    assert lines[0] == "HTTP/1.1 200 OK"
    assert "Content-Type: application/json" in lines and f"Content-Length: {len(body)}" in lines
    assert "Connection: keep-alive" in lines and any(line.startswith("Date: ") for line in lines)


def test_a_body_in_pieces_a_stream_and_a_head_are_written_as_gunicorn_writes_them(patched):
    # a body in two pieces: the headers first, then each piece (gunicorn's own write)
    writes = respond(GET, "200 OK", [("Content-Length", "4")], [b"ab", b"cd"])
    assert len(writes) == 3 and writes[1:] == [b"ab", b"cd"]
    assert writes[0].endswith(b"\r\n\r\n") and b"Content-Length: 4" in writes[0]
    # no length: chunked, as an event stream is
    writes = respond(GET, "200 OK", [("Content-Type", "text/event-stream")], [b"data: 1\n\n"])
    assert b"Transfer-Encoding: chunked" in writes[0] and writes[0].endswith(b"\r\n\r\n")
    assert writes[1:] == [b"9\r\ndata: 1\n\n\r\n", b"0\r\n\r\n"]
    # HEAD: the headers alone, the body dropped
    head = b"HEAD /games/x HTTP/1.1\r\nHost: localhost\r\n\r\n"
    writes = respond(head, "200 OK", [("Content-Length", "2")], [b"{}"])
    assert len(writes) == 1 and writes[0].endswith(b"\r\n\r\n") and b"{}" not in writes[0]
    # no body at all
    writes = respond(GET, "204 NO CONTENT", [], [])
    assert len(writes) == 1 and writes[0].startswith(b"HTTP/1.1 204 NO CONTENT\r\n")
