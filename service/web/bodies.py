"""The one parser of JSON request bodies (every route's, and the hot path's)."""

from __future__ import annotations

import json
import math
import re

import orjson

from events.envelope import MAX_DEPTH

INT_MIN, INT_MAX = -(2**63), 2**63 - 1  # what the event store's JSON (orjson) can write back
SURROGATE = re.compile("[\ud800-\udfff]")


class BadJSON(ValueError):
    """A request body the strict parser refuses; the message names the problem and never quotes the body."""


class _Refused:
    """A number the parser read but refuses; the walk over the value names where it stood."""

    def __init__(self, why: str):
        self.why = why


def _strict_int(text: str) -> int | _Refused:
    if len(text) > 20 or not INT_MIN <= (value := int(text)) <= INT_MAX:
        return _Refused(f"the integer is outside the 64-bit range {INT_MIN} to {INT_MAX}")
    return value


def _strict_float(text: str) -> float | _Refused:
    value = float(text)
    if not math.isfinite(value):
        return _Refused("the number is too large for a double: numbers must be finite")
    return value


def _not_a_number(name: str) -> _Refused:
    return _Refused(f"{name} is not JSON: numbers must be finite")


def _where(path: tuple | None) -> str:
    """``players[1]`` of a path kept as ``(parent, key)`` links; member names shortened, never unprintable."""
    parts = []
    while path is not None:
        path, part = path
        parts.append(f"[{part}]" if isinstance(part, int) else "." + SURROGATE.sub("?", part[:40]))
    return "".join(reversed(parts)).lstrip(".") or "the body"


def _too_deep(path: tuple | None) -> BadJSON:
    where = _where(path) if path is not None else "the body"
    where = where if len(where) <= 60 else where[:60] + "..."
    return BadJSON(f"{where}: the JSON body is nested too deeply (more than {MAX_DEPTH} levels)")


def _check_depth(value) -> None:
    """No value deeper than MAX_DEPTH, walked without recursion."""
    stack = [(value, None, 0)]
    while stack:
        node, path, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise _too_deep(path)
        if isinstance(node, dict):
            stack.extend((v, (path, k), depth + 1) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, (path, i), depth + 1) for i, v in enumerate(node))


def _check(value) -> None:
    """No refused number, and every string and member name valid Unicode: no lone surrogate (a
    \\ud800-\\udfff escape without its pair), which nothing downstream could store or send back."""
    stack = [(value, None)]
    while stack:
        node, path = stack.pop()
        if isinstance(node, _Refused):
            raise BadJSON(f"{_where(path)}: {node.why}")
        if isinstance(node, str):
            if SURROGATE.search(node):
                raise BadJSON(
                    f"{_where(path)}: a string holds a lone surrogate escape (\\ud800 to \\udfff "
                    "without its pair); text must be valid Unicode"
                )
        elif isinstance(node, dict):
            for k, v in node.items():
                if SURROGATE.search(k):
                    raise BadJSON(
                        f"{_where(path)}: a member name holds a lone surrogate escape (\\ud800 to "
                        "\\udfff without its pair); text must be valid Unicode"
                    )
                stack.append((v, (path, k)))
        elif isinstance(node, list):
            stack.extend((v, (path, i)) for i, v in enumerate(node))


def _plain(value) -> bool:
    """Whether orjson's parse of a body is what the strict parser gives, with nothing to refuse: no
    number but integers within 64 bits (orjson reads an integer past 64 bits as a float, so a float
    is left to the full parse) and no nesting past MAX_DEPTH.  orjson itself refuses what is not
    JSON, non-finite numbers and lone surrogate escapes."""
    stack = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            if depth >= MAX_DEPTH:
                return False
            stack.extend((v, depth + 1) for v in node.values())
        elif isinstance(node, list):
            if depth >= MAX_DEPTH:
                return False
            stack.extend((v, depth + 1) for v in node)
        elif isinstance(node, float) or (isinstance(node, int) and not INT_MIN <= node <= INT_MAX):
            return False
    return True


def strict_loads(data: str | bytes) -> object:
    """The one JSON parser of request bodies: standard JSON, UTF-8, valid Unicode text, integers within
    64 bits and finite numbers only (anything else is :class:`BadJSON`).

    A body orjson reads with nothing to refuse (:func:`_plain`: every move and most bodies) is its
    parse; any other is parsed again by ``json.loads`` with strict number hooks, which names what it
    refuses and where."""
    if isinstance(data, (bytes, bytearray)):
        try:
            data = bytes(data).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BadJSON(f"the body is not UTF-8 (byte {exc.start})") from None
    # the nesting first, on orjson's parse (C, with no Python recursion): json.loads below recurses
    # on the interpreter's stack, so where it gives up would depend on the caller's depth
    try:
        shape = orjson.loads(data)
    except orjson.JSONDecodeError:
        pass  # json.loads names the problem (past orjson's own limit of 1,024 levels: it recurses out)
    else:
        if _plain(shape):
            return shape
        _check_depth(shape)
    try:
        value = json.loads(data, parse_int=_strict_int, parse_float=_strict_float, parse_constant=_not_a_number)
    except json.JSONDecodeError as exc:
        raise BadJSON(f"the body is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise _too_deep(None) from None
    _check(value)
    _check_depth(value)
    return value
