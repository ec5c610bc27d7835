"""The URL converters of ids: a path id that breaks :mod:`service.core.ids`'s rule never reaches
the application (it is a 404 problem like any unknown id)."""

from __future__ import annotations

from werkzeug.routing import BaseConverter, ValidationError

from service.core.ids import (
    TOURNAMENT_ID,
    describe_game_id,
    is_game_id,
    is_tournament_id,
)


class GameIdConverter(BaseConverter):
    regex = "[^/]+"

    def to_python(self, value: str) -> str:
        if not is_game_id(value):
            raise ValidationError()
        return value


class TournamentIdConverter(BaseConverter):
    regex = "[^/]+"

    def to_python(self, value: str) -> str:
        if not is_tournament_id(value):
            raise ValidationError()
        return value


def install(app, api) -> None:
    """Register the converters on the Flask app and describe them in the spec."""
    app.url_map.converters["game_id"] = GameIdConverter
    app.url_map.converters["tournament_id"] = TournamentIdConverter
    api.register_converter(
        GameIdConverter,
        lambda _c: {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$", "description": describe_game_id()},
    )
    api.register_converter(TournamentIdConverter, lambda _c: {"type": "string", "pattern": f"^{TOURNAMENT_ID}$"})
