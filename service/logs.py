"""Structured logs: one JSON object per line.

Every record carries ``time``, ``level``, ``logger`` and ``message``, and
``game_id`` and ``version`` where known: from the record's ``extra``, from
:func:`game_context` (the workers set it around a job), or from the HTTP
request being served (the route's ``game_id``; the version the response
names in its ETag).

No log line carries a credential: the value of a ``token`` query parameter,
a bearer token, a seat token (``st_...``), a key (``nk_...``) or a key of
``NAIPES_API_KEYS`` is replaced by ``[redacted]``, at every level, in the
application's lines and in gunicorn's (its access log, its error log).
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import os
import re
from datetime import UTC

from pythonjsonlogger.json import JsonFormatter

_game: contextvars.ContextVar[tuple[str | None, int | None]] = contextvars.ContextVar(
    "naipes_game", default=(None, None)
)


@contextlib.contextmanager
def game_context(game_id: str | None, version: int | None = None):
    token = _game.set((game_id, version))
    try:
        yield
    finally:
        _game.reset(token)


def set_version(version: int | None) -> None:
    game_id, _ = _game.get()
    _game.set((game_id, version))


REDACTED = "[redacted]"
_SECRETS = [
    (re.compile(r"(?i)((?:^|[?&;\s\"'/])token(?:=|%3D))[^&;\s\"'#]+"), r"\1" + REDACTED),
    (re.compile(r"(?i)(\bbearer(?:\s|%20|\+)+)[^\s\"',;]+"), r"\1" + REDACTED),
    (re.compile(r"\b(st|nk)_[A-Za-z0-9_-]{6,}"), r"\1_" + REDACTED),
]


def _environment_secrets() -> re.Pattern | None:
    keys = sorted(
        {k.strip() for k in os.environ.get("NAIPES_API_KEYS", "").split(",") if len(k.strip()) >= 6},
        key=len,
        reverse=True,
    )
    return re.compile("|".join(re.escape(k) for k in keys)) if keys else None


_ENV_SECRETS = _environment_secrets()


def redact(text: str) -> str:
    """``text`` without any credential in it."""
    if _ENV_SECRETS is not None:
        text = _ENV_SECRETS.sub(REDACTED, text)
    for pattern, replacement in _SECRETS:
        text = pattern.sub(replacement, text)
    return text


class Redact(logging.Filter):
    """Rewrites a record's message without credentials (for handlers that format it themselves)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a malformed record is logging's to report
            return True
        clean = redact(message)
        if clean != message:
            record.msg, record.args = clean, None
        return True


class ClientTimeouts(logging.Filter):
    """gunicorn's report of a client whose socket timed out (it sent or read too slowly): one line at
    info level instead of an error with a traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if not isinstance(exc, TimeoutError):
            return True
        record.msg, record.args, record.exc_info, record.exc_text = "client connection timed out", None, None, None
        record.levelno, record.levelname = logging.INFO, "INFO"
        return logging.getLogger(record.name).isEnabledFor(logging.INFO)


class GameContext(logging.Filter):
    """Adds ``game_id`` and ``version`` to records that do not carry them."""

    def filter(self, record: logging.LogRecord) -> bool:
        game_id, version = _game.get()
        if game_id is None:
            game_id, version = _from_request()
        if getattr(record, "game_id", None) is None and game_id is not None:
            record.game_id = game_id
        if getattr(record, "version", None) is None and version is not None:
            record.version = version
        return True


def _from_request() -> tuple[str | None, int | None]:
    try:
        from flask import g, has_request_context, request
    except ImportError:  # pragma: no cover - flask is a dependency
        return None, None
    if not has_request_context():
        return None, None
    game_id = (request.view_args or {}).get("game_id")
    return game_id, g.get("naipes_version")


class Formatter(JsonFormatter):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("fmt", "%(asctime)s %(levelname)s %(name)s %(message)s")
        kwargs.setdefault("rename_fields", {"asctime": "time", "levelname": "level", "name": "logger"})
        kwargs.setdefault("timestamp", False)
        super().__init__(*args, **kwargs)

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))  # the message, an exception's text, every extra field

    def formatTime(self, record, datefmt=None):  # logging's name
        from datetime import datetime

        return datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def handler(stream=None) -> logging.Handler:
    h = logging.StreamHandler(stream)
    h.setFormatter(Formatter())
    h.addFilter(GameContext())
    h.addFilter(Redact())
    return h


def configure(level: str | None = None, stream=None) -> None:
    """JSON lines on stderr for the root logger (idempotent)."""
    root = logging.getLogger()
    level = (level or os.environ.get("NAIPES_LOG_LEVEL", "WARNING")).upper()
    for h in root.handlers:
        if isinstance(h.formatter, Formatter):
            root.setLevel(level)
            return
    for h in list(root.handlers):
        root.removeHandler(h)
    root.addHandler(handler(stream))
    root.setLevel(level)


# gunicorn's logconfig_dict: its own loggers and the application's, as JSON lines, without credentials.
# gunicorn's access log is written when NAIPES_ACCESS_LOG is set or the level is info or debug.
def gunicorn_logconfig(level: str, access: bool | None = None) -> dict:
    level = level.upper()
    if access is None:
        access = bool(os.environ.get("NAIPES_ACCESS_LOG")) or level in ("INFO", "DEBUG")
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {
            "game": {"()": "service.logs.GameContext"},
            "redact": {"()": "service.logs.Redact"},
            "timeouts": {"()": "service.logs.ClientTimeouts"},
        },
        "formatters": {"json": {"()": "service.logs.Formatter"}},
        "handlers": {
            "stderr": {
                "class": "logging.StreamHandler",
                "formatter": "json",
                "filters": ["game", "redact"],
                "stream": "ext://sys.stderr",
            }
        },
        "root": {"level": level, "handlers": ["stderr"], "filters": ["redact"]},
        "loggers": {
            "gunicorn.error": {
                "level": level,
                "handlers": ["stderr"],
                "propagate": False,
                "filters": ["timeouts", "redact"],
            },
            "gunicorn.access": {
                "level": "INFO" if access else "WARNING",
                "handlers": ["stderr"],
                "propagate": False,
                "filters": ["redact"],
            },
        },
    }


def gunicorn_logger_class():
    """gunicorn's Logger, building a request's access-log line only when ``gunicorn.access`` logs it:
    gunicorn counts the access log on as soon as a logging configuration is given, and then
    formats every request's fields for a logger that drops them."""
    from gunicorn import glogging

    class Logger(glogging.Logger):
        def setup(self, cfg):
            super().setup(cfg)
            self._access_log_enabled = self._access_log_enabled and self.access_log.isEnabledFor(logging.INFO)

    return Logger
