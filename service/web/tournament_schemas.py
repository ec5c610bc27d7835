"""Marshmallow schemas of the tournament and webhook routes."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from domain.table import BOT_KINDS
from domain.tournament import EVENT_SCHEMAS, FORMATS, MAX_PLAYERS, MAX_ROUNDS
from service.core.webhooks import EVENTS, RETRY_INTERVALS, SIGNATURE_HEADER, TIMEOUT_SECONDS
from service.web.schemas import GAME_TYPE, MAX_COUNT, ChainSchema, EventSchema, OutcomeSchema, page_limit

NAME = validate.Length(min=1, max=64)


class TableSizeSchema(ma.Schema):
    min = fields.Integer(
        required=True, validate=validate.Range(min=1, max=64), metadata={"description": "Fewest players at a table"}
    )
    max = fields.Integer(
        validate=validate.Range(min=1, max=64), metadata={"description": "Most players at a table (default: min)"}
    )


class CreateTournamentSchema(ma.Schema):
    name = fields.String(validate=validate.Length(max=200), load_default="")
    game = fields.String(
        required=True,
        validate=GAME_TYPE,
        metadata={"description": "A game type id from GET /game-types", "example": "dalmuti"},
    )
    options = fields.Dict(
        keys=fields.String(validate=validate.Length(min=1, max=64)),
        load_default=dict,
        metadata={
            "description": "Options of every game (timing options included)",
            "example": {"hands": 1, "turn_seconds": 60},
        },
    )
    players = fields.List(
        fields.String(validate=NAME),
        required=True,
        validate=validate.Length(min=2, max=MAX_PLAYERS),
        metadata={"description": "Player names, in registration order (the last tie-break)"},
    )
    format = fields.String(
        required=True, validate=validate.OneOf(FORMATS), metadata={"description": "round_robin, swiss or duplicate"}
    )
    rounds = fields.Integer(
        validate=validate.Range(min=1, max=MAX_ROUNDS),
        metadata={
            "description": "Default: round_robin enough for everyone to meet everyone, "
            "swiss ceil(log2 players), duplicate the table size"
        },
    )
    table_size = fields.Nested(
        TableSizeSchema,
        required=True,
        metadata={"description": "Players per table, within the game's limits", "example": {"min": 4, "max": 4}},
    )
    seed = fields.Integer(
        validate=validate.Range(min=0, max=2**63 - 1),
        metadata={
            "description": "Randomness of the pairings (and duplicate deals); "
            "default: drawn by the server. Kept private."
        },
    )
    bots = fields.Dict(
        keys=fields.String(validate=NAME),
        values=fields.String(validate=validate.OneOf(BOT_KINDS)),
        load_default=dict,
        metadata={
            "description": "Players the service's bots play, by name: 'random', 'heuristic' or 'search' "
            "(each of their seats gets the table option bots)",
            "example": {"carl": "search"},
        },
    )


class TournamentPlayerSchema(ma.Schema):
    player = fields.String(required=True)
    withdrawn = fields.Boolean(required=True)


class SeatSchema(ma.Schema):
    seat = fields.Integer(required=True)
    player = fields.String(required=True)
    token = fields.String(metadata={"description": "The seat token (only for the tournament's own key)"})


class TableResultSchema(ma.Schema):
    scores = fields.List(fields.Raw(), required=True, metadata={"description": "The game's scores, per seat"})
    points = fields.List(
        fields.Raw(),
        required=True,
        metadata={
            "description": "What the standings count, per seat: the game's scores "
            "(Cripple Mr Onion: money won or lost, the final bankroll less the starting one), "
            "0 for everyone when a reviewer voided the game"
        },
    )
    winners = fields.List(fields.Integer(), required=True)
    ranking = fields.List(fields.Integer(), required=True)
    void = fields.Boolean()
    corrections = fields.Integer(
        metadata={
            "description": "How many times a reviewer's adjudication of the "
            "finished game changed this result (absent: never)"
        }
    )


class RoundTableSchema(ma.Schema):
    table = fields.Integer(required=True)
    game_id = fields.String(allow_none=True, required=True)
    seats = fields.List(fields.Nested(SeatSchema), required=True)
    result = fields.Nested(TableResultSchema, allow_none=True, required=True)


class RoundSchema(ma.Schema):
    tournament = fields.String(required=True)
    round = fields.Integer(required=True)
    status = fields.String(required=True, validate=validate.OneOf(["pairing", "playing", "finished"]))
    byes = fields.List(fields.String(), required=True, metadata={"description": "Players sitting this round out"})
    tables = fields.List(fields.Nested(RoundTableSchema), required=True)
    tokens_included = fields.Boolean(required=True)


class TournamentSchema(ma.Schema):
    id = fields.String(required=True, metadata={"example": "t-5f0c2a9e81b3d4c7"})
    name = fields.String(required=True)
    game = fields.String(required=True)
    options = fields.Dict(required=True)
    format = fields.String(required=True)
    rounds = fields.Integer(required=True)
    table_size = fields.Nested(TableSizeSchema, required=True)
    tie_breaks = fields.List(fields.String(), required=True, metadata={"description": "After points, in order"})
    bots = fields.Dict(
        keys=fields.String(), values=fields.String(), required=True, metadata={"description": "Players bots play"}
    )
    status = fields.String(required=True, validate=validate.OneOf(["created", "running", "finished"]))
    round = fields.Integer(required=True, metadata={"description": "The round in play (0 before the first)"})
    finish_reason = fields.String(allow_none=True, required=True)
    players = fields.List(fields.Nested(TournamentPlayerSchema), required=True)
    version = fields.Integer(required=True)
    created_at = fields.String(required=True)
    updated_at = fields.String(required=True)


class CreatedTournamentSchema(TournamentSchema):
    round_detail = fields.Nested(
        RoundSchema, allow_none=True, required=True, metadata={"description": "Round 1 with its games and seat tokens"}
    )


class TournamentListQuerySchema(ma.Schema):
    status = fields.String(validate=validate.OneOf(["created", "running", "finished"]))
    limit = page_limit(50, 500, "tournaments")
    cursor = fields.String(
        validate=validate.Length(min=1, max=200),
        metadata={"description": "Where the page starts: the next_cursor of the previous page (opaque)"},
    )
    offset = fields.Integer(
        load_default=0,
        validate=validate.Range(min=0, max=MAX_COUNT),
        metadata={"description": "Rows to skip (without cursor only; kept for older clients)"},
    )

    @ma.validates_schema
    def _one_way_to_page(self, data, **_kwargs):
        if data.get("cursor") is not None and data.get("offset"):
            raise ma.ValidationError("give cursor or offset, not both", "offset")


class TournamentSummarySchema(ma.Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    game = fields.String(required=True)
    format = fields.String(required=True)
    status = fields.String(required=True)
    round = fields.Integer(required=True)
    rounds = fields.Integer(required=True)
    players = fields.Integer(required=True)
    version = fields.Integer(required=True)
    created_at = fields.String(required=True)
    updated_at = fields.String(required=True)


class TournamentListSchema(ma.Schema):
    total = fields.Integer(required=True, metadata={"description": "Tournaments matching the filter"})
    tournaments = fields.List(
        fields.Nested(TournamentSummarySchema), required=True, metadata={"description": "Newest first"}
    )
    next_cursor = fields.String(
        allow_none=True, required=True, metadata={"description": "The cursor of the next page; null on the last page"}
    )


class StandingSchema(ma.Schema):
    rank = fields.Integer(required=True)
    player = fields.String(required=True)
    points = fields.Float(required=True, metadata={"description": "Sum of the player's points over its tables"})
    games = fields.Integer(required=True)
    wins = fields.Integer(required=True, metadata={"description": "Tables where it was among the winners"})
    byes = fields.Integer(required=True)
    par = fields.Float(
        required=True,
        metadata={
            "description": "Over the rounds, the player's points minus the mean points of the players who held the "
            "same seat number at the round's other tables. In a duplicate tournament those players held the same "
            "cards, so par measures play against the same deal (its first ranking criterion); in other formats it "
            "is shown, not ranked by"
        },
    )
    opponents_points = fields.Float(required=True, metadata={"description": "Buchholz: opponents' points"})
    withdrawn = fields.Boolean(required=True)


class StandingsSchema(ma.Schema):
    id = fields.String(required=True)
    version = fields.Integer(required=True)
    status = fields.String(required=True)
    round = fields.Integer(required=True)
    tie_breaks = fields.List(
        fields.String(), required=True, metadata={"description": "The whole order: points, then the tie-breaks"}
    )
    standings = fields.List(fields.Nested(StandingSchema), required=True)


class WithdrawSchema(ma.Schema):
    player = fields.String(required=True, validate=NAME)


class WithdrawnSchema(ma.Schema):
    player = fields.String(required=True)
    round = fields.Integer(required=True, metadata={"description": "The round in play; later rounds skip the player"})
    version = fields.Integer(required=True)


class TournamentEventsQuerySchema(ma.Schema):
    after = fields.Integer(load_default=0, validate=validate.Range(min=0, max=MAX_COUNT))
    limit = page_limit(1000, 5000, "events")


class TournamentEventsSchema(ma.Schema):
    id = fields.String(required=True)
    version = fields.Integer(required=True)
    head_hash = fields.String(required=True)
    chain = fields.Nested(ChainSchema, required=True)
    events = fields.List(
        fields.Nested(EventSchema),
        required=True,
        metadata={
            "description": "The tournament's events from `after`, each `data` of the component Tournament<Type>Data "
            f"by its `type` ({', '.join(EVENT_SCHEMAS)}); `game_id` is the tournament's id"
        },
    )


class CreateWebhookSchema(ma.Schema):
    # checked by service.core.webhooks.check_url, whose 422 names what is wrong (bad-url, private-address)
    url = fields.String(
        required=True,
        validate=validate.Length(max=2048),
        metadata={"format": "url", "example": "https://example.org/naipes-hook"},
    )
    events = fields.List(
        fields.String(validate=validate.OneOf(EVENTS)),
        load_default=lambda: list(EVENTS),
        validate=validate.Length(min=1, max=len(EVENTS)),
        metadata={"description": "Default: all of " + ", ".join(EVENTS)},
    )


class WebhookSchema(ma.Schema):
    id = fields.String(required=True)
    url = fields.String(required=True)
    events = fields.List(fields.String(), required=True)
    created_at = fields.String(required=True)


class CreatedWebhookSchema(WebhookSchema):
    secret = fields.String(required=True, metadata={"description": "The signing secret; shown only once"})


class DeliverySchema(ma.Schema):
    delivery = fields.String(required=True)
    event = fields.String(required=True)
    event_id = fields.String(required=True)
    attempt = fields.Integer(required=True)
    at = fields.String(required=True)
    status = fields.Integer(allow_none=True, required=True, metadata={"description": "The receiver's status code"})
    ok = fields.Boolean(required=True)
    error = fields.String(allow_none=True, required=True)
    duration_ms = fields.Float(required=True)
    next_retry_seconds = fields.Integer(allow_none=True, required=True)


class DeliveriesQuerySchema(ma.Schema):
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=500))


class DeliveriesSchema(ma.Schema):
    webhook = fields.Nested(WebhookSchema, required=True)
    deliveries = fields.List(
        fields.Nested(DeliverySchema), required=True, metadata={"description": "Attempts, newest first"}
    )


# What a webhook is sent: the body of each event type (the callback of POST /webhooks)


class WebhookTablePlaceSchema(ma.Schema):
    id = fields.String(required=True, metadata={"description": "The tournament's id"})
    round = fields.Integer(required=True)
    table = fields.Integer(required=True, metadata={"description": "The table's number in its round, from 0"})


class WebhookGameFinishedDataSchema(ma.Schema):
    game_id = fields.String(required=True)
    game = fields.String(required=True, metadata={"description": "The game type"})
    result = fields.Nested(OutcomeSchema, required=True, metadata={"description": "As GET /games/{game_id} shows it"})
    players = fields.List(fields.String(), required=True, metadata={"description": "In seat order"})
    tournament = fields.Nested(
        WebhookTablePlaceSchema, metadata={"description": "Where the game was played, for a tournament's table only"}
    )


class WebhookPairedTableSchema(ma.Schema):
    table = fields.Integer(required=True)
    players = fields.List(fields.String(), required=True, metadata={"description": "In seat order"})
    game_id = fields.String(required=True)


class WebhookRoundPairedDataSchema(ma.Schema):
    tournament = fields.String(required=True, metadata={"description": "The tournament's id"})
    round = fields.Integer(required=True)
    byes = fields.List(fields.String(), required=True, metadata={"description": "Players who sit the round out"})
    tables = fields.List(fields.Nested(WebhookPairedTableSchema), required=True)


class WebhookTournamentFinishedDataSchema(ma.Schema):
    tournament = fields.String(required=True, metadata={"description": "The tournament's id"})
    reason = fields.String(required=True, metadata={"description": "Why it ended, in words"})
    standings = fields.List(fields.Nested(StandingSchema), required=True, metadata={"description": "Best first"})


class WebhookResultCorrectedDataSchema(ma.Schema):
    tournament = fields.String(required=True, metadata={"description": "The tournament's id"})
    round = fields.Integer(required=True)
    table = fields.Integer(required=True)
    game_id = fields.String(required=True)
    points = fields.List(fields.Float(), required=True, metadata={"description": "The table's points now, per seat"})
    previous_points = fields.List(
        fields.Float(), required=True, metadata={"description": "The points recorded before, per seat"}
    )
    standings = fields.List(
        fields.Nested(StandingSchema), required=True, metadata={"description": "The standings after it, best first"}
    )


def _webhook_event(event_type: str, data: type[ma.Schema], what: str, event_id: str) -> type[ma.Schema]:
    return ma.Schema.from_dict(
        {
            "id": fields.String(
                required=True,
                metadata={
                    "description": f"The event's id, `{event_id}`: the same for every webhook told of it and "
                    "in every attempt (a receiver keeps it to act once)"
                },
            ),
            "type": fields.String(required=True, validate=validate.OneOf([event_type])),
            "created_at": fields.String(
                required=True, metadata={"description": "When the event was handed to the webhooks (ISO 8601, UTC)"}
            ),
            "data": fields.Nested(data, required=True, metadata={"description": what}),
        },
        name=data.__name__.replace("DataSchema", ""),
    )


WEBHOOK_EVENTS = {
    "game.finished": _webhook_event(
        "game.finished",
        WebhookGameFinishedDataSchema,
        "A game ended: told to the webhooks of the owner of the game's tournament and of keys of the `games` "
        "scope, once the key may see the game at its end (a duplicate round's table: once its round's "
        "embargo lifts, but at once to the tournament's owner and keys of full sight)",
        "game.finished:<game_id>",
    ),
    "round.paired": _webhook_event(
        "round.paired",
        WebhookRoundPairedDataSchema,
        "A round's tables are drawn and their games made: told to the tournament owner's webhooks",
        "round.paired:<tournament>:<round>",
    ),
    "tournament.finished": _webhook_event(
        "tournament.finished",
        WebhookTournamentFinishedDataSchema,
        "A tournament ended: told to its owner's webhooks",
        "tournament.finished:<tournament>",
    ),
    "result.corrected": _webhook_event(
        "result.corrected",
        WebhookResultCorrectedDataSchema,
        "A reviewer's ruling changed a recorded table's result: told to the tournament owner's webhooks",
        "result.corrected:<tournament>:<version of the tournament's log>",
    ),
}


def webhook_callbacks() -> dict:
    """The POST /webhooks callback: the request each registered URL is sent, by event type."""
    names = {kind: schema.__name__ for kind, schema in WEBHOOK_EVENTS.items()}
    retries = ", ".join(str(s) for s in RETRY_INTERVALS)
    headers = [
        ("Naipes-Event", "The event's type, as `type` in the body"),
        (
            "Naipes-Delivery",
            "This event's delivery to this webhook, the same in every attempt: a receiver drops repeats by it",
        ),
        (
            SIGNATURE_HEADER,
            "`t=<unix seconds>,v1=<hex>`: `v1` is the HMAC-SHA256, keyed by the webhook's secret (its UTF-8 "
            "bytes; given once, when it was registered), of the text `<t>.<raw body>`. Check it over the bytes "
            "received (before parsing), compare in constant time, and refuse a `t` more than a few minutes from "
            "your clock",
        ),
    ]
    return {
        "event": {
            "{$request.body#/url}": {
                "post": {
                    "summary": "What the webhook's URL is sent: one event, signed",
                    "description": "Each event of the webhook's `events` is POSTed to its URL as JSON, one event a "
                    f"request, its `type` naming its shape. An answer of 2xx within {TIMEOUT_SECONDS:g} s is a "
                    f"delivery; anything else is tried again after {retries} s ({len(RETRY_INTERVALS) + 1} "
                    "attempts in all), each attempt in GET /webhooks/{webhook_id}/deliveries. Events come at "
                    "least once and in no set order: keep `id` (or `Naipes-Delivery`) to act once. A URL whose "
                    "host resolves to an address that is not public is not called.",
                    "operationId": "receiveWebhookEvent",
                    "parameters": [
                        {"name": name, "in": "header", "required": True, "schema": {"type": "string"}, "description": d}
                        for name, d in headers
                    ],
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/json": {
                                "schema": {
                                    "oneOf": [{"$ref": f"#/components/schemas/{n}"} for n in names.values()],
                                    "discriminator": {
                                        "propertyName": "type",
                                        "mapping": {k: f"#/components/schemas/{n}" for k, n in names.items()},
                                    },
                                }
                            }
                        },
                    },
                    "responses": {
                        "2XX": {"description": "Delivered"},
                        "default": {"description": "Not delivered: the event is sent again later"},
                    },
                }
            }
        }
    }
