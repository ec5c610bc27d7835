"""Marshmallow schemas of the HTTP contract (they generate openapi.yaml)."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from domain.table import ADJUDICATIONS
from service.core.keys import SCOPES
from service.core.problems import PREFIX, PROBLEM_TYPES, described

# Bounds of numbers taken from requests: far beyond any real game, and small enough that what the
# store keeps (and sums of it) stays a 64-bit integer or a finite double.
MAX_COUNT = 10**9  # versions, offsets: no game or list comes near a billion
MAX_SCORE = 1e12  # an awarded score or a correction; a billion corrections of it still sum to a finite double
MAX_HAND = 10_000  # a hand number: no game's options allow more than 500 rounds
GAME_TYPE = validate.Length(min=1, max=64)


def printable(value: str) -> None:
    if not value.isprintable():
        raise ma.ValidationError("must be printable characters (no control character)")


class ProblemSchema(ma.Schema):
    """An error, as RFC 9457 application/problem+json."""

    class Meta:
        unknown = ma.INCLUDE  # RFC 9457 extension members (e.g. the problems of an import)

    type = fields.String(
        required=True,
        validate=validate.OneOf([PREFIX + kind for kind in PROBLEM_TYPES]),
        metadata={
            "description": "URI naming the kind of problem, `urn:naipes:problem:<kind>`; "
            "the status and what a client can do about it, by kind:\n" + described(),
            "example": "urn:naipes:problem:illegal-move",
            "x-problem-types": dict(PROBLEM_TYPES),
        },
    )
    title = fields.String(required=True, metadata={"description": "Short summary of the kind"})
    status = fields.Integer(required=True, metadata={"description": "HTTP status code"})
    detail = fields.String(required=True, metadata={"description": "What was wrong with this request"})
    instance = fields.String(metadata={"description": "The request path"})
    rule = fields.String(metadata={"description": "For refused moves: the id of the rule broken"})
    current_version = fields.Integer(metadata={"description": "For version mismatches: the game's version"})
    errors = fields.Dict(metadata={"description": "Field-by-field validation messages"})


class OptionSpecSchema(ma.Schema):
    class Meta:
        unknown = ma.INCLUDE

    type = fields.Raw(metadata={"description": "JSON Schema type of the option"})
    default = fields.Raw(allow_none=True)
    description = fields.String()
    minimum = fields.Float()
    maximum = fields.Float()
    enum = fields.List(fields.Raw())


class CreationConstraintSchema(ma.Schema):
    id = fields.String(
        required=True,
        metadata={
            "description": "The constraint's name: a creation breaking it is refused (422) with this name as the "
            "problem's `rule` (or, for player-count, as its type)",
            "example": "odd-player-count",
        },
    )
    on = fields.List(
        fields.String(validate=validate.OneOf(["player_count", "options"])),
        required=True,
        metadata={"description": "What of the creation the constraint reads"},
    )
    description = fields.String(required=True)
    schema = fields.Dict(
        required=True,
        metadata={
            "description": 'A JSON Schema (2020-12) that {"player_count": <number of players>, "options": '
            "{<every option, defaults filled in>}} must satisfy",
            "example": {"properties": {"player_count": {"multipleOf": 2}}},
        },
    )


class GameTypeSchema(ma.Schema):
    id = fields.String(required=True, metadata={"example": "dalmuti"})
    title = fields.String(required=True)
    rules_version = fields.String(required=True)
    min_players = fields.Integer(required=True)
    max_players = fields.Integer(required=True)
    options = fields.Dict(
        keys=fields.String(),
        values=fields.Nested(OptionSpecSchema),
        required=True,
        metadata={"description": "Option name -> JSON Schema of the option, with its default"},
    )
    constraints = fields.List(
        fields.Nested(CreationConstraintSchema),
        required=True,
        metadata={
            "description": "Every constraint a creation can fail on beyond each option's own schema (and no option "
            "outside `options`): the player count, counts some options or the rules refuse, options "
            "that depend on each other. A creation satisfying them all and the options' schemas "
            "starts."
        },
    )


class WordsSchema(ma.Schema):
    en = fields.String(required=True)
    es = fields.String(required=True)


class CardSchema(ma.Schema):
    class Meta:
        unknown = ma.INCLUDE

    code = fields.String(required=True, metadata={"description": "The card's code, as the game's notation writes it"})
    id = fields.Raw(
        required=True,
        metadata={
            "description": "The value that stands for this card in views, moves and events (an integer or a string)"
        },
    )
    suit = fields.String(allow_none=True, required=True, metadata={"description": "None for cards outside the suits"})
    rank = fields.String(required=True)
    name = fields.Nested(WordsSchema, required=True, metadata={"description": "The card's name in English and Spanish"})
    colour = fields.String(required=True, metadata={"description": "The colour the card is printed in"})
    points = fields.Integer(metadata={"description": "What the card counts, where the game counts card points"})
    copies = fields.Integer(metadata={"description": "How many identical copies the deck holds, where more than one"})


class NamedSchema(ma.Schema):
    class Meta:
        unknown = ma.INCLUDE

    id = fields.String(required=True)
    name = fields.Nested(WordsSchema, required=True)
    description = fields.Nested(WordsSchema)


class MoveTypeSchema(ma.Schema):
    type = fields.String(required=True, metadata={"description": "The move's ``type``"})
    description = fields.Nested(WordsSchema, required=True)
    schema = fields.Dict(
        required=True,
        metadata={
            "description": "JSON Schema (2020-12) of the move object as posted; a field or item holding a card is "
            "marked x-naipes-card"
        },
    )


class GameDescriptionSchema(GameTypeSchema):
    card_pattern = fields.String(
        required=True, metadata={"description": "A regular expression every card code matches"}
    )
    deck = fields.List(fields.Nested(CardSchema), required=True, metadata={"description": "Every card of the game"})
    phases = fields.List(fields.Nested(NamedSchema), required=True)
    roles = fields.List(fields.Nested(NamedSchema), required=True)
    moves = fields.List(fields.Nested(MoveTypeSchema), required=True, metadata={"description": "Every move type"})
    events = fields.List(fields.String(), required=True, metadata={"description": "Every event type of the game's log"})
    languages = fields.List(
        fields.String(), required=True, metadata={"description": "The languages of labels (Accept-Language)"}
    )


class CreateGameSchema(ma.Schema):
    game = fields.String(
        required=True,
        validate=GAME_TYPE,
        metadata={"description": "A game type id from GET /game-types", "example": "dalmuti"},
    )
    players = fields.List(
        fields.String(validate=validate.Length(min=1, max=64)),
        required=True,
        validate=validate.Length(min=1, max=64),
        metadata={
            "description": "Player names, one per seat, in seat order",
            "example": ["ana", "bea", "carl", "dani"],
        },
    )
    options = fields.Dict(
        keys=fields.String(validate=validate.Length(min=1, max=64)),
        load_default=dict,
        metadata={"description": "Game options; see GET /game-types for names and defaults", "example": {"hands": 2}},
    )


class SeatTokenSchema(ma.Schema):
    seat = fields.Integer(required=True)
    player = fields.String(required=True)
    token = fields.String(required=True, metadata={"description": "The seat's bearer token; shown only once"})


class CreatedGameSchema(ma.Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    version = fields.Integer(required=True)
    seats = fields.List(fields.Nested(SeatTokenSchema), required=True)


CURSOR = validate.Length(min=1, max=200)


class GameListQuerySchema(ma.Schema):
    game = fields.String(validate=GAME_TYPE, metadata={"description": "Only games of this type"})
    status = fields.String(validate=validate.OneOf(["active", "finished"]))
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=500))
    cursor = fields.String(
        validate=CURSOR,
        metadata={
            "description": "Where the page starts: the next_cursor of the previous page (opaque). Pages follow the "
            "same order whatever is created meanwhile; the first page has no cursor"
        },
    )
    offset = fields.Integer(
        load_default=0,
        validate=validate.Range(min=0, max=MAX_COUNT),
        metadata={
            "description": "Rows to skip (without cursor only; kept for older clients: a page by offset shifts when "
            "games are created meanwhile, a page by cursor does not)"
        },
    )

    @ma.validates_schema
    def _one_way_to_page(self, data, **_kwargs):
        if data.get("cursor") is not None and data.get("offset"):
            raise ma.ValidationError("give cursor or offset, not both", "offset")


class GameSummarySchema(ma.Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(["active", "finished"]))
    created_at = fields.String(required=True)
    updated_at = fields.String(
        required=True,
        metadata={
            "description": "Time of the game's latest event the caller may see (a duplicate round's embargo holds "
            "it back like the view)"
        },
    )
    version = fields.Integer(
        required=True, metadata={"description": "The game's current version, as its view shows it to the caller"}
    )
    players = fields.List(fields.String(), required=True)
    timed = fields.Boolean(metadata={"description": "Whether turns have deadlines"})
    provenance = fields.String(
        validate=validate.OneOf(["native", "imported"]),
        metadata={"description": "Whether the game was written here or imported"},
    )


class GameListSchema(ma.Schema):
    total = fields.Integer(required=True, metadata={"description": "Games matching the filters"})
    games = fields.List(fields.Nested(GameSummarySchema), required=True, metadata={"description": "Newest first"})
    next_cursor = fields.String(
        allow_none=True, required=True, metadata={"description": "The cursor of the next page; null on the last page"}
    )


class OutcomeSchema(ma.Schema):
    """A finished game's result; each game adds members of its own."""

    class Meta:
        unknown = ma.INCLUDE

    scores = fields.List(fields.Raw(), required=True, metadata={"description": "Per seat"})
    ranking = fields.List(
        fields.Integer(), required=True, metadata={"description": "Seats, best first (tied seats in seat order)"}
    )
    ranks = fields.List(
        fields.Integer(allow_none=True),
        required=True,
        metadata={
            "description": "Per seat, its place: equal scores share a place and the next place is skipped "
            "(1, 2, 2, 4); a game whose rules break ties (El Gran Dalmuti) has none; null for a "
            "seat left out of the ranking"
        },
    )
    winners = fields.List(fields.Integer(), required=True, metadata={"description": "Every seat sharing first place"})
    void = fields.Boolean(metadata={"description": "Voided by a reviewer: no result"})
    adjudicated = fields.Boolean(metadata={"description": "A reviewer's ruling changed the result"})


class EmbargoSchema(ma.Schema):
    version = fields.Integer(required=True, metadata={"description": "The latest version the caller may see"})
    reason = fields.String(required=True)


class ProvenanceSchema(ma.Schema):
    class Meta:
        unknown = ma.INCLUDE

    kind = fields.String(
        required=True,
        validate=validate.OneOf(["native", "imported"]),
        metadata={"description": "native: written here; imported: written elsewhere and imported"},
    )
    imported_at = fields.String()
    imported_by = fields.String(allow_none=True, metadata={"description": "The id of the key that imported it"})
    imported_version = fields.Integer(metadata={"description": "The last version written elsewhere"})
    source_head_hash = fields.String()
    exported_at = fields.String(allow_none=True)
    review_events = fields.Integer(
        metadata={"description": "Review events in the imported log (rulings made elsewhere)"}
    )


class ViewerSchema(ma.Schema):
    kind = fields.String(required=True, validate=validate.OneOf(["seat", "spectator", "integrator"]))
    seat = fields.Integer(allow_none=True)


class GameViewSchema(ma.Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    rules_version = fields.String(allow_none=True)
    version = fields.Integer(required=True, metadata={"description": "Number of events in the log"})
    viewer = fields.Nested(ViewerSchema, required=True)
    players = fields.List(fields.String(), required=True)
    to_act = fields.List(fields.Integer(), required=True, metadata={"description": "Seats that may act now"})
    deadlines = fields.Dict(
        keys=fields.String(),
        values=fields.String(allow_none=True),
        required=True,
        metadata={"description": "Seat -> deadline of its pending decision (timed games)"},
    )
    bank = fields.Dict(
        keys=fields.String(),
        values=fields.Float(),
        allow_none=True,
        metadata={"description": "Seat -> seconds left in its time bank"},
    )
    absent = fields.List(
        fields.Integer(), required=True, metadata={"description": "Seats marked absent after repeated timeouts"}
    )
    frozen = fields.Boolean(required=True)
    finished = fields.Boolean(required=True)
    result = fields.Nested(
        OutcomeSchema, allow_none=True, required=True, metadata={"description": "The outcome once finished"}
    )
    options = fields.Dict(required=True)
    created_at = fields.String(required=True)
    updated_at = fields.String(required=True)
    state = fields.Dict(required=True, metadata={"description": "The game as this viewer may see it"})
    embargo = fields.Nested(
        EmbargoSchema,
        allow_none=True,
        metadata={
            "description": "Set while a duplicate round holds the caller back: the game is shown as it was at this "
            "version, before a deal other tables of its round are still playing"
        },
    )
    provenance = fields.Nested(ProvenanceSchema, required=True)


class MoveSchema(ma.Schema):
    """A move, exactly as listed by legal-moves (game-specific fields beside ``type``)."""

    class Meta:
        unknown = ma.INCLUDE

    type = fields.String(
        required=True,
        validate=validate.Length(min=1, max=64),
        metadata={"description": "The kind of move", "example": "play"},
    )
    label = fields.String(
        validate=validate.Length(max=1000),
        metadata={
            "description": "Ignored: the move's words, as legal-moves gives them (a move may be posted back whole)"
        },
    )


class LegalMovesSchema(ma.Schema):
    version = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    moves = fields.List(
        fields.Dict(),
        required=True,
        metadata={
            "description": "Each item can be posted as it is to /moves; its `label` (the move in words, in the "
            "language of Accept-Language: en or es) is ignored by /moves",
            "example": [
                {"type": "play", "cards": [12, 12], "label": "play two 12s"},
                {"type": "pass", "label": "pass"},
            ],
        },
    )
    deadline = fields.String(allow_none=True, metadata={"description": "When this seat times out, if timed"})


class EventSchema(ma.Schema):
    class Meta:
        unknown = ma.INCLUDE

    game_id = fields.String(required=True)
    version = fields.Integer(required=True)
    type = fields.String(required=True)
    time = fields.String(required=True)
    actor = fields.String(required=True, metadata={"description": "seat:<n>, system, worker or integrator"})
    data = fields.Dict(required=True, metadata={"description": "The public part"})
    private = fields.Dict(metadata={"description": "Seat -> secret part; only the parts the caller may see"})
    rules = fields.String(metadata={"description": "Rules version that produced the event"})
    prev_hash = fields.String(required=True)
    hash = fields.String(
        required=True,
        metadata={
            "description": "SHA-256 hex of prev_hash followed by the canonical JSON (sorted keys, no spaces) "
            "of the whole event without 'hash'"
        },
    )
    redacted = fields.Boolean(metadata={"description": "True when private parts were removed for this caller"})
    label = fields.String(
        metadata={
            "description": "The event in words, in the language of Accept-Language (en or es), made from its public "
            "part; like `redacted`, outside the hash"
        }
    )


class MoveResultSchema(ma.Schema):
    version = fields.Integer(required=True)
    events = fields.List(fields.Nested(EventSchema), required=True)
    to_act = fields.List(fields.Integer(), required=True, metadata={"description": "Seats that may act next"})
    finished = fields.Boolean(required=True)
    replayed = fields.Boolean(metadata={"description": "True when this is the stored answer to a retried request"})


class EventsQuerySchema(ma.Schema):
    after = fields.Integer(
        load_default=0,
        validate=validate.Range(min=0, max=MAX_COUNT),
        metadata={"description": "Return events with a version above this"},
    )
    wait = fields.Float(
        load_default=0,
        validate=validate.Range(min=0, max=30),
        metadata={"description": "Seconds to wait for a newer event when there is none"},
    )
    limit = fields.Integer(load_default=1000, validate=validate.Range(min=1, max=5000))


class EventsSchema(ma.Schema):
    version = fields.Integer(required=True, metadata={"description": "The latest version the caller may see"})
    events = fields.List(fields.Nested(EventSchema), required=True)
    embargo = fields.Nested(
        EmbargoSchema,
        allow_none=True,
        metadata={
            "description": "Set while a duplicate round holds the caller back: events past `version` are not shown "
            "yet (see docs/security.md)"
        },
    )


class ReplayQuerySchema(ma.Schema):
    version = fields.Integer(required=True, validate=validate.Range(min=1, max=MAX_COUNT))
    as_ = fields.String(
        data_key="as",
        validate=validate.Regexp(r"^(reviewer|spectator|seat|seat:[0-9]{1,3})$"),
        metadata={
            "description": "The viewpoint: reviewer (integrator key with games or review "
            "scope), spectator (anyone), seat (the caller's own seat) or "
            "seat:<n> (that seat's token or an integrator key). "
            "Default: the caller's own viewpoint.",
            "example": "spectator",
        },
    )


class ChainSchema(ma.Schema):
    ok = fields.Boolean(required=True)
    checked = fields.Integer(required=True)
    head = fields.String(required=True)
    broken_at = fields.Integer(
        allow_none=True, required=True, metadata={"description": "Version of the first broken link"}
    )
    reason = fields.String(allow_none=True, required=True)


class ReviewEntrySchema(ma.Schema):
    class Meta:
        unknown = ma.INCLUDE

    version = fields.Integer(required=True)
    time = fields.String(required=True)
    actor = fields.String(required=True, metadata={"description": "reviewer:<key id>"})
    type = fields.String(required=True)
    action = fields.String()
    reason = fields.String()
    text = fields.String()
    at_version = fields.Integer()
    authority = fields.String(
        validate=validate.OneOf(["this service", "imported"]),
        metadata={
            "description": "'this service': a ruling made here by the key named in actor; 'imported': part of an "
            "imported log, made elsewhere"
        },
    )


class AuditSchema(ma.Schema):
    id = fields.String(required=True)
    version = fields.Integer(required=True)
    head_hash = fields.String(required=True)
    chain = fields.Nested(ChainSchema, required=True)
    provenance = fields.Nested(ProvenanceSchema, required=True)
    review = fields.List(
        fields.Nested(ReviewEntrySchema),
        required=True,
        metadata={"description": "Who froze, noted or adjudicated what, when and why"},
    )
    events = fields.List(fields.Nested(EventSchema), required=True)


class FreezeSchema(ma.Schema):
    reason = fields.String(
        required=True,
        validate=validate.Length(min=1, max=2000),
        metadata={"example": "seat 2 reports a disconnect during the auction"},
    )


class NoteSchema(ma.Schema):
    version = fields.Integer(
        validate=validate.Range(min=1, max=MAX_COUNT),
        metadata={"description": "The version the note is about (default: the latest)"},
    )
    text = fields.String(
        required=True,
        validate=validate.Length(min=1, max=4000),
        metadata={"example": "checked the deal commitment of version 3: it matches"},
    )


class AdjudicationSchema(ma.Schema):
    action = fields.String(
        required=True,
        validate=validate.OneOf(ADJUDICATIONS),
        metadata={
            "description": "void: the game ends without a result; award: the result is "
            "the given scores; correct_score: add deltas to the scores; "
            "unfreeze: moves are taken again"
        },
    )
    reason = fields.String(
        required=True,
        validate=validate.Length(min=1, max=2000),
        metadata={"example": "collusion established between seats 1 and 3"},
    )
    scores = fields.List(
        fields.Float(allow_nan=False, validate=validate.Range(min=-MAX_SCORE, max=MAX_SCORE)),
        validate=validate.Length(max=64),
        metadata={"description": "award: a score per seat"},
    )
    deltas = fields.List(
        fields.Float(allow_nan=False, validate=validate.Range(min=-MAX_SCORE, max=MAX_SCORE)),
        validate=validate.Length(max=64),
        metadata={"description": "correct_score: a delta per seat"},
    )
    hand = fields.Integer(
        allow_none=True,
        validate=validate.Range(min=0, max=MAX_HAND),
        metadata={"description": "void: the hand that prompted it (for the record)"},
    )


class ReviewResultSchema(ma.Schema):
    version = fields.Integer(required=True)
    event = fields.Nested(EventSchema, required=True)
    frozen = fields.Boolean(required=True)
    result = fields.Nested(
        OutcomeSchema, allow_none=True, required=True, metadata={"description": "The game's result now"}
    )


class ImportedGameSchema(ma.Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    version = fields.Integer(required=True)
    seats = fields.List(fields.Dict(), required=True, metadata={"description": "Fresh seat tokens, shown once"})
    provenance = fields.Nested(ProvenanceSchema, required=True)


class CreateKeySchema(ma.Schema):
    name = fields.String(
        required=True, validate=[validate.Length(min=1, max=100), printable], metadata={"example": "club-ladder"}
    )
    scopes = fields.List(
        fields.String(validate=validate.OneOf(SCOPES)),
        required=True,
        validate=validate.Length(min=1, max=16),
        metadata={"example": ["games", "tournaments"]},
    )


class KeySchema(ma.Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    scopes = fields.List(fields.String(), required=True)
    created_at = fields.String(required=True)
    revoked_at = fields.String(allow_none=True, required=True)
    key = fields.String(metadata={"description": "The secret; returned once, at creation"})


class HealthSchema(ma.Schema):
    status = fields.String(
        required=True,
        validate=validate.OneOf(["ok", "degraded"]),
        metadata={
            "description": "ok: Redis answers, a worker is alive and the scheduler lock "
            "is held; degraded: Redis answers but timers may not fire"
        },
    )
    redis = fields.Boolean(required=True)
    workers = fields.Integer(required=True, metadata={"description": "RQ workers alive on the naipes queues"})
    scheduler = fields.Boolean(
        required=True, metadata={"description": "Whether a scheduler holds the lock of the turn-deadline queue"}
    )
    queues = fields.Dict(
        keys=fields.String(), values=fields.Integer(), required=True, metadata={"description": "Queue -> jobs waiting"}
    )


class JoinSchema(ma.Schema):
    player = fields.String(
        required=True,
        validate=validate.Length(min=1, max=64),
        metadata={"description": "The newcomer's name", "example": "flor"},
    )


class JoinedSchema(ma.Schema):
    version = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    player = fields.String(required=True)
    token = fields.String(required=True, metadata={"description": "The new seat's bearer token; shown only once"})
