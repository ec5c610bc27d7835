"""Structured logs: one JSON object per line.

Every record carries ``time``, ``level``, ``logger`` and ``message``, and
``game_id`` and ``version`` where known: from the record's ``extra``, from
:func:`game_context` (the workers set it around a job), or from the HTTP
request being served (the route's ``game_id``; the version the response
names in its ETag).
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import os

from pythonjsonlogger.json import JsonFormatter

_game: contextvars.ContextVar[tuple[str | None, int | None]] = contextvars.ContextVar("naipes_game",
                                                                                       default=(None, None))


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

    def formatTime(self, record, datefmt=None):  # noqa: N802 - logging's name
        from datetime import datetime, timezone

        return datetime.fromtimestamp(record.created, timezone.utc).isoformat(timespec="milliseconds") \
            .replace("+00:00", "Z")


def handler(stream=None) -> logging.Handler:
    h = logging.StreamHandler(stream)
    h.setFormatter(Formatter())
    h.addFilter(GameContext())
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


# gunicorn's logconfig_dict: its own loggers and the application's, as JSON lines
def gunicorn_logconfig(level: str) -> dict:
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"game": {"()": "service.logs.GameContext"}},
        "formatters": {"json": {"()": "service.logs.Formatter"}},
        "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "json", "filters": ["game"],
                                "stream": "ext://sys.stderr"}},
        "root": {"level": level.upper(), "handlers": ["stderr"]},
        "loggers": {
            "gunicorn.error": {"level": level.upper(), "handlers": ["stderr"], "propagate": False},
            "gunicorn.access": {"level": "INFO", "handlers": ["stderr"], "propagate": False},
        },
    }
