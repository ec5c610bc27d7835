"""Marshmallow schemas of open seats, invitations, leaving, rematches and the lobby (they generate
openapi.yaml beside :mod:`service.web.schemas`)."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from domain.table import BOT_KINDS
from service.web import schemas as s


class InvitationSchema(ma.Schema):
    seat = fields.Integer(required=True)
    invitation = fields.String(
        required=True,
        metadata={"description": "The open seat's invitation code; shown only once, to the key that created the game"},
    )
    url = fields.String(
        required=True, metadata={"description": "Where the invitation is exchanged for the seat's token (POST)"}
    )


class NewInvitationSchema(InvitationSchema):
    id = fields.String(required=True, metadata={"description": "The game"})


class CreatedGameSchema(s.CreatedGameSchema):
    seats = fields.List(
        fields.Nested(s.SeatTokenSchema),
        required=True,
        metadata={"description": "The named seats with their tokens (an open seat has none until it is claimed)"},
    )
    invitations = fields.List(
        fields.Nested(InvitationSchema),
        metadata={"description": "One per open seat (a null player); the game starts once every one is claimed"},
    )


class ClaimSchema(ma.Schema):
    """The invitation itself is the bearer credential of the claim (Authorization: Bearer inv_...)."""

    player = fields.String(
        required=True,
        validate=[validate.Length(min=1, max=64), s.printable],
        metadata={"description": "The player's name, unique at the table", "example": "eli"},
    )


class ClaimedSchema(ma.Schema):
    id = fields.String(required=True)
    version = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    player = fields.String(required=True)
    token = fields.String(required=True, metadata={"description": "The seat's bearer token; shown only once"})
    started = fields.Boolean(
        required=True, metadata={"description": "Whether this claim filled the last open seat and started the game"}
    )


class LeftSchema(ma.Schema):
    id = fields.String(required=True)
    version = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    open = fields.Boolean(
        required=True,
        metadata={
            "description": "True: the game had not started and the seat is open again (its owner asks a new "
            "invitation); false: the seat is absent for good and the rules' timeout move plays it"
        },
    )


class SeatPlaceSchema(ma.Schema):
    seat = fields.Integer(required=True)
    player = fields.String(allow_none=True, required=True, metadata={"description": "Null while the seat is open"})
    open = fields.Boolean(required=True)
    left = fields.Boolean(required=True, metadata={"description": "Its player left after the start"})
    url = fields.String(metadata={"description": "An open seat's claim URL (the invitation is not shown)"})


class SeatsSchema(ma.Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    version = fields.Integer(required=True)
    started = fields.Boolean(required=True, metadata={"description": "False while open seats wait for players"})
    open = fields.List(fields.Integer(), required=True, metadata={"description": "The open seats"})
    seats = fields.List(fields.Nested(SeatPlaceSchema), required=True)
    rematch = fields.String(allow_none=True, required=True, metadata={"description": "The game that follows this one"})
    rematch_of = fields.String(
        allow_none=True, required=True, metadata={"description": "The finished game this one follows"}
    )


class RematchSchema(ma.Schema):
    id = fields.String(required=True, metadata={"description": "The rematch"})
    game = fields.String(required=True)
    version = fields.Integer(required=True)
    rematch_of = fields.String(required=True)
    seat = fields.Integer(metadata={"description": "The caller's seat in the rematch (a seat token's call)"})
    seats = fields.List(
        fields.Nested(s.SeatTokenSchema),
        required=True,
        metadata={
            "description": "A seat token's call: its own new token (a fresh one at each call: the earlier stops "
            "working); the owning key's: every seat's but the open ones (the seats' earlier tokens stop working)"
        },
    )
    invitations = fields.List(
        fields.Nested(InvitationSchema),
        metadata={
            "description": "The owning key's call only: one per seat open in the rematch (a player who left the "
            "finished game plays no rematch); earlier invitations of the rematch stop working"
        },
    )


class LobbyQuerySchema(ma.Schema):
    game = fields.String(validate=s.GAME_TYPE, metadata={"description": "Only games of this type"})
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=500))
    cursor = fields.String(validate=s.CURSOR, metadata={"description": "The next_cursor of the previous page"})


class OpenSeatSchema(ma.Schema):
    seat = fields.Integer(required=True)
    url = fields.String(required=True, metadata={"description": "Where its invitation is exchanged for a token"})


class LobbyGameSchema(ma.Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(["open"]))
    created_at = fields.String(required=True)
    updated_at = fields.String(required=True)
    version = fields.Integer(required=True)
    players = fields.List(fields.String(), required=True, metadata={"description": "An open seat holds a placeholder"})
    timed = fields.Boolean()
    provenance = fields.String()
    open_seats = fields.List(fields.Nested(OpenSeatSchema), required=True)


class LobbySchema(ma.Schema):
    total = fields.Integer(required=True, metadata={"description": "Games waiting for players"})
    games = fields.List(fields.Nested(LobbyGameSchema), required=True, metadata={"description": "Newest first"})
    next_cursor = fields.String(allow_none=True, required=True)


class SeatBotSchema(ma.Schema):
    bot = fields.String(
        required=True,
        validate=validate.OneOf(BOT_KINDS),
        metadata={
            "description": "random (any legal move), heuristic (a greedy player of the game's own sense) "
            "or search (information-set Monte Carlo tree search over the hidden cards: the strongest, and the "
            "slowest)",
            "example": "heuristic",
        },
    )


class SeatedBotSchema(ma.Schema):
    id = fields.String(required=True)
    version = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    bot = fields.String(required=True)
