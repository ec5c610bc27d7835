"""Offline verification of an exported game log (``naipes verify FILE``).

Three checks, each naming the first thing that fails:

1. the hash chain: versions without gaps, each event pointing at the hash of
   the one before, each hash matching its event;
2. the deals: every ``DealRevealed`` matches the commitment of the deal it
   names (SHA-256 of the salt, ``|`` and the deck's compact JSON), the cards
   the seats received are cards of that deck, and every deal of a finished
   game has been revealed;
3. the outcome: folding the events from scratch gives the outcome the
   export's header records.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from domain import table as tables
from domain import wire
from domain.base import DEAL, deal_commitment, seat_parts
from events.envelope import MAX_DEPTH, canonical, loads, verify_chain

EXPORT_FORMAT = "naipes-game-log/1"  # the first line of an export names it


def _flat(value: Any) -> list:
    if isinstance(value, dict):
        return [c for k in sorted(value) for c in _flat(value[k])]
    if isinstance(value, list):
        return [c for v in value for c in _flat(v)]
    return [value]


def _cards(part: Any) -> list:
    """The cards a seat received in a deal's private part."""
    if isinstance(part, dict):
        return _flat(part.get("hand", []))
    return []


def verify_export(lines: Iterable[bytes | str | dict], progress: Callable[[int], None] | None = None) -> dict:
    problems: list[str] = []
    # blank lines are passed over; every line read already (a dict, even an empty one) is checked
    rows = [line for line in lines if isinstance(line, dict) or (line and line.strip())]
    if not rows:
        return {"ok": False, "problems": ["the file is empty"], "header": None, "events": [], "chain": None}
    try:
        header, *envs = (loads(row) if isinstance(row, (str, bytes)) else row for row in rows)  # or read already
    except Exception as exc:  # noqa: BLE001 - any parse error is the file's fault
        return {"ok": False, "problems": [f"not JSON Lines: {exc}"], "header": None, "events": [], "chain": None}
    if not isinstance(header, dict) or header.get("format") != EXPORT_FORMAT:
        return {
            "ok": False,
            "problems": [f"the first line is not a {EXPORT_FORMAT} header"],
            "header": None,
            "events": [],
            "chain": None,
        }
    if not envs or not all(isinstance(e, dict) for e in envs):
        return {"ok": False, "problems": ["the file holds no events"], "header": header, "events": [], "chain": None}
    # no line nested past what any log holds: its hash could not be recomputed (the canonical JSON writer
    # stops at 255 levels), and the checks below would fail on it rather than report it
    deep = next((i for i, line in enumerate([header, *envs], start=1) if _deeper_than(line, MAX_DEPTH)), None)
    if deep is not None:
        return {
            "ok": False,
            "problems": [f"line {deep} is nested more than {MAX_DEPTH} levels deep: no log of a game is"],
            "header": header,
            "events": [],
            "chain": None,
        }
    # 1. the chain
    chain = verify_chain(envs)
    if not chain["ok"]:
        problems.append(f"chain broken at version {chain['broken_at']}: {chain['reason']}")
    elif chain["head"] != header.get("head_hash") or envs[-1]["version"] != header.get("version"):
        problems.append(
            f"the log ends at version {envs[-1]['version']} but the header records version "
            f"{header.get('version')} (events were removed from the end)"
        )
    cards = (envs[0].get("data") or {}).get("cards") if isinstance(envs[0].get("data"), dict) else None
    if cards not in (None, wire.CODES):
        problems.append(f"GameCreated says cards {cards!r}: a log writes its cards as 'codes', or says nothing")
    if any(e.get("game_id") != header.get("game_id") for e in envs):
        problems.append("an event belongs to another game than the header names")
    commitments = reveals = 0
    table = None
    if not problems:
        # 2. the deals, while folding (3.)
        deals: dict[int, dict] = {}
        try:
            for i, env in enumerate(envs):
                table = tables.evolve(table, env)  # the commitments are checked as the log writes them
                if not tables.coded(table):  # a log of the rules' values writes every card as one
                    wire.encode_event(table["game"], env)
                if progress:
                    progress(i + 1)
                commitment = env["data"].get("commitment") if env["type"] != tables.DEAL_REVEALED else None
                if commitment is not None:
                    commitments += 1
                    deals[env["version"]] = env
                if env["type"] == tables.DEAL_REVEALED:
                    reveals += 1
                    problems += _check_reveal(env, deals)
        except Exception as exc:  # noqa: BLE001 - a log the rules cannot fold is a finding, not a crash
            problems.append(f"the events do not fold under the rules (at version {env['version']}): {exc!r}")
        if table is not None and not problems:
            outcome = tables.outcome(table)
            if outcome is not None:
                unrevealed = sorted(
                    set(deals) - {e["data"]["deal_version"] for e in envs if e["type"] == tables.DEAL_REVEALED}
                )
                if unrevealed:
                    problems.append(f"the game is over but the deal of version {unrevealed[0]} was never revealed")
            if _norm(outcome) != _norm(header.get("outcome")):
                problems.append(
                    f"folding the events gives the outcome {outcome}, the header records {header.get('outcome')}"
                )
    return {
        "ok": not problems,
        "problems": problems,
        "header": header,
        "events": envs,
        "chain": chain,
        "commitments": commitments,
        "reveals": reveals,
        "outcome": tables.outcome(table) if table is not None else None,
    }


def unrevealed_deal_problems(envs: list[dict]) -> list[str]:
    """What is wrong with the deals of a whole log not revealed yet (a running game's hand in play, or a
    reveal still owed): each holds its secret (the private part ``deal``), which no reveal has checked.
    Its deck and salt must open the deal's commitment, and the seats must have received cards of that
    deck, as :func:`_check_reveal` asks of a reveal: a log whose secret does not would be played on with
    those cards, and the reveal its service appends at the end of the hand would not verify."""
    revealed = {e["data"].get("deal_version") for e in envs if e["type"] == tables.DEAL_REVEALED}
    for env in envs:
        commitment = env["data"].get("commitment") if env["type"] != tables.DEAL_REVEALED else None
        if commitment is None or env["version"] in revealed:
            continue
        secret = (env.get("private") or {}).get(DEAL)
        v = env["version"]
        if not isinstance(secret, dict) or not isinstance(secret.get("salt"), str) or "deck" not in secret:
            return [f"the deal at version {v} is not revealed, and its deck and salt are not in the log"]
        if deal_commitment(secret["deck"], secret["salt"]) != commitment:
            return [
                f"the deck of the deal at version {v} (not revealed yet) does not match its commitment "
                "(the cards are not the ones committed before play)"
            ]
        if _dealt_outside(secret["deck"], env["private"]):
            return [f"the seats received at version {v} cards that are not in the committed deck"]
    return []


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether ``value`` nests arrays and objects more than ``limit`` deep (walked without recursion)."""
    stack = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list):
            if depth >= limit:
                return True
            stack.extend((v, depth + 1) for v in (node.values() if isinstance(node, dict) else node))
    return False


def _norm(value: Any) -> Any:
    return loads(canonical(value))


def _check_reveal(env: dict, deals: dict[int, dict]) -> list[str]:
    d = env["data"]
    dealt = deals.get(d.get("deal_version"))
    v = env["version"]
    if dealt is None:
        return [f"the reveal at version {v} names version {d.get('deal_version')}, which dealt nothing"]
    if dealt["data"]["commitment"] != d.get("commitment"):
        return [f"the reveal at version {v} quotes another commitment than the deal at version {dealt['version']}"]
    if deal_commitment(d.get("deck"), d.get("salt", "")) != d["commitment"]:
        return [
            f"the deck revealed at version {v} does not match the commitment made at version "
            f"{dealt['version']} (the cards were not the ones committed before play)"
        ]
    if "private" in dealt and _dealt_outside(d["deck"], dealt["private"]):
        return [f"the seats received at version {dealt['version']} cards that are not in the committed deck"]
    return []


def _dealt_outside(deck: Any, private: dict) -> bool:
    """Whether the seats' secret parts of a deal hold cards its deck does not (counted with repeats)."""
    given = Counter(repr(c) for _seat, part in seat_parts(private) for c in _cards(part))
    return bool(given - Counter(map(repr, _flat(deck))))
