"""gunicorn settings shared by the start command and the benchmarks."""

import gc
import multiprocessing
import os
import re

bind = os.environ.get("NAIPES_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("NAIPES_WEB_WORKERS", str(max(2, multiprocessing.cpu_count()))))
# gevent: a request waiting on Redis (a long-poll, an event stream) yields to the others, so thousands
# of open streams cost no threads.  NAIPES_WORKER_CLASS=gthread keeps the threaded worker.
worker_class = os.environ.get("NAIPES_WORKER_CLASS", "gevent")
worker_connections = int(os.environ.get("NAIPES_WORKER_CONNECTIONS", "1000"))
threads = int(os.environ.get("NAIPES_WEB_THREADS", "8"))
# The gevent worker bounds the reading of a request's line and headers, and the wait for the next request
# on a kept-alive connection, by `keepalive` seconds: a half-sent request is dropped after that long.
keepalive = int(os.environ.get("NAIPES_KEEPALIVE", "5"))
timeout = 60
graceful_timeout = 10
accesslog = os.environ.get("NAIPES_ACCESS_LOG") or None
errorlog = "-"
loglevel = os.environ.get("NAIPES_LOG_LEVEL", "warning")

# Connection slots of one worker: gevent's pool of worker_connections, or gthread's threads (a stream holds
# one).  Event streams may take three quarters of them at most, so that ordinary requests always find room;
# the application reads the cap from NAIPES_MAX_STREAMS (a smaller value given there is kept).
_slots = worker_connections if worker_class == "gevent" else threads
_stream_room = max(1, _slots - max(1, _slots // 4))
os.environ["NAIPES_MAX_STREAMS"] = str(min(int(os.environ.get("NAIPES_MAX_STREAMS") or _stream_room), _stream_room))
# Connections one client address may hold open in one gevent worker (half of its slots; 0: no cap).  Behind
# trusted proxies (NAIPES_TRUSTED_PROXIES) every connection comes from a proxy: the proxies bound them.
_behind_proxies = (os.environ.get("NAIPES_TRUSTED_PROXIES", "0").strip() or "0") != "0"
connections_per_address = int(
    os.environ.get("NAIPES_MAX_CONNECTIONS_PER_ADDRESS") or (0 if _behind_proxies else max(1, worker_connections // 2))
)
# an I/O on a client's socket (a read of the body, a write the client does not take) waits this long at most
socket_timeout = float(os.environ.get("NAIPES_SOCKET_TIMEOUT", "30"))

try:  # JSON lines for gunicorn's logs and the application's
    from service.logs import gunicorn_logconfig, gunicorn_logger_class

    logconfig_dict = gunicorn_logconfig(loglevel)
    logger_class = gunicorn_logger_class()
except ImportError:  # run from outside the project
    pass


def _one_write_responses() -> None:
    """A response whose whole body comes in one piece (every JSON answer) leaves in one ``sendall``:
    gunicorn sends the status line and headers, then the body, in two writes (two system calls, two
    segments, the client woken twice).  The headers are still gunicorn's own (its ``send_headers``,
    written into a buffer); anything else (a streamed, chunked or body-less response) is written as
    gunicorn writes it."""
    from gunicorn.http import wsgi

    if getattr(wsgi.Response, "_naipes_one_write", False):
        return
    write, send_headers = wsgi.Response.write, wsgi.Response.send_headers

    class Buffer(list):
        def sendall(self, data) -> None:
            self.append(bytes(data))

        def send(self, data) -> int:
            self.sendall(data)
            return len(data)

    def one_write(self, arg):
        try:
            whole = (
                not self.headers_sent
                and not self.chunked
                and not getattr(self, "_omits_body", False)
                and self.req.method != "HEAD"
                and isinstance(arg, bytes)
                and self.response_length is not None
                and len(arg) == self.response_length
            )
        except AttributeError:  # another gunicorn's Response: written its own way
            whole = False
        if not whole:
            return write(self, arg)
        sock, buffer = self.sock, Buffer()
        self.sock = buffer
        try:
            send_headers(self)
        finally:
            self.sock = sock
        sock.sendall(b"".join(buffer) + arg)
        self.sent += len(arg)

    wsgi.Response.write = one_write
    wsgi.Response._naipes_one_write = True


_answering: dict = {}  # client socket -> the exception gunicorn is answering on it
_TOKEN = re.compile(r"[A-Za-z0-9!#$%&'*+.^_`|~-]{1,40}")


def _header_name(name: str) -> str:
    return "-".join(part.capitalize() for part in name.split("-"))


def _problem_detail(exc: BaseException | None, status: int, reason: str, cfg) -> str:
    """What was wrong with a request gunicorn refused, in words: the limit it is over, or the part that is
    malformed.  Named, never quoted: a header's value (a credential, a NUL) is not echoed back."""
    from gunicorn.http import errors

    if isinstance(exc, errors.LimitRequestLine):
        return f"the request line is longer than {cfg.limit_request_line} bytes"
    if isinstance(exc, errors.LimitRequestHeaders):
        if "size" in str(exc):
            return f"a header field is longer than {cfg.limit_request_field_size} bytes"
        if "fields" in str(exc):
            return f"the request has more than {cfg.limit_request_fields} header fields"
        return "the request's headers are too large"
    if status >= 500 and not isinstance(exc, errors.UnsupportedTransferCoding):
        return "an unexpected error occurred; it has been logged"
    if isinstance(exc, errors.InvalidHeader):
        name = str(getattr(exc, "hdr", ""))
        if name == "CONTENT-LENGTH":
            return (
                "the Content-Length header is not one non-negative integer "
                "(or it comes twice, or with Transfer-Encoding)"
            )
        if name == "TRANSFER-ENCODING":
            return "the Transfer-Encoding header does not end with chunked, once (or the request is HTTP/1.0)"
        if _TOKEN.fullmatch(name):
            from gunicorn.http import message

            twice = " (or it comes twice)" if name in getattr(message, "RFC9110_5_3_SINGLETON_FIELDS", ()) else ""
            return f"the {_header_name(name)} header holds a character no header value may hold (NUL, CR or LF){twice}"
        return "a header line is malformed (a line without a name and a colon, or a bare LF)"
    if isinstance(exc, errors.InvalidHeaderName):
        return "a header name is not a token, or is not allowed where it was sent"
    if isinstance(exc, errors.ObsoleteFolding):
        return "a header value is folded over several lines (obsolete line folding)"
    if isinstance(exc, errors.InvalidRequestMethod):
        return "the request line's method is not a valid HTTP method"
    if isinstance(exc, errors.InvalidHTTPVersion):
        return "the request line's HTTP version is not one the server speaks (HTTP/1.0 or HTTP/1.1)"
    if isinstance(exc, errors.InvalidRequestLine):
        return "the request line is malformed (it is: method, target, HTTP version)"
    if isinstance(exc, errors.UnsupportedTransferCoding):
        coding = str(getattr(exc, "hdr", ""))
        named = f"the transfer coding {coding}" if _TOKEN.fullmatch(coding) else "the Transfer-Encoding header"
        return f"{named} is not supported (chunked is)"
    if isinstance(exc, errors.ExpectationFailed):
        return "the only expectation the server meets is Expect: 100-continue"
    if isinstance(exc, errors.InvalidSchemeHeaders):
        return "the request's scheme headers contradict each other"
    if isinstance(exc, (errors.InvalidChunkSize, errors.ChunkMissingTerminator, errors.InvalidChunkExtension)):
        return "the chunked body is malformed"
    if isinstance(exc, errors.ForbiddenProxyRequest):
        return "a PROXY protocol line is not accepted from this address"
    if isinstance(exc, errors.InvalidProxyLine):
        return "the PROXY protocol line is malformed"
    return f"the request was refused: {reason.lower()}"


def _problem_errors(worker) -> None:
    """The answers gunicorn writes on its own (a request line over ``limit_request_line``, too many or too
    large headers, a NUL in a header, a malformed Content-Length: requests it refuses before the application
    sees them, and a 500 it answers for a worker's failure) as problem+json, as the application's own
    (:mod:`service.core.problems`): ``type``, ``title``, ``status``, ``detail`` naming what was wrong.

    gunicorn has no setting for these: ``Worker.handle_error`` picks the status and writes an HTML page
    through ``gunicorn.util.write_error(sock, status, reason, mesg)``, whatever the worker class.  So
    ``util.write_error`` is replaced (once per process; every worker class calls it through the module),
    and the worker's ``handle_error`` is wrapped to tell it the exception it answers, so that the detail
    names the limit or the part (``mesg`` is gunicorn's own wording, and may quote what was sent).  The
    status, the logging and the access log stay gunicorn's."""
    import json
    from http import HTTPStatus

    from gunicorn import util

    try:
        from service.core.problems import PREFIX, for_status
    except ImportError:  # run from outside the project
        PREFIX, for_status = "urn:naipes:problem:", lambda status: "bad-request" if status == 400 else "error"

    if not getattr(util, "_naipes_problem_errors", False):

        def write_error(sock, status_int, reason, mesg):
            if reason == "Bad Request" and status_int != 400:  # gunicorn changed the status only (501, 500)
                try:
                    reason = HTTPStatus(status_int).phrase
                except ValueError:
                    reason = "Error"
            body = json.dumps(
                {
                    "type": PREFIX + for_status(status_int),
                    "title": reason,
                    "status": status_int,
                    "detail": _problem_detail(_answering.get(sock), status_int, reason, worker.cfg),
                },
                separators=(",", ":"),
            ).encode()
            head = (
                f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\nContent-Type: application/problem+json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n"
            )
            util.write_nonblock(sock, head.encode("latin-1") + body)

        util.write_error = write_error
        util._naipes_problem_errors = True

    handle_error = worker.handle_error

    def handle_error_naming_it(req, client, addr, exc):
        _answering[client] = exc
        try:
            handle_error(req, client, addr, exc)
        finally:
            _answering.pop(client, None)

    worker.handle_error = handle_error_naming_it


def post_worker_init(worker):
    """Every worker: responses in one write (:func:`_one_write_responses`), problem+json for the
    answers gunicorn writes itself (:func:`_problem_errors`), and the start-up's objects kept out of the
    garbage collector's way.  gevent worker: a time limit on every socket
    operation of a connection, and at most ``connections_per_address`` connections held at once by one
    client address (the next ones get 503)."""
    _one_write_responses()
    _problem_errors(worker)
    # The objects made at start-up (the app, its schemas, the rules' tables: about 125,000) are left out of
    # every later collection: a full collection under load stalled a worker for 86-119 ms, now 6-8 ms
    # (docs/performance.md).
    gc.freeze()
    if worker_class != "gevent" or not hasattr(worker, "timeout_ctx"):
        return
    import collections

    from gunicorn.workers.base_async import AsyncWorker

    held: collections.Counter = collections.Counter()
    refusal = (
        b'{"type":"urn:naipes:problem:unavailable","title":"Too many connections","status":503,'
        b'"detail":"this client address holds too many open connections; close some or retry later"}'
    )
    refused = (
        b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/problem+json\r\n"
        b"Retry-After: 5\r\nConnection: close\r\nContent-Length: " + str(len(refusal)).encode() + b"\r\n\r\n" + refusal
    )

    def handle(listener, client, addr):
        address = addr[0] if isinstance(addr, tuple) and addr else str(addr)
        client.settimeout(socket_timeout)  # instead of the worker's blocking mode without a limit
        if connections_per_address and held[address] >= connections_per_address:
            try:
                client.settimeout(1)
                client.sendall(refused)
            except OSError:
                pass
            finally:
                client.close()
            return
        held[address] += 1
        try:
            AsyncWorker.handle(worker, listener, client, addr)
        finally:
            held[address] -= 1
            if held[address] <= 0:
                del held[address]

    worker.handle = handle


def child_exit(server, worker):
    """Prometheus multiprocess mode: a dead worker's live gauges go with it."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
