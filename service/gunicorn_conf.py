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
keepalive = 30
timeout = 60
graceful_timeout = 10
accesslog = os.environ.get("NAIPES_ACCESS_LOG") or None
errorlog = "-"
loglevel = os.environ.get("NAIPES_LOG_LEVEL", "warning")

try:  # JSON lines for gunicorn's logs and the application's
    from service.logs import gunicorn_logconfig

    logconfig_dict = gunicorn_logconfig(loglevel)
except ImportError:  # run from outside the project
    pass


def child_exit(server, worker):
    """Prometheus multiprocess mode: a dead worker's live gauges go with it."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
