"""Webhook URLs and the addresses they reach: a URL is parsed strictly, an
address is judged in whatever form it is written (the forms the C resolver
reads, IPv6 forms carrying an IPv4 address), and a delivery resolves a name
once and connects to the address it checked.

The DNS is played by a stand-in for ``socket.getaddrinfo`` (the resolver,
not the code under test): it answers for the names a test gives, can answer
differently the second time (DNS rebinding), counts the lookups, and routes
the public address a test's name resolves to onto a local receiver, which
plays that public host."""

from __future__ import annotations

import json
import shutil
import socket
import ssl
import subprocess
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from events.envelope import dumps
from service.core import webhooks as wh
from service.core.identity import Viewer
from service.core.naipes import Naipes
from service.web.app import create_app

from .conftest import API_KEY

PUBLIC = "93.184.215.14"
VIEWER = Viewer("integrator", key_id="k-webhook-addresses", scopes=frozenset({"tournaments"}))


def post_webhook(redis_client, url: str):
    app = create_app(Naipes(redis_client, api_keys=[API_KEY]), rate_limit="off")
    return app.test_client().post("/webhooks", json={"url": url}, headers={"Authorization": f"Bearer {API_KEY}"})


def drop_webhook(redis_client, response) -> None:
    if response.status_code == 201:
        redis_client.hdel(wh.HOOKS, response.get_json()["id"])


# ------------------------------------------------------------ registration
@pytest.mark.parametrize(
    "url, address, public_twin",
    [
        ("http://2130706433/hook", "127.0.0.1", "http://1572394766/hook"),  # one decimal number
        ("http://0177.0.0.1/hook", "127.0.0.1", "http://0135.0270.0327.016/hook"),  # octal parts
        ("http://0x7f.1/hook", "127.0.0.1", "http://0x5d.0xb8d70e/hook"),  # hex part, short form
        ("http://127.1/hook", "127.0.0.1", "http://93.184.55054/hook"),  # short form
        ("http://0x7f000001/hook", "127.0.0.1", "http://0x5db8d70e/hook"),
        ("http://017700000001/hook", "127.0.0.1", "http://013556153416/hook"),
        ("http://10.1/hook", "10.0.0.1", "http://93.12113678/hook"),
        ("http://0xa9.0xfe.0xa9.0xfe/latest/meta-data", "169.254.169.254", "http://0x5d.0xb8.0xd7.0x0e/hook"),
        ("http://100.64.1/hook", "100.64.0.1", None),
        ("http://[::127.0.0.1]/hook", "127.0.0.1", None),  # IPv4-compatible
        ("http://[::7f00:1]/hook", "127.0.0.1", None),
        ("http://[::ffff:0:a00:1]/hook", "10.0.0.1", None),  # SIIT-translated
        ("http://[64:ff9b::7f00:1]/hook", "127.0.0.1", "http://[64:ff9b::5db8:d70e]/hook"),  # NAT64
        ("http://[64:ff9b::169.254.169.254]/latest/meta-data", "169.254.169.254", "http://[64:ff9b::93.184.215.14]/"),
        ("http://[2002:7f00:1::]/hook", "127.0.0.1", "http://[2002:5db8:d70e::1]/hook"),  # 6to4
        ("http://[2002:a9fe:a9fe::1]:8080/hook", "169.254.169.254", None),
    ],
)
def test_every_form_of_a_non_public_address_is_refused_at_registration(
    redis_client, monkeypatch, url, address, public_twin
):
    monkeypatch.setenv(wh.PRIVATE_SETTING, "deny")
    r = post_webhook(redis_client, url)
    drop_webhook(redis_client, r)
    assert r.status_code == 422 and r.mimetype == "application/problem+json", r.get_json()
    problem = r.get_json()
    assert problem["type"] == "urn:naipes:problem:private-address"
    assert address in problem["detail"] and wh.PRIVATE_SETTING in problem["detail"]
    if public_twin:  # the same notation naming the public address 93.184.215.14 is taken
        r = post_webhook(redis_client, public_twin)
        drop_webhook(redis_client, r)
        assert r.status_code == 201, r.get_json()


@pytest.mark.parametrize(
    "url, stored_host",
    [
        ("http://0x7f.1:8080/hook", "127.0.0.1"),
        ("http://0177.0.0.1/hook", "127.0.0.1"),
    ],
)
def test_allowing_private_addresses_takes_any_form_of_them(redis_client, monkeypatch, url, stored_host):
    monkeypatch.setenv(wh.PRIVATE_SETTING, "allow")
    r = post_webhook(redis_client, url)
    drop_webhook(redis_client, r)
    assert r.status_code == 201 and r.get_json()["url"] == url  # stored as given
    assert wh.parse_url(url).host == stored_host


@pytest.mark.parametrize(
    "url, named, good_twin",
    [
        ("http://hooks.example:0/x", "port 0", "http://hooks.example:1/x"),
        ("http://hooks.example:65536/x", "port 65536", "http://hooks.example:65535/x"),
        ("http://hooks.example:99999/x", "port 99999", None),
        ("http://hooks.example:8o/x", "port '8o'", None),
        ("http://user:pw@hooks.example/x", "user name or password", None),
        ("http://xn--a.example/x", "internationalised domain name", "http://xn--bcher-kva.example/x"),
        ("http://a\u200d.example/x", "internationalised domain name", "https://b\u00fccher.example/x"),
        ("http://\u2603.example/x", "internationalised domain name", None),
        ("http://256.0.0.1/x", "256.0.0.1", "http://255.0.0.1/x"),
        ("http://1.2.3.4.5/x", "1.2.3.4.5", None),
        ("http://08.0.0.1/x", "08.0.0.1", None),
        ("http://%31%32%37.0.0.1/x", "percent-encoded", None),
        ("http://[::1/x", "[address]", None),
        ("http://[fe80::1%25eth0]/x", "zone index", None),
        ("http://hooks.example\\@10.0.0.1/x", "backslash", None),
        ("http://a..example/x", "a..example", None),
        ("ftp://hooks.example/x", "http://", None),
        ("hooks.example/x", "http://", None),
        ("http:///x", "no host", None),
    ],
)
def test_malformed_urls_are_refused_at_registration_naming_the_problem(redis_client, url, named, good_twin):
    r = post_webhook(redis_client, url)  # private addresses allowed (conftest): the URL check still holds
    drop_webhook(redis_client, r)
    assert r.status_code == 422 and r.mimetype == "application/problem+json", r.get_json()
    problem = r.get_json()
    assert problem["type"] == "urn:naipes:problem:bad-url" and named in problem["detail"], problem
    if good_twin:  # the nearest well-formed URL is taken
        r = post_webhook(redis_client, good_twin)
        drop_webhook(redis_client, r)
        assert r.status_code == 201, r.get_json()


@pytest.mark.parametrize(
    "written",
    [
        "2130706433",
        "0177.0.0.1",
        "0x7f.1",
        "127.1",
        "0x7f.0.1",
        "1.0x10.0xffff",
        "4294967295",
        "0",
        "00.1",
        "192.0X00A80001",
        "0300.0250.0.01",
        "0xffffffff",
        "0x",
        "1.0x",
        "09",
        "1.2.3.256",
        "4294967296",
        "1.16777216",
        "1.2.65536",
    ],
)
def test_ipv4_forms_are_read_as_the_c_library_reads_them(written):
    try:
        expected = socket.inet_ntoa(socket.inet_aton(written))
    except OSError:
        with pytest.raises(wh.BadURL):
            wh.parse_url(f"http://{written}/")
    else:
        assert wh.parse_url(f"http://{written}/").host == expected


# ------------------------------------------------------------ delivery
class Resolver:
    """The stand-in for ``socket.getaddrinfo``: ``answers[name]`` lists the answer of each
    successive lookup of ``name`` (the last repeats), each an address or (address, port),
    ``routes[address]`` is where a connection to that address lands; other names under
    ``.example`` do not resolve, and anything else goes to the real resolver."""

    def __init__(self, monkeypatch, answers: dict[str, list[list]], routes: dict[str, tuple[str, int]]):
        self.answers, self.routes, self.asked = answers, routes, []
        real = socket.getaddrinfo

        def getaddrinfo(host, port, family=0, type=0, proto=0, flags=0):
            name = host.decode() if isinstance(host, bytes) else host
            if name in self.routes or name in self.answers or str(name).endswith(".example"):
                self.asked.append(name)  # (the tests' own lookups, of Redis, are not counted)
            if name in self.routes:
                ip, routed_port = self.routes[name]
                return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (ip, routed_port))]
            if name in self.answers:
                seen = self.asked.count(name)
                answer = self.answers[name][min(seen, len(self.answers[name])) - 1]
                found = [item if isinstance(item, tuple) else (item, port) for item in answer]
                return [
                    (
                        socket.AF_INET6 if ":" in ip else socket.AF_INET,
                        socket.SOCK_STREAM,
                        socket.IPPROTO_TCP,
                        "",
                        (ip, p, 0, 0) if ":" in ip else (ip, p),
                    )
                    for ip, p in found
                ]
            if name and name.endswith(".example"):
                raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
            return real(host, port, family, type, proto, flags)

        monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)

    def lookups(self, name: str) -> int:
        return self.asked.count(name)


class Receiver:
    """A local receiver (plain HTTP, or HTTPS with a certificate): records every POST with its
    ``Host`` header and, over TLS, the name the client asked for (SNI)."""

    def __init__(self, cert: tuple[str, str] | None = None):
        self.requests: list[dict] = []
        self.sni: list[str | None] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                outer.requests.append({"path": self.path, "host": self.headers["Host"], "body": body})
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        if cert:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*cert)
            context.sni_callback = lambda sock, name, ctx: self.sni.append(name)
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    """A test CA and a certificate for ``hooks.example`` signed by it: (ca file, cert file, key file)."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make a test certificate")
    d = tmp_path_factory.mktemp("tls")
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]

    def run(*args):
        subprocess.run(["openssl", *args], cwd=d, check=True, capture_output=True)

    run(
        "req",
        "-x509",
        *ec,
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "2",
        "-subj",
        "/CN=naipes test CA",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign",
    )
    run("req", *ec, "-keyout", "leaf.key", "-out", "leaf.csr", "-subj", "/CN=hooks.example")
    (d / "leaf.ext").write_text(
        "subjectAltName=DNS:hooks.example\nbasicConstraints=CA:FALSE\n"
        "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n"
        "authorityKeyIdentifier=keyid\nsubjectKeyIdentifier=hash\n"
    )
    run(
        "x509",
        "-req",
        "-in",
        "leaf.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "leaf.pem",
        "-days",
        "2",
        "-extfile",
        "leaf.ext",
    )
    return str(d / "ca.pem"), str(d / "leaf.pem"), str(d / "leaf.key")


def body(event_id: str) -> str:
    return json.dumps({"id": event_id, "type": "game.finished", "data": {}})


def stored_hook(redis_client, url: str) -> str:
    """A webhook record as the registry keeps it (written directly: an older record may hold a URL
    the registration of today would refuse)."""
    hook_id = f"wh_{uuid.uuid4().hex[:16]}"
    redis_client.hset(
        wh.HOOKS,
        hook_id,
        dumps(
            {
                "id": hook_id,
                "key_id": VIEWER.key_id,
                "scopes": sorted(VIEWER.scopes),
                "url": url,
                "events": ["game.finished"],
                "secret": "whsec_test",
                "created_at": "2024-01-01T00:00:00Z",
            }
        ),
    )
    return hook_id


def deliveries(redis_client, hook_id: str) -> list:
    return redis_client.lrange(f"naipes:webhooks:{hook_id}:deliveries", 0, -1)


@pytest.mark.parametrize("scheme", ["http", "https"])
def test_a_rebinding_name_is_resolved_once_and_the_checked_address_is_called(
    redis_client, monkeypatch, certificate, scheme
):
    ca, cert, key = certificate
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", ca)  # the receiver's CA is trusted, nothing else changes
    inside = Receiver()  # a service in the workers' own network
    outside = Receiver((cert, key) if scheme == "https" else None)  # plays the public host PUBLIC
    try:
        # the name resolves to a public address when checked, then to the inside service
        resolver = Resolver(
            monkeypatch,
            {"hooks.example": [[PUBLIC], [("127.0.0.1", inside.port)]]},
            {PUBLIC: ("127.0.0.1", outside.port)},
        )
        hooks = wh.Webhooks(redis_client, allow_private=False)
        hook = hooks.register(VIEWER, f"{scheme}://hooks.example:8443/hook?x=1", ["game.finished"])
        assert resolver.lookups("hooks.example") == 0  # registration does not resolve names
        entry = hooks.deliver(hook["id"], f"whd_{uuid.uuid4().hex[:12]}", "game.finished", body("game.finished:g1"))
        assert resolver.lookups("hooks.example") == 1, resolver.asked
        assert inside.requests == [], "the second answer was called"
        assert entry["ok"] and entry["status"] == 204, entry
        assert [(r["path"], r["host"]) for r in outside.requests] == [("/hook?x=1", "hooks.example:8443")]
        if scheme == "https":
            assert outside.sni == ["hooks.example"]  # and the certificate was checked for that name:
            other = stored_hook(redis_client, "https://other.example:8443/hook")
            resolver.answers["other.example"] = [[PUBLIC]]
            with pytest.raises(wh.DeliveryFailed):
                hooks.deliver(other, f"whd_{uuid.uuid4().hex[:12]}", "game.finished", body("game.finished:g2"))
            error = json.loads(deliveries(redis_client, other)[0])["error"]
            assert error.startswith("SSLError") and "other.example" in error, error
            monkeypatch.delenv("REQUESTS_CA_BUNDLE")  # and the chain too: without the test CA, refused
            resolver.answers["hooks.example"] = [[PUBLIC]]
            with pytest.raises(wh.DeliveryFailed):
                hooks.deliver(hook["id"], f"whd_{uuid.uuid4().hex[:12]}", "game.finished", body("game.finished:g5"))
            error = json.loads(deliveries(redis_client, hook["id"])[0])["error"]
            assert "certificate verify failed" in error, error
            assert len(outside.requests) == 1
            redis_client.hdel(wh.HOOKS, other)
        redis_client.hdel(wh.HOOKS, hook["id"])
    finally:
        inside.close()
        outside.close()


@pytest.mark.parametrize(
    "answer, refused, why",
    [
        (["64:ff9b::a00:5"], "64:ff9b::a00:5", "10.0.0.5, private"),  # NAT64
        (["2002:7f00:1::1"], "2002:7f00:1::1", "127.0.0.1, loopback"),  # 6to4
        (["::ffff:0:a9fe:a9fe"], "::ffff:0:a9fe:a9fe", "169.254.169.254, link-local"),
        (["2606:2800:21f:cb07:6820:80da:af6b:8b2c", "64:ff9b::6440:1"], "64:ff9b::6440:1", "100.64.0.1, shared"),
    ],
)
def test_a_name_resolving_to_a_non_public_address_is_refused_and_not_retried(
    redis_client, monkeypatch, answer, refused, why
):
    resolver = Resolver(monkeypatch, {"hooks.example": [answer]}, {})
    hook_id = stored_hook(redis_client, "https://hooks.example/hook")
    entry = wh.Webhooks(
        redis_client, allow_private=False
    ).deliver(  # returns: RQ does not retry it
        hook_id, f"whd_{uuid.uuid4().hex[:12]}", "game.finished", body("game.finished:g3")
    )
    assert not entry["ok"] and entry["next_retry_seconds"] is None and entry["status"] is None
    assert entry["error"].startswith(f"refused: hooks.example resolves to the non-public address {refused}")
    assert why in entry["error"]
    assert resolver.asked == ["hooks.example"]  # one lookup, no connection
    assert len(deliveries(redis_client, hook_id)) == 1
    redis_client.hdel(wh.HOOKS, hook_id)


@pytest.mark.parametrize("allow_private", [False, True])
@pytest.mark.parametrize(
    "url, named",
    [
        ("http://hooks.example:99999/hook", "port 99999"),
        ("http://hooks.example:0/hook", "port 0"),
        ("http://xn--a.example/hook", "internationalised domain name"),
        ("https://a\u200d.example/hook", "internationalised domain name"),
    ],
)
def test_a_malformed_url_found_at_delivery_is_logged_once_and_not_retried(
    redis_client, monkeypatch, allow_private, url, named
):
    resolver = Resolver(monkeypatch, {}, {})
    hook_id = stored_hook(redis_client, url)
    entry = wh.Webhooks(
        redis_client, allow_private=allow_private
    ).deliver(  # returns: RQ does not retry it
        hook_id, f"whd_{uuid.uuid4().hex[:12]}", "game.finished", body("game.finished:g4")
    )
    assert not entry["ok"] and entry["next_retry_seconds"] is None and entry["attempt"] == 1
    assert entry["error"].startswith("bad URL:") and named in entry["error"]
    assert [json.loads(row) for row in deliveries(redis_client, hook_id)] == [entry]
    assert resolver.asked == []  # nothing was resolved
    redis_client.hdel(wh.HOOKS, hook_id)
