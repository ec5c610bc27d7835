"""One test battery for every game of ``domain.registry`` (the face of ``domain.base``).

Random bots play complete matches from ``legal_moves`` only, every command
carrying a seed from the match's own generator (so a match is reproducible
from its number).  Checked on every match:

- ``json``: every state is plain JSON and survives a round trip (the state
  after every command; in every tenth match, by default, the state after
  every event, and every event);
- ``fold``: re-folding the whole log from the initial state gives the final
  state; in every tenth match (by default) also, after every event, folding it
  again gives an equal state and leaves the state it was folded into unchanged;
- ``decide``: in those matches, deciding each command twice gives the same
  events (randomness comes only from the command's seed);
- ``turns``: while the match runs some seat acts (the seats ``to_act`` are
  seats of the table); a seat that does not act has no legal move and no
  timeout move, and its command is refused with a ``RuleViolation`` (checked
  every 24th move on average);
- ``legal``: every acting seat has a legal move, its ``timeout_move`` is one of
  them, the move the bot picks is accepted, and in every tenth match (by
  default) every listed move of every acting seat is accepted by ``decide``;
- ``view``: a seat's (or a spectator's) view does not change when the cards it
  may not see are dealt differently (every 24th move on average; the game's
  ``scramble`` hook, by default the other seats' hands dealt again among
  them): no view shows another seat's hidden cards, or anything that depends
  on them;
- ``cards``: the cards a state holds while a deal is in play are the cards the
  deal committed to (``domain.base.committed``), none lost, none added (the
  game's ``cards`` hook; by default: every card in a hand was dealt): checked
  when the deal is made and as it ends, and after every event in every tenth
  match;
- ``money``: where there is money (the game's ``money`` hook), its total never
  changes;
- ``outcome``: the match ends within a bounded number of moves, with a score
  per seat, a ranking of every seat and winners at its top; then nobody acts;
- ``words``: where the game has its notation (``domain/<game>/notation.py``,
  as every game of the service has), the move the bot picks validates against
  its type's schema and has a label in English and Spanish, and so has every
  event (in every tenth match, by default);
- ``wire``: in those matches, every event, the picked move and the mover's view
  written with card codes (``domain.wire``, as the API and the log write them)
  hold codes of the game's pattern where its cards are, and read back exactly;
- ``replay``: in those matches, a state between two events of one command (where a replay may
  stop) answers who acts, their legal moves and every viewer's view without an error;
- ``shapes``: where the game has its notation, every view the battery takes (a seat's, a
  spectator's, the reviewer's; sampled every 24th move, and at the end) and every event (in every
  tenth match), written with card codes, validates against the game's ``VIEW_SCHEMA`` and its
  type's ``EVENT_SCHEMAS`` (``data``; ``private``, the whole secret part): the shapes the contract
  publishes are the shapes the game makes;
- the game's own invariants (its ``checks`` hook) and the events or labels
  each chunk of matches must reach.

A game's hooks are the ``PROFILE`` of ``tests/test_<game id>_bots.py``; a game
without one gets the default profile (options drawn from its ``OPTIONS``
schema), so a new game gets the battery by being registered.
"""

from __future__ import annotations

import importlib
import random
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import jsonschema
import jsonschema_rs
import orjson

from domain import describe, registry, wire
from domain.base import DEAL, REVIEWER, SPECTATOR, RuleViolation

MOVE_VALIDATORS: dict[tuple[str, str], Any] = {}  # a move type's schema, compiled once
SHAPE_VALIDATORS: dict[tuple[str, ...], Any] = {}  # a view's, an event part's schema, compiled once
SHAPES = True  # the shapes check on (tests/test_battery.py turns it off to show another check alone)
SAMPLE_EVERY = 24  # the views and the seats that do not act are checked every 24th move (on average)


class BatteryFailure(AssertionError):
    """A game broke one of the battery's invariants; the message names the check."""


def expect(ok: Any, check: str, detail: str = "") -> None:
    if not ok:
        raise BatteryFailure(f"{check}: {detail}")


class Checks:
    """A game's own invariants for one match (``Profile.checks`` makes one per match)."""

    def event(self, before: dict, ev: dict, after: dict) -> None:
        """After every event (``before`` folded with ``ev`` is ``after``)."""

    def command(self, before: dict, events: list[dict], after: dict) -> None:
        """After all the events of one command."""

    def end(self, state: dict) -> None:
        """At the end of the match."""


@dataclass
class Variant:
    """A way to play a game: how matches are set up and how bots choose."""

    name: str = "random"
    matches: int = 100
    chunks: int = 1
    # (generator, match number) -> (number of players, options); None: drawn from the OPTIONS schema
    setup: Callable[[random.Random, int], tuple[int, dict]] | None = None
    # (state, acting seats, their legal moves, generator, match number) -> a command, or None for
    # the default (a random acting seat plays a random legal move)
    policy: Callable[[dict, list[int], dict[int, list[dict]], random.Random, int], dict | None] | None = None
    deep_every: int = 10  # every tenth match tries every legal move and checks the fold event by event
    reached: tuple[str, ...] = ()  # event types or labels every chunk of matches must reach
    verdict: Callable[[Counter], None] | None = None  # more on what a chunk reached
    max_moves: int = 20_000


@dataclass
class Profile:
    """A game's hooks for the battery (every one optional)."""

    variants: tuple[Variant, ...] = (Variant(),)
    # state -> (every card the state holds, how many more it holds only as a count)
    cards: Callable[[dict], tuple[list, int]] | None = None
    money: Callable[[dict], int] | None = None  # state -> the money at the table
    # (state, viewer, generator) -> the state with what ``viewer`` may not see dealt differently
    scramble: Callable[[dict, Any, random.Random], dict | None] | None = None
    # (initial state, options, counter of what was reached) -> the match's Checks
    checks: Callable[[dict, dict, Counter], Checks] | None = None


# ------------------------------------------------------------------ profiles


def profile_for(module: ModuleType) -> Profile:
    """The ``PROFILE`` of ``tests/test_<GAME_ID>_bots.py``, else the default one."""
    name = f"tests.test_{module.GAME_ID}_bots"
    try:
        hooks = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:
            raise
        return Profile()
    return getattr(hooks, "PROFILE", Profile())


def schema_setup(module: ModuleType) -> Callable[[random.Random, int], tuple[int, dict]]:
    """Setups drawn from the game's bounds and OPTIONS schema: a few players, every
    boolean at random, small integers (short matches), any value of an enum."""
    validator = jsonschema.validators.validator_for(module.OPTIONS)(module.OPTIONS)

    def setup(r: random.Random, index: int) -> tuple[int, dict]:
        n = r.randint(module.MIN_PLAYERS, min(module.MAX_PLAYERS, module.MIN_PLAYERS + 4))
        opts: dict[str, Any] = {}
        for name, spec in module.OPTIONS["properties"].items():
            if "enum" in spec:
                opts[name] = r.choice(spec["enum"])
            elif spec.get("type") == "boolean":
                opts[name] = r.random() < 0.5
            elif spec.get("type") == "integer":
                low = spec.get("minimum", 0)
                opts[name] = r.randint(low, min(spec.get("maximum", low + 2), low + 2))
        if list(validator.iter_errors(opts)):
            opts = {}
        return n, opts

    return setup


def default_scramble(state: dict, viewer: Any, r: random.Random) -> dict | None:
    """The cards in the hands of the seats other than ``viewer`` dealt again among them."""
    hands = state.get("hands")
    if not isinstance(hands, list):
        return None
    others = [s for s in range(len(hands)) if s != viewer]
    return {**state, "hands": deal_again(hands, others, [], r)[0]}


def deal_again(hands: list[list], seats: list[int], extra: list, r: random.Random) -> tuple[list[list], list]:
    """The cards of ``hands[s]`` for ``s`` in ``seats`` and of ``extra`` dealt back in another
    order (reversed, then cut at random), each place keeping its size: (new hands, new extra)."""
    pool = [c for s in seats for c in hands[s]] + list(extra)
    mixed = pool[::-1]
    if pool:
        k = r.randrange(len(pool))
        mixed = mixed[k:] + mixed[:k]
        if mixed == pool:
            mixed = mixed[1:] + mixed[:1]
    out = list(hands)
    k = 0
    for s in seats:
        out[s] = mixed[k : k + len(hands[s])]
        k += len(hands[s])
    return out, mixed[k:]


# ------------------------------------------------------------------ checks


def check_json(value: Any, what: str, after: str | None = None) -> None:
    try:
        if orjson.loads(orjson.dumps(value)) == value:
            return
        problem = "does not survive a JSON round trip"
    except (TypeError, orjson.JSONEncodeError) as exc:
        problem = f"is not plain JSON ({exc})"
    raise BatteryFailure(f"json: {what}{f' after {after}' if after else ''} {problem}")


def check_state(before: dict, after: dict, etype: str) -> None:
    """``after`` is plain JSON.  ``evolve`` shares the unchanged parts of ``before`` (checked
    already, and never mutated: see the ``fold`` check), so when the keys are the same only the
    parts made anew are round-tripped."""
    if type(after) is not dict:
        raise BatteryFailure(f"json: the state after {etype} is not an object")
    if after.keys() == before.keys():
        check_json([v for v, was in zip(after.values(), before.values()) if v is not was], "the state", etype)
    else:
        check_json(after, "the state", etype)


def dealt_cards(deck: Any) -> list:
    """The cards of a committed deck (a list, or lists in a dict or a list)."""
    if isinstance(deck, dict):
        return [c for k in sorted(deck) for c in dealt_cards(deck[k])]
    if isinstance(deck, list) and deck and isinstance(deck[0], (list, dict)):
        return [c for part in deck for c in dealt_cards(part)]
    return list(deck)


def check_view(module: ModuleType, profile: Profile, state: dict, viewer: Any, r: random.Random) -> None:
    shown = module.view(state, viewer)
    check_json(shown, f"the view of {viewer!r}")
    scrambled = (profile.scramble or default_scramble)(state, viewer, r)
    if scrambled is None:
        return
    expect(
        module.view(scrambled, viewer) == shown,
        "view",
        f"the view of {viewer!r} changes when cards it may not see are dealt differently",
    )


class Match:
    """One match played by random bots under every check."""

    def __init__(self, module: ModuleType, profile: Profile, variant: Variant, index: int, seen: Counter):
        self.module, self.profile, self.variant, self.index, self.seen = module, profile, variant, index, seen
        self.r = random.Random(f"{module.GAME_ID}:{variant.name}:{index}")
        self.deep = index % variant.deep_every == 0
        self.log: list[dict] = []
        self.deck: Counter | None = None  # the cards of the deal in play
        self.words = describe.NOTATIONS.get(module.GAME_ID)  # the game's notation, if it has one

    def play(self) -> None:
        m, r = self.module, self.r
        setup = self.variant.setup or schema_setup(m)
        for _ in range(50):  # a setup the game refuses to start is not a match (the service refuses it too)
            n, options = setup(r, self.index)
            self.st0 = m.initial_state([f"bot{i}" for i in range(n)], options)
            check_json(self.st0, "the initial state")
            start = {"type": "start", "seat": None, "seed": r.getrandbits(63)}
            try:
                events = self.decide(self.st0, start)
            except RuleViolation:
                continue
            break
        else:
            raise BatteryFailure("setup: no setup drawn could start")
        self.checks = self.profile.checks(self.st0, options, self.seen) if self.profile.checks else Checks()
        self.money = self.profile.money(self.st0) if self.profile.money else None
        self.st = self.st0
        self.apply(events)
        moves = 0
        while m.outcome(self.st) is None:
            moves += 1
            if moves >= self.variant.max_moves:
                raise BatteryFailure(f"outcome: the match did not end in {moves} moves")
            self.turn()
        self.finish()
        self.seen["matches"] += 1

    def decide(self, state: dict, command: dict, twice: bool = True) -> list[dict]:
        events = self.module.decide(state, command)
        if self.deep and twice and self.module.decide(state, command) != events:
            raise BatteryFailure(f"decide: deciding {command['type']!r} twice gave different events")
        return events

    def apply(self, events: list[dict]) -> None:
        m, profile = self.module, self.profile
        if not events:
            raise BatteryFailure("legal: an accepted command decided no event")
        first = self.st
        for ev in events:
            before = self.st
            if self.deep:
                self.fold_twice(before, ev)
            after = m.evolve(before, ev)
            if self.deep:
                check_state(before, after, ev["type"])
                if ev is not events[-1]:
                    self.check_replayable(after, ev["type"])
            self.st = after
            self.log.append(ev)
            self.seen[ev["type"]] += 1
            secret = (ev.get("private") or {}).get(DEAL)
            if secret is not None:
                dealt = dealt_cards(secret["deck"])
                self.deck, self.deck_set, self.deck_size = Counter(dealt), set(dealt), len(dealt)
                self.distinct = len(self.deck_set) == len(dealt)
                self.check_cards(after, f"after {ev['type']}")
            elif self.deck is not None and self.deep:
                self.check_cards(after, f"after {ev['type']}")
            elif self.deck is not None and ev["type"] in m.HAND_OVER_EVENTS:
                self.check_cards(before, f"as the deal ends, before {ev['type']}")
            if self.money is not None and profile.money(after) != self.money:
                raise BatteryFailure(
                    f"money: the money at the table is {profile.money(after)} after {ev['type']}, not {self.money}"
                )
            self.checks.event(before, ev, after)
            if self.words is not None and self.deep:
                self.check_event_words(ev)
            if ev["type"] in m.HAND_OVER_EVENTS:
                self.deck = None
        if not self.deep:
            check_state(first, self.st, events[-1]["type"])
        self.checks.command(first, events, self.st)

    def fold_twice(self, before: dict, ev: dict) -> None:
        """Folding an event never changes the state it is folded into, and gives the same state twice."""
        snapshot = orjson.dumps(before, option=orjson.OPT_SORT_KEYS)
        once = self.module.evolve(before, ev)
        if orjson.dumps(before, option=orjson.OPT_SORT_KEYS) != snapshot:
            raise BatteryFailure(f"fold: folding {ev['type']} changed the state it was folded into")
        if self.module.evolve(before, ev) != once:
            raise BatteryFailure(f"fold: folding {ev['type']} twice gave different states")
        check_json(ev, f"a {ev['type']} event")

    def check_cards(self, st: dict, when: str) -> None:
        if self.profile.cards is None:  # by default: every card in a hand was dealt
            hands = st.get("hands")
            located, loose = ([c for h in hands for c in h], None) if isinstance(hands, list) else ([], None)
        else:
            located, loose = self.profile.cards(st)
        deck = self.deck
        if self.distinct:  # a deck of distinct cards (the usual case): sets are enough
            held = set(located)
            dealt = len(held) == len(located) and held <= self.deck_set
        else:
            dealt = Counter(located) <= deck
        if not dealt:
            extra = sorted((Counter(located) - deck).elements(), key=str)
            raise BatteryFailure(f"cards: the state holds cards the deal did not commit to: {extra} ({when})")
        if loose is not None and len(located) + loose != self.deck_size:
            raise BatteryFailure(
                f"cards: {self.deck_size - len(located) - loose} card(s) of the deal are missing ({when})"
            )

    def turn(self) -> None:
        m, r, st = self.module, self.r, self.st
        n = len(st["players"])
        acting = m.to_act(st)
        if not acting:
            raise BatteryFailure("turns: the match runs but no seat acts")
        legal: dict[int, list[dict]] = {}
        for seat in acting:
            if type(seat) is not int or not 0 <= seat < n:
                raise BatteryFailure(f"turns: to_act names {acting}")
            moves = m.legal_moves(st, seat)
            if not moves:
                raise BatteryFailure(f"legal: seat {seat} acts but has no legal move")
            if m.timeout_move(st, seat) not in moves:
                raise BatteryFailure(f"legal: the timeout move of seat {seat} is not one of its legal moves")
            legal[seat] = moves
            if self.deep:
                for move in moves:
                    self.accepted(st, {**move, "seat": seat, "seed": 5}, twice=False)
        if r.random() * SAMPLE_EVERY < 1:
            idle = [s for s in range(n) if s not in acting]
            if idle:
                self.refused(r.choice(idle), legal)
            check_view(m, self.profile, st, r.choice([*range(n), SPECTATOR]), r)
            if self.words is not None and SHAPES:
                for viewer in (r.randrange(n), SPECTATOR, REVIEWER):
                    self.check_view_shape(m.view(st, viewer), viewer)
        command = self.variant.policy(st, acting, legal, r, self.index) if self.variant.policy else None
        if command is None:
            seat = r.choice(acting)
            command = {**r.choice(legal[seat]), "seat": seat, "seed": r.getrandbits(63)}
        move = {k: v for k, v in command.items() if k not in ("seat", "seed")}
        if self.words is not None and self.deep and move in legal.get(command.get("seat"), ()):  # a seat's move
            self.check_move_words(st, command)
        self.apply(self.accepted(st, command))

    def check_move_words(self, st: dict, command: dict) -> None:
        """The move validates against its type's schema and has a label in each language."""
        move = {k: v for k, v in command.items() if k not in ("seat", "seed")}
        spec = self.words.MOVES.get(move["type"])
        expect(spec is not None, "words", f"the move type {move['type']!r} is not described")
        key = (self.module.GAME_ID, move["type"])
        validator = MOVE_VALIDATORS.get(key) or MOVE_VALIDATORS.setdefault(
            key, jsonschema.Draft202012Validator(spec["schema"])
        )
        coded = wire.encode_move(self.module.GAME_ID, move)
        error = jsonschema.exceptions.best_match(validator.iter_errors(coded))
        expect(error is None, "words", f"the move {coded} breaks its schema: {error and error.message}")
        expect(wire.decode_move(self.module.GAME_ID, coded) == move, "wire", f"the move {move} does not come back")
        view = self.module.view(st, command["seat"])
        self.check_wire_view(view)
        if SHAPES:
            self.check_view_shape(view, command["seat"])
        for lang in describe.LANGUAGES:
            label = self.words.label_move(view, command["seat"], move, lang)
            expect(isinstance(label, str) and label.strip(), "words", f"no {lang} label for the move {move}")

    def check_wire_view(self, view: dict) -> None:
        """A view written with card codes (as the API shows it) reads back as it was."""
        game = self.module.GAME_ID
        coded = wire.encode_view(game, view)
        self.check_codes(wire.cards_at(coded, wire.view_paths(game)), "a view")
        expect(wire.decode_view(game, coded) == view, "wire", "a view does not come back from its codes")

    def shape(self, *path: str) -> Any:
        """The compiled schema at ``path`` of the game's notation (``VIEW_SCHEMA``; ``EVENT_SCHEMAS``,
        type, part); None where the notation says the part is absent."""
        key = (self.module.GAME_ID, *path)
        if key not in SHAPE_VALIDATORS:
            name, *rest = path
            schema = getattr(self.words, name, None)
            expect(schema is not None, "shapes", f"the notation has no {name}")
            for step in rest:
                expect(step in schema, "shapes", f"{name} has no {'.'.join(rest)}")
                schema = schema[step]
            if schema is not None:
                jsonschema.Draft202012Validator.check_schema(schema)
            # the compiled check (jsonschema_rs, as the service's move check) says whether; jsonschema says why
            SHAPE_VALIDATORS[key] = schema and (
                jsonschema_rs.validator_for(schema).is_valid,
                jsonschema.Draft202012Validator(schema),
            )
        return SHAPE_VALIDATORS[key]

    def valid(self, validator: Any, value: Any, what: str) -> None:
        is_valid, explain = validator
        if is_valid(value):
            return
        error = jsonschema.exceptions.best_match(explain.iter_errors(value))
        where = "/".join(str(p) for p in error.absolute_path) if error is not None else ""
        raise BatteryFailure(f"shapes: {what} breaks its schema at /{where}: {error and error.message}")

    def check_replayable(self, st: dict, kind: str) -> None:
        """A replay may stop between two events of one command: the state there answers who acts, each
        seat's legal moves and every viewer's view, as any other does."""
        m = self.module
        try:
            acting = m.to_act(st)
            for seat in acting:
                m.legal_moves(st, seat)
            for viewer in (*range(len(st["players"])), SPECTATOR, REVIEWER):
                m.view(st, viewer)
        except Exception as exc:  # any error is the failure to report
            raise BatteryFailure(f"replay: after {kind}, inside a command, {type(exc).__name__}: {exc}") from exc

    def check_view_shape(self, view: dict, viewer: Any) -> None:
        """The view, as the API shows it, has the shape ``VIEW_SCHEMA`` publishes."""
        self.valid(self.shape("VIEW_SCHEMA"), wire.encode_view(self.module.GAME_ID, view), f"the view of {viewer!r}")

    def check_event_shape(self, ev: dict) -> None:
        """The event's public and secret parts, as the log holds them, have the shapes published."""
        coded = wire.encode_event(self.module.GAME_ID, ev)
        kind = ev["type"]
        self.valid(self.shape("EVENT_SCHEMAS", kind, "data"), coded.get("data") or {}, f"the data of a {kind} event")
        private = self.shape("EVENT_SCHEMAS", kind, "private")
        if coded.get("private"):
            expect(private is not None, "shapes", f"a {kind} event has a private part its schema says it has not")
            self.valid(private, coded["private"], f"the private part of a {kind} event")

    def check_codes(self, values: list, what: str) -> None:
        pattern = self.words.CARD_PATTERN
        bad = [v for v in values if not isinstance(v, str) or not re.fullmatch(pattern, v)]
        expect(not bad, "wire", f"{what} holds {bad[:3]}, not card codes")

    def check_event_words(self, ev: dict) -> None:
        """Every event has a label in each language, made from its public part; written with card
        codes (as the log stores it) it reads back as it was."""
        game = self.module.GAME_ID
        coded = wire.encode_event(game, ev)
        self.check_codes(wire.cards_at(coded, wire.event_paths(game, ev["type"])), f"a {ev['type']} event")
        expect(wire.decode_event(game, coded) == ev, "wire", f"a {ev['type']} event does not come back from its codes")
        players = self.st["players"]
        expect(ev["type"] in self.words.EVENT_TYPES, "words", f"the event type {ev['type']!r} is not listed")
        if SHAPES:
            self.check_event_shape(ev)
        for lang in describe.LANGUAGES:
            label = self.words.label_event({"type": ev["type"], "data": ev.get("data") or {}}, players, lang)
            expect(isinstance(label, str) and label.strip(), "words", f"no {lang} label for {ev['type']}")

    def accepted(self, st: dict, command: dict, twice: bool = True) -> list[dict]:
        try:
            return self.decide(st, command, twice)
        except RuleViolation as exc:
            raise BatteryFailure(f"legal: the listed move {command} was refused ({exc.rule}: {exc.detail})") from None

    def refused(self, seat: int, legal: dict[int, list[dict]]) -> None:
        m, st = self.module, self.st
        expect(m.legal_moves(st, seat) == [], "turns", f"seat {seat} does not act but has legal moves")
        try:
            m.timeout_move(st, seat)
        except RuleViolation:
            pass
        else:
            raise BatteryFailure(f"turns: seat {seat} does not act but has a timeout move")
        move = next(iter(legal.values()))[0]
        try:
            m.decide(st, {**move, "seat": seat, "seed": 5})
        except RuleViolation:
            return
        raise BatteryFailure(f"turns: seat {seat} does not act but its move {move} was accepted")

    def finish(self) -> None:
        m, st, r = self.module, self.st, self.r
        n = len(st["players"])
        out = m.outcome(st)
        check_json(out, "the outcome")
        expect(len(out["scores"]) == n, "outcome", f"{len(out['scores'])} scores for {n} seats")
        ranking, winners = list(out["ranking"]), list(out["winners"])
        expect(sorted(ranking) == list(range(n)), "outcome", f"the ranking {ranking} is not one of every seat")
        nobody = getattr(self.checks, "nobody_wins", lambda _st: False)(st)  # a result with no winner, by the rules
        expect(
            (winners or nobody) and sorted(winners) == sorted(ranking[: len(winners)]),
            "outcome",
            f"the winners {winners} are not the top of the ranking {ranking}",
        )
        expect(m.to_act(st) == [], "outcome", "a seat acts after the match is over")
        expect(all(m.legal_moves(st, s) == [] for s in range(n)), "outcome", "a seat has moves after the end")
        refold = self.st0
        for ev in self.log:
            refold = m.evolve(refold, ev)
        expect(refold == st, "fold", "re-folding the log does not give the final state")
        for viewer in (r.randrange(n), SPECTATOR, REVIEWER):
            check_json(m.view(st, viewer), f"the final view of {viewer!r}")
            if self.words is not None and SHAPES:
                self.check_view_shape(m.view(st, viewer), viewer)
        self.checks.end(st)


# ------------------------------------------------------------------ running


def variants(game_id: str) -> list[Variant]:
    return list(profile_for(registry.get(game_id)).variants)


def chunks() -> list[tuple[str, str, int]]:
    """(game id, variant name, chunk) for every registered game."""
    return [(gid, v.name, k) for gid in registry.GAME_MODULES for v in variants(gid) for k in range(v.chunks)]


def run(game_id: str, variant_name: str = "random", chunk: int = 0, matches: range | None = None) -> Counter:
    """Play one chunk of a variant of a registered game under every check, and check what the
    chunk reached (or play the given match numbers only); a broken invariant raises
    :class:`BatteryFailure` naming the check and the match."""
    module = registry.get(game_id)
    profile = profile_for(module)
    variant = next(v for v in profile.variants if v.name == variant_name)
    whole = matches is None
    if whole:
        per = variant.matches // variant.chunks
        matches = range(chunk * per, (chunk + 1) * per)
    seen: Counter = Counter()
    for index in matches:
        try:
            Match(module, profile, variant, index, seen).play()
        except BatteryFailure as exc:
            raise BatteryFailure(f"{game_id} ({variant.name}, match {index}) {exc}") from None
        except AssertionError as exc:  # one of the game's own checks
            exc.add_note(f"in {game_id} ({variant.name}, match {index})")
            raise
    if whole:
        for label in variant.reached:
            expect(seen[label] > 0, "reached", f"{game_id} ({variant.name}): no {label} in {len(matches)} matches")
        if variant.verdict:
            variant.verdict(seen)
    return seen
