"""Marshmallow schemas of the HTTP contract (they generate openapi.yaml)."""

from __future__ import annotations

import copy

import marshmallow as ma
from apispec import BasePlugin
from marshmallow import fields, validate

from domain import tournament
from domain.table import ADJUDICATIONS
from service.core import catalogue
from service.core.keys import SCOPES
from service.core.problems import PREFIX, PROBLEM_TYPES, described
from service.web.examples import legal_moves_example
from service.web.ratelimit import PAGE_UNIT, pages

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
    rule = fields.String(
        metadata={
            "description": "For refused moves and options: the id of the game's own check that refused it "
            "(a rule of the game, or a check of turn or phase). It says why; `type` says what to do: a seat "
            "that is not to act gets `not-your-turn` whatever check refused it, so a `not-your-turn` may "
            "carry `rule` `wrong-phase` (the move belongs to another phase, and the seat is not to act in "
            "this one either)"
        }
    )
    current_version = fields.Integer(metadata={"description": "For version mismatches: the game's version"})
    deadline = fields.String(
        metadata={"description": "turn-expired: when the seat's time for the decision ran out (ISO 8601, UTC)"}
    )
    errors = fields.Dict(metadata={"description": "Field-by-field validation messages"})
    limit = fields.Integer(
        metadata={
            "description": "search-game-limit (and invalid-options with that rule): the games with search bots a "
            "key may run at once"
        }
    )
    held = fields.Integer(
        metadata={"description": "search-game-limit: the slots the key's running games with search bots hold"}
    )


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
            "description": "The rules' own value for this card (an integer or a string). Every card has one, but only "
            "a log written before card codes (an export of an early game) uses it. Views, moves, legal moves and "
            "events write the card as its `code`, and a move naming a card by this value is refused"
        },
    )
    suit = fields.String(allow_none=True, required=True, metadata={"description": "null for cards outside the suits"})
    rank = fields.String(required=True)
    name = fields.Nested(WordsSchema, required=True, metadata={"description": "The card's name in English and Spanish"})
    colour = fields.String(required=True, metadata={"description": "The colour the card is printed in"})
    points = fields.Integer(metadata={"description": "What the card counts, where the game counts card points"})
    copies = fields.Integer(metadata={"description": "How many identical copies the deck holds, where more than one"})
    options = fields.Dict(
        keys=fields.String(),
        values=fields.List(fields.Raw()),
        metadata={
            "description": "Present when only some values of a game option put the card in the deck: option -> those "
            'values (¡Muerte al rey!\'s 8s and 9s: {"deck": ["spanish48"]})'
        },
    )


class NamedSchema(ma.Schema):
    class Meta:
        unknown = ma.INCLUDE

    id = fields.String(required=True)
    name = fields.Nested(WordsSchema, required=True)
    description = fields.Nested(WordsSchema)


class MoveTypeSchema(ma.Schema):
    type = fields.String(required=True, metadata={"description": "The move's `type`"})
    description = fields.Nested(WordsSchema, required=True)
    schema = fields.Dict(
        required=True,
        metadata={
            "description": "JSON Schema (2020-12) of the move object as posted; a field or item holding a card is "
            "marked x-naipes-card"
        },
    )


class EventShapeSchema(ma.Schema):
    description = fields.String(required=True, metadata={"description": "What the event means at the table"})
    data = fields.Dict(required=True, metadata={"description": "JSON Schema (2020-12) of the event's public `data`"})
    private = fields.Dict(
        required=True,
        allow_none=True,
        metadata={
            "description": "JSON Schema (2020-12) of the event's whole `private` part (keyed by seat, or `deal`: "
            "a caller sees only the parts it may); null: the event never has one"
        },
    )


class GameDescriptionSchema(GameTypeSchema):
    card_pattern = fields.String(
        required=True, metadata={"description": "A regular expression every card code matches"}
    )
    deck = fields.List(
        fields.Nested(CardSchema),
        required=True,
        metadata={"description": "Every card of the game, under any of its options (see each card's `options`)"},
    )
    phases = fields.List(fields.Nested(NamedSchema), required=True)
    roles = fields.List(fields.Nested(NamedSchema), required=True)
    moves = fields.List(fields.Nested(MoveTypeSchema), required=True, metadata={"description": "Every move type"})
    events = fields.List(fields.String(), required=True, metadata={"description": "Every event type of the game's log"})
    languages = fields.List(
        fields.String(), required=True, metadata={"description": "The languages of labels (Accept-Language)"}
    )
    view_schema = fields.Dict(
        required=True,
        metadata={
            "description": "JSON Schema (2020-12) of `state` in GET /games/{game_id} for this game, whoever asks "
            "(each property says what it means and for whom it is there); the contract's component <Game>View "
            "(DalmutiView ...) says the same"
        },
    )
    event_schemas = fields.Dict(
        keys=fields.String(),
        values=fields.Nested(EventShapeSchema),
        required=True,
        metadata={
            "description": "Every event type of the game's log -> what it means and the shapes of its parts (the "
            "contract's components <Game><Type>Data and <Game><Type>Private say the same)"
        },
    )


class CreateGameSchema(ma.Schema):
    game = fields.String(
        required=True,
        validate=GAME_TYPE,
        metadata={"description": "A game type id from GET /game-types", "example": "dalmuti"},
    )
    players = fields.List(
        fields.String(validate=validate.Length(min=1, max=64), allow_none=True),
        required=True,
        validate=validate.Length(min=1, max=64),
        metadata={
            "description": "Player names, one per seat, in seat order; null leaves a seat open (the game starts "
            "once every open seat is claimed with its invitation)",
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


def page_limit(default: int, most: int, items: str) -> fields.Integer:
    """The ``limit`` of a paged route, with what a page costs in the caller's rate-limit budgets
    (service.web.ratelimit.PAGED_RULES counts it)."""
    return fields.Integer(
        load_default=default,
        validate=validate.Range(min=1, max=most),
        metadata={
            "description": f"At most this many {items}. The page counts as ceil(limit / {PAGE_UNIT}) requests of the "
            f"caller's rate-limit budgets (the default, {default}, as {pages(default)}; never more than a "
            "window's whole quota): ask for what you need"
        },
    )


class GameListQuerySchema(ma.Schema):
    game = fields.String(validate=GAME_TYPE, metadata={"description": "Only games of this type"})
    status = fields.String(
        validate=validate.OneOf(["open", "active", "finished"]),
        metadata={
            "description": "Only games of this status, as the caller sees it: a duplicate round's table that "
            "has ended while the round's embargo holds is `active` to keys that may not see its end yet, and "
            "`finished` to those that may (its owner, its tournament's, review and admin keys); `total` counts "
            "it where the caller finds it"
        },
    )
    limit = page_limit(50, 500, "games")
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


PLAYERS_DESCRIPTION = (
    "The players' names, by seat. A seat left open (waiting for its invitation's claim) holds the "
    "placeholder `seat <n>` (its seat number, from 0) until it is claimed, and is listed in the game's "
    "open seats (GET /games/{game_id}/seats: `player` null): show it as an empty seat, not a player"
)


class GameSummarySchema(ma.Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(["open", "active", "finished"]))
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
    players = fields.List(fields.String(), required=True, metadata={"description": PLAYERS_DESCRIPTION})
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
            "(1, 2, 2, 4); in a game whose rules break ties (El Gran Dalmuti) every place differs; null for "
            "a seat left out of the ranking"
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
    sealed = fields.Boolean(
        metadata={
            "description": "true: the export carried this service's seal over its game id, version and head hash "
            "(its signature, GET /seal-key): this service wrote that log, unchanged since. false: written "
            "elsewhere, or rewritten: a chain of hashes proves a log unchanged since it was written, not who "
            "wrote it, and anyone can write a chain that verifies (results included)"
        }
    )


class SealKeySchema(ma.Schema):
    algorithm = fields.String(required=True, metadata={"description": "Ed25519", "example": "Ed25519"})
    public_key = fields.String(
        required=True,
        metadata={
            "description": "The raw public key, base64. An export's header carries `seal`: the signature (base64) "
            "of the UTF-8 text `naipes export\\n<game_id>\\n<version>\\n<head_hash>`. The chain binds the head "
            "hash to every event before it, so a seal that holds says this service wrote the whole log"
        },
    )


class ViewerSchema(ma.Schema):
    kind = fields.String(
        required=True,
        validate=validate.OneOf(["seat", "spectator", "integrator"]),
        metadata={"description": "whose viewpoint the view is drawn from: a seat, a spectator, an integrator key"},
    )
    seat = fields.Integer(allow_none=True, metadata={"description": "the seat, for a seat's viewpoint; else null"})
    full = fields.Boolean(
        required=True,
        metadata={
            "description": "true when every private part is shown (a reviewer's sight: every hand, every "
            "face-down card); false when the view holds what this viewpoint may see only"
        },
    )


def _camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.replace("-", "_").split("_") if part)


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def view_component_name(game_type: str) -> str:
    """DalmutiView ...: the component of a game's ``state`` (:func:`shape_components`)."""
    return _camel(game_type) + "View"


VIEW_COMPONENTS = [view_component_name(g["id"]) for g in catalogue.game_types()]


class GameViewSchema(ma.Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    rules_version = fields.String(allow_none=True)
    version = fields.Integer(required=True, metadata={"description": "Number of events in the log"})
    viewer = fields.Nested(ViewerSchema, required=True)
    players = fields.List(fields.String(), required=True, metadata={"description": PLAYERS_DESCRIPTION})
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
    finished = fields.Boolean(
        required=True,
        metadata={
            "description": "Whether the game is over: played to its end, or ended by a reviewer (`result."
            "adjudicated`). This field and `result`, not `state`, say whether and how the game ended"
        },
    )
    result = fields.Nested(
        OutcomeSchema, allow_none=True, required=True, metadata={"description": "The outcome once finished"}
    )
    options = fields.Dict(required=True)
    created_at = fields.String(required=True)
    updated_at = fields.String(required=True)
    state = fields.Dict(
        required=True,
        metadata={
            "description": "The game as this viewer may see it: for the game type `game`, its component "
            f"({', '.join(VIEW_COMPONENTS)}), where every field says what it means and for whom it is there. "
            "A game a reviewer ended (a `void` or an `award`: `finished` true, `result.adjudicated` true) keeps "
            "the state it had when play stopped: its `phase` is the phase it stopped in and its own `outcome` "
            "(where it has one) stays null; no seat is to act (`to_act` is empty), and `result` holds the ruling. "
            "Show such a game as stopped, from `finished` and `result`",
            "oneOf": [_ref(name) for name in VIEW_COMPONENTS],
        },
    )
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
        fields.Nested(MoveSchema),
        required=True,
        metadata={
            "description": "Each item is a move of the game's own union (DalmutiMove for a dalmuti game, ...) and "
            "can be posted as it is to /moves; its `label` (the move in words, in the language of "
            "Accept-Language: en or es) is ignored by /moves",
            "example": legal_moves_example(),
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
    actor = fields.String(
        required=True,
        metadata={
            "description": "Who caused the event: seat:<n> (a seat's move), bot:<kind> (a bot's move for its seat: "
            "bot:random, bot:heuristic, bot:search), system (the table: deals, reveals), worker (a timeout), "
            "integrator (the owning key), reviewer:<key id> (a ruling); in a tournament's log, the tournament's own"
        },
    )
    data = fields.Dict(
        required=True,
        metadata={
            "description": "The public part. Its shape, by the game and `type`: the component <Game><Type>Data "
            "(DalmutiPlayedData, CegoTurnTimedOutData ...), also in GET /game-types/{game} `event_schemas`; in a "
            "tournament's log, Tournament<Type>Data (TournamentRoundPairedData ...)"
        },
    )
    private = fields.Dict(
        metadata={
            "description": "Seat -> secret part (and `deal`: the deal's secret, for a caller who sees everything); "
            "only the parts the caller may see. Its shape, the whole object with its seat keys: the component "
            "<Game><Type>Private. In a tournament's log, "
            "the event's secret as a whole (Tournament<Type>Private), shown only to a caller of full sight"
        }
    )
    rules = fields.String(metadata={"description": "Rules version that produced the event"})
    prev_hash = fields.String(required=True)
    hash = fields.String(
        required=True,
        metadata={
            "description": "SHA-256 hex of prev_hash followed by the canonical JSON (sorted keys, no spaces) "
            "of the whole event without 'hash'"
        },
    )
    salt = fields.String(
        metadata={
            "description": "32 hex digits under the hash, in a game event with a private part and in every tournament "
            "event; shown only to a caller "
            "shown the whole event (so a hash beside a redacted event matches no guess of what was removed)"
        }
    )
    redacted = fields.Boolean(
        metadata={"description": "True when private parts (and with them the salt) were removed for this caller"}
    )
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
        metadata={
            "description": "Seconds to wait for a newer event when there is none. A waiting request takes one of "
            "the client's live-stream slots while it waits (429 beyond the client's share, 503 beyond the server's); "
            "the credential is checked again when the wait ends"
        },
    )
    limit = page_limit(1000, 5000, "events")


class EventsSchema(ma.Schema):
    version = fields.Integer(required=True, metadata={"description": "The latest version the caller may see"})
    events = fields.List(fields.Nested(EventSchema), required=True)
    embargo = fields.Nested(
        EmbargoSchema,
        allow_none=True,
        metadata={
            "description": "Set while a duplicate round holds the caller back: events past `version` are not shown "
            "yet: every table of the round deals the same cards, and a deal is shown once every table has played it "
            "out (the seats of the table, the tournament's owner and reviewers see it live)"
        },
    )


class ReplayQuerySchema(ma.Schema):
    version = fields.Integer(
        required=True,
        validate=validate.Range(min=1, max=MAX_COUNT),
        metadata={
            "description": "The version to show: the game as it stood right after its event of that version, from 1 "
            "(GameCreated) to the game's `version`; beyond it, a 422 `bad-version`"
        },
    )
    as_ = fields.String(
        data_key="as",
        validate=validate.Regexp(r"^(reviewer|spectator|seat|seat:(0|[1-9][0-9]{0,2}))$"),
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


class ExportHeaderSchema(ma.Schema):
    """The first line of an export (GET /games/{game_id}/export); every line after it is an Event, whole."""

    format = fields.String(
        required=True, metadata={"description": "The export's format and its version", "example": "naipes-game-log/1"}
    )
    game_id = fields.String(required=True)
    game = fields.String(required=True, metadata={"description": "The game type"})
    rules_version = fields.String(allow_none=True, metadata={"description": "The rules version it is played under"})
    version = fields.Integer(required=True, metadata={"description": "The number of events that follow"})
    head_hash = fields.String(required=True, metadata={"description": "The hash of the last event that follows"})
    outcome = fields.Nested(
        OutcomeSchema, allow_none=True, required=True, metadata={"description": "The outcome, once finished"}
    )
    exported_at = fields.String(required=True, metadata={"description": "When it was exported (ISO 8601, UTC)"})
    seal = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "This service's Ed25519 signature (base64) over the game id, version and head hash, "
            "as SealKey describes; check it against GET /seal-key, not against `seal_key`. null for a game "
            "imported without this service's seal (`provenance.sealed` false): this service did not write its log"
        },
    )
    seal_key = fields.String(
        required=True, metadata={"description": "The public key the file says sealed it (base64): proves nothing"}
    )


class ImportedGameSchema(ma.Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    version = fields.Integer(required=True)
    seats = fields.List(
        fields.Nested(SeatTokenSchema), required=True, metadata={"description": "Fresh seat tokens, shown once"}
    )
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
    rate_limit = fields.String(
        metadata={
            "description": "The key's own budget, replacing the service's (set by `naipes keys limit`; "
            "see the RateLimit-Policy header); absent when the key has the service's",
            "example": "1000 per minute",
        }
    )
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


# ---------------------------------------------------------------- moves, typed per game
# Every game's move types are components of the contract, made at run time from the JSON Schemas
# (2020-12) that GET /game-types/{game} serves: DalmutiPlay, CegoCall ...; each game's union of
# them (DalmutiMove: oneOf with a discriminator on `type`); and Move, the body of POST
# /games/{game_id}/moves and an item of legal-moves: any game's union (the game in the URL picks one).

_DROPPED = {"$schema", "$id", "$comment", "$defs", "definitions", "$anchor"}
_SUBSCHEMA = {"items", "additionalProperties", "not"}
_SUBSCHEMAS = {"allOf", "anyOf", "oneOf"}
_UNSUPPORTED = {  # 2020-12 keywords OpenAPI 3.0 has no way to say
    "prefixItems",
    "contains",
    "minContains",
    "maxContains",
    "unevaluatedItems",
    "unevaluatedProperties",
    "patternProperties",
    "propertyNames",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "$dynamicRef",
    "$recursiveRef",
}


def _type_of(value) -> str | None:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return None


def openapi_schema(schema: dict) -> dict:
    """A JSON Schema (2020-12) as an OpenAPI 3.0.3 Schema Object saying the same: ``const`` becomes
    a one-value ``enum`` (with the value's type), ``if``/``then``/``else`` becomes ``anyOf`` (``not``
    if, or then), a local ``$ref`` is inlined, ``$schema`` goes; ``x-`` members, patterns and
    descriptions stay.  A keyword 3.0 cannot say is a ValueError."""
    defs = {**schema.get("definitions", {}), **schema.get("$defs", {})}

    def convert(node, depth: int = 0):
        if depth > 64:
            raise ValueError("the schema nests too deeply (a recursive $ref?)")
        if isinstance(node, list):
            return [convert(x, depth + 1) for x in node]
        if not isinstance(node, dict):
            return copy.deepcopy(node)
        if "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[-1]
            if not node["$ref"].startswith(("#/$defs/", "#/definitions/")) or name not in defs:
                raise ValueError(f"cannot inline $ref {node['$ref']}")
            rest = {k: v for k, v in node.items() if k != "$ref"}
            target = convert(defs[name], depth + 1)
            return {**target, **convert(rest, depth + 1)} if rest else target
        out: dict = {}
        for key, value in node.items():
            if key in _DROPPED or key in ("if", "then", "else") or (key == "required" and not value):
                continue  # (an empty ``required``, which says nothing, is not valid OpenAPI 3.0)
            if key in _UNSUPPORTED:
                raise ValueError(f"OpenAPI 3.0 has no {key}")
            if key == "const":
                out["enum"] = [copy.deepcopy(value)]
            elif key == "type" and isinstance(value, list):
                kinds = [t for t in value if t != "null"]
                if "null" in value:
                    out["nullable"] = True
                if len(kinds) == 1:
                    out["type"] = kinds[0]
                else:
                    out.setdefault("anyOf", []).extend({"type": t} for t in kinds)
            elif key in ("exclusiveMinimum", "exclusiveMaximum") and not isinstance(value, bool):
                out["minimum" if key == "exclusiveMinimum" else "maximum"] = value
                out[key] = True
            elif key == "examples":
                if value:
                    out["example"] = copy.deepcopy(value[0])
            elif key == "properties":
                out[key] = {name: convert(sub, depth + 1) for name, sub in value.items()}
            elif key in _SUBSCHEMA:
                out[key] = convert(value, depth + 1)
            elif key in _SUBSCHEMAS:
                out.setdefault(key, []).extend(convert(value, depth + 1))
            else:
                out[key] = copy.deepcopy(value)
        if "if" in node and ("then" in node or "else" in node):
            cond = convert(node["if"], depth + 1)
            then = convert(node.get("then", {}), depth + 1)
            other = convert(node.get("else", {}), depth + 1)
            if "else" not in node:  # if -> then: (not if) or then
                branches = [{"not": cond}, then]
            elif "then" not in node:  # (not if) -> else: if or else
                branches = [cond, other]
            else:
                branches = [{"allOf": [cond, then]}, {"allOf": [{"not": cond}, other]}]
            if "anyOf" not in out:
                out["anyOf"] = branches
            else:
                out.setdefault("allOf", []).append({"anyOf": branches})
        if out.get("nullable") and "type" in out and ("anyOf" in out or "oneOf" in out):
            # a nullable union says its type, and its null, in each branch too: client generators read
            # ``type`` beside ``anyOf`` as a union of its own and lose the null, and a validator of 3.0
            # takes ``nullable`` only beside a ``type``
            kind = out.pop("type")
            for branch in (*out.get("anyOf", ()), *out.get("oneOf", ())):
                branch.setdefault("type", kind)
                branch["nullable"] = True
        if "enum" in out and "type" not in out and len({_type_of(v) for v in out["enum"]}) == 1:
            out["type"] = _type_of(out["enum"][0])  # what the values are, said for OpenAPI's tools
        return out

    return convert(schema)


def move_component_name(game_type: str, move_type: str) -> str:
    """DalmutiPlay, CegoCall, OnionDeclare ..."""
    return _camel(game_type) + _camel(move_type)


def game_union_name(game_type: str) -> str:
    """DalmutiMove ..."""
    return _camel(game_type) + "Move"


def move_components() -> dict[str, dict]:
    """Component name -> OpenAPI schema: every game's every move type (with the ignored ``label``
    that legal-moves adds), each game's union, and ``Move``, the union of the games' unions."""
    out: dict[str, dict] = {}
    unions = []
    for game in catalogue.game_types():
        gid, mapping = game["id"], {}
        for kind, spec in catalogue.move_types(gid).items():
            name = move_component_name(gid, kind)
            schema = {
                "description": f"{game['title']}: {spec['description']['en']}",
                **openapi_schema(catalogue.with_label(spec["schema"])),
            }
            out[name] = schema
            mapping[kind] = _ref(name)["$ref"]
        union = game_union_name(gid)
        out[union] = {
            "description": f"A move of {game['title']} (game type `{gid}`): one of its move types, by `type`",
            "oneOf": [{"$ref": ref} for ref in mapping.values()],
            "discriminator": {"propertyName": "type", "mapping": mapping},
        }
        unions.append(union)
    out["Move"] = {
        "description": "A move, exactly as legal-moves lists it: the game in the URL decides which union applies "
        f"(the game's own: {', '.join(unions)}), and a move of another game's union is refused. Every move has "
        "its `type` and the fields of that type; `label` is ignored. GET /game-types/{game} gives the same "
        "schemas in JSON Schema 2020-12.",
        "anyOf": [_ref(u) for u in unions],
    }
    return out


def shape_components() -> dict[str, dict]:
    """Component name -> OpenAPI schema: each game's view (DalmutiView ...) and the public and secret
    parts of each of its event types (DalmutiPlayedData, DalmutiHandDealtPrivate ...), from the JSON
    Schemas GET /game-types/{game} gives."""
    out: dict[str, dict] = {}
    for game in catalogue.game_types():
        gid = game["id"]
        described = catalogue.describe_game(gid)
        out[view_component_name(gid)] = {
            **openapi_schema(described["view_schema"]),
            "description": f"`state` of a {game['title']} game (`{gid}`), as GET /games/{{game_id}} shows it to "
            "whoever asks: a seat sees its own cards, a spectator the public table, a caller who sees everything "
            "every hand (each field says for whom it is there). Cards are codes (GET /game-types/{game} deck).",
        }
        for kind, shape in sorted(described["event_schemas"].items()):
            for part in ("data", "private"):
                if shape[part] is not None:
                    what = "public `data`" if part == "data" else "secret `private` part"
                    out[_camel(gid) + _camel(kind) + _camel(part)] = {
                        **openapi_schema(shape[part]),
                        "description": f"{game['title']}, {kind}: {shape['description']}. The event's {what}.",
                    }
    for kind, shape in sorted(tournament.EVENT_SCHEMAS.items()):
        for part in ("data", "private"):
            if shape[part] is not None:
                what = "public `data`" if part == "data" else "secret `private` part (a caller of full sight sees it)"
                out["Tournament" + _camel(kind) + _camel(part)] = {
                    **openapi_schema(shape[part]),
                    "description": f"A tournament's log, {kind}: {shape['description']}. The event's {what}.",
                }
    return out


class MovesPlugin(BasePlugin):
    """Adds the typed moves to the contract: their components, and ``Move`` (the component of
    :class:`MoveSchema`, which still reads the body) as the union of the games' unions; and the
    shapes of each game's view and events."""

    def init_spec(self, spec):
        super().init_spec(spec)
        self.components = move_components()
        for name, schema in self.components.items():
            if name != "Move":
                spec.components.schema(name, schema)
        for name, schema in shape_components().items():
            spec.components.schema(name, schema)

    def schema_helper(self, name, definition, **kwargs):
        schema = kwargs.get("schema")
        if schema is MoveSchema or isinstance(schema, MoveSchema):
            definition.clear()
            return copy.deepcopy(self.components["Move"])
        return None
