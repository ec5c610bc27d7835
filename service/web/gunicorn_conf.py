"""gunicorn settings shared by the start command and the benchmarks."""

import multiprocessing
import os

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


def post_worker_init(worker):
    """Every worker: responses in one write (:func:`_one_write_responses`).  gevent worker: a time
    limit on every socket operation of a connection, and at most
    ``connections_per_address`` connections held at once by one client address (the next ones get 503)."""
    _one_write_responses()
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
