"""gunicorn settings shared by the start command and the benchmarks."""

import multiprocessing
import os

bind = os.environ.get("NAIPES_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("NAIPES_WEB_WORKERS", str(max(2, multiprocessing.cpu_count()))))
worker_class = "gthread"
threads = int(os.environ.get("NAIPES_WEB_THREADS", "8"))
keepalive = 30
timeout = 60
graceful_timeout = 10
accesslog = os.environ.get("NAIPES_ACCESS_LOG") or None
errorlog = "-"
loglevel = os.environ.get("NAIPES_LOG_LEVEL", "warning")
