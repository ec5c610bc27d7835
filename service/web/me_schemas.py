"""Schemas of ``GET /me``: what a bearer credential is, and the budget its requests are counted against."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from service.core.ids import GAME_ID
from service.core.keys import SCOPES

GAME_EXAMPLE = "3f9a1c07d2b84e6a"


class MeQuerySchema(ma.Schema):
    game_id = fields.String(
        validate=validate.Regexp(f"^{GAME_ID}$"),
        metadata={
            "description": "Not needed: a seat token names its game. Only for a seat token issued before "
            "tokens did, the game it belongs to (an integrator key needs none)"
        },
    )


class RateWindowSchema(ma.Schema):
    """One limit as this very request left it (the numbers of the RateLimit header field)."""

    policy = fields.String(
        required=True,
        metadata={
            "description": "The policy's name in RateLimit-Policy and RateLimit: credential (this credential on "
            "this route) or address (the client address over all routes)",
            "example": "credential",
        },
    )
    quota = fields.Integer(required=True, metadata={"description": "Requests allowed per window", "example": 100})
    window = fields.Integer(required=True, metadata={"description": "The window, in seconds", "example": 1})
    remaining = fields.Integer(
        required=True, metadata={"description": "Requests left in the current window, this one counted", "example": 99}
    )
    reset = fields.Integer(
        required=True, metadata={"description": "Seconds until the window starts afresh", "example": 1}
    )


class RateBudgetSchema(ma.Schema):
    limits = fields.List(
        fields.String(),
        required=True,
        metadata={
            "description": "The limits of this credential per route, in Flask-Limiter's notation",
            "example": ["100 per second"],
        },
    )
    own = fields.Boolean(
        required=True,
        metadata={
            "description": "Whether the operator gave this key limits of its own (else the service's apply)",
            "example": False,
        },
    )
    address_limits = fields.List(
        fields.String(),
        required=True,
        metadata={
            "description": "The budget of one client address over all routes: it counts requests with a seat "
            "token or no credential, never those with a live integrator key",
            "example": ["300 per second"],
        },
    )
    windows = fields.List(
        fields.Nested(RateWindowSchema),
        required=True,
        metadata={"description": "Where this request left each limit it was counted against"},
    )


class KeyIdentitySchema(ma.Schema):
    id = fields.String(required=True, metadata={"example": "key_1b2c3d4e5f60"})
    name = fields.String(required=True, metadata={"description": "Who the key is for", "example": "club-ladder"})
    scopes = fields.List(
        fields.String(validate=validate.OneOf(SCOPES)), required=True, metadata={"example": ["games", "tournaments"]}
    )


class SeatIdentitySchema(ma.Schema):
    game_id = fields.String(required=True, metadata={"example": GAME_EXAMPLE})
    game = fields.String(required=True, metadata={"description": "The game type", "example": "dalmuti"})
    seat = fields.Integer(required=True, metadata={"description": "The seat number, from 0", "example": 2})
    player = fields.String(required=True, metadata={"description": "The seat's player", "example": "carl"})
    finished = fields.Boolean(required=True, metadata={"description": "Whether the game is over", "example": False})


class MeSchema(ma.Schema):
    """What the bearer credential is; never the credential itself."""

    kind = fields.String(
        required=True,
        validate=validate.OneOf(["integrator", "seat"]),
        metadata={"description": "integrator: an integrator key; seat: a seat token of one game"},
    )
    key = fields.Nested(KeyIdentitySchema, metadata={"description": "For an integrator key"})
    seat = fields.Nested(SeatIdentitySchema, metadata={"description": "For a seat token"})
    rate_limit = fields.Nested(
        RateBudgetSchema,
        required=True,
        allow_none=True,
        metadata={"description": "The credential's rate-limit budget; null when the service runs without limits"},
    )


def _budget(limits: str, own: bool, *windows: tuple) -> dict:
    """An example budget (fresh lists each time: the contract is written without YAML aliases)."""
    return {
        "limits": [limits],
        "own": own,
        "address_limits": ["300 per second"],
        "windows": [dict(zip(("policy", "quota", "window", "remaining", "reset"), w)) for w in windows],
    }


EXAMPLES = {
    "integrator": {
        "summary": "An integrator key",
        "value": {
            "kind": "integrator",
            "key": {"id": "key_1b2c3d4e5f60", "name": "club-ladder", "scopes": ["games", "tournaments"]},
            "rate_limit": _budget("1000 per minute", True, ("credential", 1000, 60, 997, 41)),
        },
    },
    "seat": {
        "summary": "A seat token",
        "value": {
            "kind": "seat",
            "seat": {"game_id": GAME_EXAMPLE, "game": "dalmuti", "seat": 2, "player": "carl", "finished": False},
            "rate_limit": _budget("100 per second", False, ("credential", 100, 1, 99, 1), ("address", 300, 1, 291, 1)),
        },
    },
}
