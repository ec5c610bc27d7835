"""The kinds of problem the service answers with, and what each means.

Every error is ``application/problem+json`` (RFC 9457) whose ``type`` is
``urn:naipes:problem:<kind>``; the contract lists the kinds below (an enum on
the Problem schema's ``type``, and ``x-problem-types`` with their meaning), so
that a client can act on the kind without reading the ``detail``.
``tests/test_errors.py`` reads every kind the code can raise and fails on one
missing here (or on one here that nothing raises).
"""

from __future__ import annotations

PREFIX = "urn:naipes:problem:"

# Errors a library answered by itself (routing, body size, rate limits ...), by status.
STATUS_KINDS = {
    400: "bad-request",
    401: "unauthorized",
    403: "forbidden",
    404: "not-found",
    405: "method-not-allowed",
    412: "precondition-failed",
    413: "payload-too-large",
    414: "uri-too-long",
    415: "unsupported-media-type",
    416: "range-not-satisfiable",
    422: "invalid-request",
    429: "too-many-requests",
    431: "request-header-fields-too-large",
    500: "internal",
    501: "not-implemented",
    503: "unavailable",
}
OTHER_STATUS = "error"


def for_status(status: int) -> str:
    """The kind of an error answered by status alone."""
    return STATUS_KINDS.get(status, OTHER_STATUS)


PROBLEM_TYPES: dict[str, str] = {
    # ---- the request itself
    "bad-request": "400: the request cannot be read: a body that is not JSON (not UTF-8, a number beyond 64 bits "
    "or not finite, a lone surrogate), or a malformed If-Match, Idempotency-Key or Last-Event-ID "
    "header; the detail names it.",
    "invalid-request": "422: the body or the query does not fit the operation's schema; `errors` holds the "
    "messages field by field.",
    "unsupported-media-type": "415: the body is not of the type the operation reads (application/json; "
    "application/x-ndjson for an import), or is sent with a content coding (`Content-Encoding: gzip`: bodies are "
    "read uncompressed); the detail names the type expected, or the coding.",
    "payload-too-large": "413: the body is over the size the operation takes.",
    "uri-too-long": "414: the URL is too long.",
    "request-header-fields-too-large": "431: the request's headers are too large.",
    "method-not-allowed": "405: the route does not take this method; Allow lists those it takes.",
    "not-found": "404: no route has this path (a path id that is not an id is one).",
    "range-not-satisfiable": "416: the Range asked for is outside the resource.",
    "precondition-failed": "412: a conditional header of the request does not hold.",
    # ---- credentials
    "unauthorized": "401: the operation needs a credential and none was sent, or the one sent is malformed, "
    "unknown, or a seat token of another game. WWW-Authenticate carries the Bearer challenge "
    '(with error="invalid_token" when a credential was sent).',
    "key-revoked": "401: the integrator key was revoked (the detail says when); ask the operator for a new key.",
    "scope-missing": "403: the integrator key lacks the scope the operation needs (`scope` names it; "
    'WWW-Authenticate says error="insufficient_scope").',
    "seat-required": "403: the operation is a seat's (a move, its legal moves) and the credential is an "
    "integrator key; send the seat's token.",
    "forbidden": "403: the credential is valid but may not do this: a viewpoint it is not entitled to, a "
    "tournament it does not own.",
    "not-entitled": "403: the key does not see this game whole (audit, export): it neither owns the game or its "
    "tournament nor holds the review or admin scope.",
    "review-authority": "403: an imported log holding review events needs a key with the review scope.",
    "embargoed": "403: the version asked for is not public yet (a duplicate round's deal other tables are still "
    "playing); `visible_version` is the latest the caller may see.",
    "too-many-requests": "429: too many requests (or open streams) for this credential or address; retry after "
    "the seconds in Retry-After.",
    "search-game-limit": "429: the key already runs as many games with search bots as it may at once (`limit`; "
    "`held` is what it holds, both given to the key only): a search bot's move costs seconds of the bots' worker, "
    "which every key shares. "
    "Retry when one of them has ended (a void adjudication ends a stalled one), or seat heuristic or random bots.",
    # ---- games
    "game-not-found": "404: there is no game of this id (also for a seat token sent to a game that does not exist).",
    "unknown-game": "422: the game type is not one of GET /game-types.",
    "game-type-not-found": "404: there is no game type of this id (GET /game-types lists them).",
    "player-count": "422: the number of players is outside the game's min_players..max_players (for a "
    "tournament: 2 to 512 players, enough to fill a table).",
    "invalid-players": "422: the players are not a list of names (1 to 64 printable characters each).",
    "invalid-options": "422: an option is unknown (the detail names the game's options), does not fit its "
    "schema, or breaks a constraint of GET /game-types (`rule` names the constraint).",
    "cannot-start": "422: the game refuses to start with these players and options; `rule` names the "
    "constraint of GET /game-types broken.",
    "bad-game-id": "422: a game id given in a body or an import is not an id.",
    "not-your-turn": "409: the seat is not among the game's to_act now; wait for its turn (the events or the "
    "stream tell when).",
    "wrong-phase": "409: the seat is to act, but not with a move of this type: the game is in another phase or "
    "expects another decision (`rule` and the detail say which); GET legal-moves lists what it may "
    "do now. (A seat that is not to act gets `not-your-turn`, whose `rule` may still be the game's "
    "`wrong-phase` check.)",
    "illegal-move": "422: the move breaks a rule of the game (`rule` names it); the seat is still to act.",
    "malformed-move": "422: the move's type is unknown (the detail names the moves) or a field is missing, "
    "unknown or of the wrong type (`rule`: unknown-move, missing-field, unknown-field, "
    "invalid-field).",
    "game-finished": "409: the game is over; it takes no more moves.",
    "tournament-table": "409: a tournament's table has no rematch and takes no newcomer; the tournament pairs its "
    "rounds and seats its players.",
    "game-not-started": "409: the game waits for players in its open seats (`open` lists them); moves come once "
    "every seat is claimed.",
    "bad-seat": "422: the seat number is not a seat of the game.",
    "seat-not-absent": "409: a bot takes only a seat whose player is absent (or left), and not one a bot plays.",
    "seat-not-open": "409: the seat is not open: an invitation is for an open seat, and a seat is left only once.",
    "invitation-used": "410: the seat's invitation was used: the seat is claimed (an invitation works once).",
    "wrong-invitation": "409: the invitation is not the open seat's (a wrong code); no token is given.",
    "name-taken": "409: another seat of the game has this player's name.",
    "game-not-finished": "409: a rematch follows a finished game; this one is still being played.",
    "game-frozen": "409: a reviewer froze the game; moves wait for an unfreeze adjudication.",
    "turn-expired": "409: the seat's time for this decision (its turn, then its bank) ran out at `deadline` before "
    "the move came: its timeout move is made instead, and no move is stored after its seat's deadline; read the "
    "game again.",
    "version-mismatch": "412: If-Match names a version the game is no longer at (`current_version` is where it "
    "is); read the game again before moving.",
    "idempotency-key-reused": "422: the Idempotency-Key was used before with a different move.",
    "contention": "409: the game kept changing under concurrent writes; retry.",
    "bad-version": "422: the version asked for is not in the game's log (1 to its version).",
    "bad-viewpoint": "422: the `as` viewpoint names a seat the game does not have.",
    "after-past-end": "409: a stream resumed (Last-Event-ID, `after`), or a long-poll, from a version past the "
    "last one the caller is shown (the detail names it): no event the caller was sent has that version (a "
    "client's mistake, or a log whose end was lost in a failover); read the game anew and resume from there.",
    "bad-cursor": "422: the cursor is not a next_cursor this listing gave.",
    "bad-page": "422: a listing was given both a cursor and an offset.",
    # ---- review, export, import
    "already-frozen": "409: the game is frozen already.",
    "not-frozen": "409: the game is not frozen, so there is nothing to unfreeze.",
    "bad-adjudication": "422: an award or a score correction that does not fit the game (one finite number per seat).",
    "no-result": "409: a correction to a result the game (or the tournament table) does not have yet.",
    "too-many-corrections": "409: the game holds the most score corrections it takes; award the corrected scores "
    "instead.",
    "bad-export": "422: an imported log that does not verify (`problems` lists why) or does not begin with a "
    "game's creation.",
    "game-exists": "409: an imported game's id is already in this store.",
    # ---- tournaments
    "tournament-not-found": "404: there is no tournament of this id.",
    "round-not-found": "404: the tournament has no such round (yet).",
    "no-tournament": "422: the command names no tournament.",
    "exists": "409: the tournament exists already.",
    "duplicate-player": "422: a name is given twice: a tournament's player, or two seats of one game (`field` names "
    "the second).",
    "unknown-format": "422: the format is not round_robin, swiss or duplicate.",
    "table-size": "422: the table sizes do not fit the game's player counts, or a table of that size could not "
    "start (`rule` names the game's constraint).",
    "rounds": "422: the number of rounds is out of range.",
    "unknown-player": "422: the player is not registered in the tournament.",
    "already-withdrawn": "409: the player has withdrawn already.",
    "finished": "409: the tournament is over.",
    "unknown-table": "422: the round has no such table.",
    "table-started": "409: the table plays a game already.",
    "wrong-game": "409: the table does not play that game.",
    "bad-outcome": "422: a table's outcome without one score per seat.",
    "unknown-command": "422: a tournament command the tournament does not know.",
    # ---- keys and webhooks
    "key-not-found": "404: there is no key of this id.",
    "webhook-not-found": "404: there is no webhook of this id among the caller's.",
    "bad-url": "422: the webhook URL is not a URL webhooks are delivered to (the detail says why).",
    "private-address": "422: the webhook URL resolves to a private, loopback or link-local address.",
    "invalid-events": "422: the webhook names no event, or events there are none of (the detail lists them).",
    "too-many-webhooks": "409: the key holds the most webhooks it may.",
    # ---- the service
    "unavailable": "503: the event store is unreachable or refused a write, or too many streams or replays run at "
    "once; retry after Retry-After.",
    "internal": "500: a defect; it has been logged.",
    "not-implemented": "501: the server does not implement the method.",
    OTHER_STATUS: "any other HTTP error, as its status says.",
}


def described() -> str:
    """The kinds with their meaning, one a line (for the contract)."""
    return "\n".join(f"- `{kind}`: {meaning}" for kind, meaning in PROBLEM_TYPES.items())
