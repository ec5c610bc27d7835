"""Listings a page at a time, newest first, from sorted sets kept per filter.

Games and tournaments are listed from sorted sets (member: id, score: the
time it was first listed, in ms): one of every id, and one per filter and
combination of filters.  A page reads its own rows and no others, whatever
the store holds: ``ZREVRANGE`` by rank (an offset) or ``ZREVRANGEBYSCORE``
below a cursor, both logarithmic in the size of the set.

A cursor is opaque to clients: the score and id of the last row of the page,
base64url.  The next page starts below it, so rows created meanwhile do not
shift the pages (an offset does shift them).

Every key is one sorted set, so each lives in one hash slot of a Redis
Cluster; no command here spans two keys.

The sets of a store written before they existed are filled from its summary
hash by :func:`backfill`, a bounded step at a time that resumes where it
stopped (the progress is kept in the store).
"""

from __future__ import annotations

import base64
import binascii
import re
import time
from collections.abc import Callable
from typing import Any

import redis

from events.envelope import loads

MAX_ROUNDS = 6  # reads of a page before it is answered short (rows left out of a filter since they were listed)
_ID = re.compile(r"[A-Za-z0-9_-]{1,100}")


class BadCursor(ValueError):
    """A cursor this service did not hand out."""


def encode_cursor(score: float, member: str) -> str:
    return base64.urlsafe_b64encode(f"{int(score)}:{member}".encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[int, str]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        score, member = raw.split(":", 1)
        if not (score.isdigit() and len(score) <= 16 and _ID.fullmatch(member)):
            raise ValueError(raw)
        return int(score), member
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise BadCursor("cursor: not a cursor of this listing (use the next_cursor of the previous page)") from None


def now_ms() -> int:
    return int(time.time() * 1000)


def _candidates(
    client: redis.Redis, key: str, count: int, offset: int, after: tuple[int, str] | None
) -> tuple[list[tuple[str, int]], int]:
    """Up to ``count`` (id, score) of ``key`` newest first, from ``offset`` or below ``after``; and ZCARD."""
    pipe = client.pipeline(transaction=False)
    if after is None:
        pipe.zrevrange(key, offset, offset + count - 1, withscores=True)
    else:
        score, member = after
        pipe.zrevrangebyscore(key, score, score, start=0, num=1000, withscores=True)  # the same millisecond
        pipe.zrevrangebyscore(key, f"({score}", "-inf", start=0, num=count, withscores=True)
    pipe.zcard(key)
    out = pipe.execute()
    if after is None:
        rows = out[0]
    else:
        # members of one score come in reverse byte order: those below the cursor's id follow it
        rows = [r for r in out[0] if r[0].decode() < after[1]][:count] + out[1]
    return [(m.decode(), int(s)) for m, s in rows[:count]], out[-1]


def _order(row: tuple[str, int]) -> tuple[int, bytes]:
    """A listed row's place, greater first: newest first, one millisecond's rows in reverse byte order."""
    return row[1], row[0].encode()


def _newer(a: tuple[str, int], b: tuple[str, int]) -> bool:
    """Whether listed row ``a`` comes before ``b``."""
    return _order(a) > _order(b)


def _at(client: redis.Redis, key: str, rank: int) -> tuple[str, int] | None:
    got = client.zrevrange(key, rank, rank, withscores=True) if rank >= 0 else []
    return (got[0][0].decode(), int(got[0][1])) if got else None


def _split(client: redis.Redis, first: str, second: str, offset: int) -> tuple[int, int]:
    """How many of the first ``offset`` rows of two sets listed as one come from each: a binary search
    over the second's share, two single-row reads a step (logarithmic, whatever the offset)."""
    sizes = client.pipeline(transaction=False).zcard(first).zcard(second).execute()
    low, high = max(0, offset - sizes[0]), min(offset, sizes[1])
    while low < high:
        j = (low + high) // 2
        i = offset - j
        a_next = _at(client, first, i) if i < sizes[0] else None
        b_last = _at(client, second, j - 1) if j > 0 else None
        if a_next is not None and b_last is not None and _newer(a_next, b_last):
            high = j - 1  # a row of the first comes before the second's last taken: take fewer of the second
            continue
        b_next = _at(client, second, j) if j < sizes[1] else None
        a_last = _at(client, first, i - 1) if i > 0 else None
        if b_next is not None and a_last is not None and _newer(b_next, a_last):
            low = j + 1  # take more of the second
            continue
        return i, j
    return offset - low, low


def _merged_candidates(
    client: redis.Redis, keys: tuple[str, str], count: int, offset: int, after: tuple[int, str] | None
) -> tuple[list[tuple[str, int]], int]:
    """:func:`_candidates` of two sets listed as one (a row in both is listed once)."""
    if after is None and offset:
        i, j = _split(client, keys[0], keys[1], offset)
        first, size_a = _candidates(client, keys[0], count, i, None)
        second, size_b = _candidates(client, keys[1], count, j, None)
    else:
        first, size_a = _candidates(client, keys[0], count, 0, after)
        second, size_b = _candidates(client, keys[1], count, 0, after)
    rows = sorted({*first, *second}, key=_order, reverse=True)
    return rows[:count], size_a + size_b


def _hidden_before(client: redis.Redis, hidden: str, row: tuple[str, int]) -> int:
    """How many members of ``hidden`` come before ``row`` in listing order (one round trip; a
    millisecond's ties read as :func:`_candidates` reads them, at most 1000)."""
    member, score = row
    pipe = client.pipeline(transaction=False)
    pipe.zcount(hidden, f"({score}", "+inf")
    pipe.zrevrangebyscore(hidden, score, score, start=0, num=1000)
    newer, ties = pipe.execute()
    return newer + sum(1 for m in ties if m.decode() > member)


def _visible_rank(client: redis.Redis, key: str, hidden: str, hidden_size: int, offset: int) -> int:
    """The rank in ``key`` of its ``offset``-th row that is not in ``hidden`` (a subset of ``key``, of
    ``hidden_size`` rows): the least rank r with r - (rows of ``hidden`` before r) = offset, by a binary
    search over r (the rows hidden are few; two single reads a step)."""
    low, high = offset, min(offset + hidden_size, client.zcard(key))
    while low < high:
        r = (low + high) // 2
        at = _at(client, key, r)
        if at is None or r - _hidden_before(client, hidden, at) >= offset:
            high = r
        else:
            low = r + 1
    return low


def page(
    client: redis.Redis,
    key: str,
    *,
    limit: int,
    offset: int = 0,
    cursor: str | None = None,
    load: Callable[[list[str], list[int]], list[dict | None]],
    merged: str | None = None,
    hidden: str | None = None,
) -> dict:
    """One page of ``key``: ``{"rows", "total", "next_cursor"}``.

    ``load(ids, scores)`` gives each candidate's row, or None for one that is
    no longer in this listing (its status changed since it was listed there,
    say); those are skipped and the page reads on, at most MAX_ROUNDS times
    (a page cut short still carries the cursor to go on from).  ``merged``: a
    second set listed with ``key`` as one, in the same order (its ids are in no
    other set of ``key``'s listing).  ``hidden``: members of ``key`` this listing passes over
    (``load`` gives them None): an offset counts the rows shown, and ``total`` leaves them out."""
    after = decode_cursor(cursor) if cursor else None
    hidden_size = client.zcard(hidden) if hidden is not None else 0
    if hidden is not None and offset and after is None:
        offset = _visible_rank(client, key, hidden, hidden_size, offset)
    want = limit + 1  # one more row says whether a next page exists
    rows: list[tuple[int, str, dict]] = []
    total = None
    last = None
    exhausted = False
    for _ in range(MAX_ROUNDS):
        count = want - len(rows)
        start = offset if after is None else 0
        if merged is None:
            found, size = _candidates(client, key, count, start, after)
        else:
            found, size = _merged_candidates(client, (key, merged), count, start, after)
        total = size if total is None else total
        loaded = load([m for m, _ in found], [s for _, s in found]) if found else []
        for (member, score), row in zip(found, loaded):
            last = (score, member)
            if row is not None:
                rows.append((score, member, row))
        if len(found) < count:
            exhausted = True
            break
        if len(rows) >= want:
            break
        after = last
    if len(rows) > limit:
        rows = rows[:limit]
        next_cursor = encode_cursor(rows[-1][0], rows[-1][1])
    elif exhausted or last is None:
        next_cursor = None
    else:
        next_cursor = encode_cursor(*last)
    if hidden is not None:
        total = max(0, (total or 0) - hidden_size)
    return {"rows": [r for _, _, r in rows], "total": total or 0, "next_cursor": next_cursor}


def backfill(
    client: redis.Redis, *, ready: str, info: str, every: str, keys_of: Callable[[dict], list[str]], budget: int | None
) -> bool:
    """Put every summary of hash ``info`` into the sorted sets ``keys_of(summary)``,
    scored as in ``every`` (an id missing there is added to it first).  Goes
    through at most ``budget`` summaries (None: all) from where the last call
    stopped; returns True once every one has been (then ``ready`` says so)."""
    state = client.get(ready)
    if state == b"done":
        return True
    position = int(state.decode().split(":", 1)[1]) if state and state.startswith(b"scan:") else 0
    seen = 0
    while True:
        position, chunk = client.hscan(info, position, count=500)
        if chunk:
            ids = [k.decode() for k in chunk]
            pipe = client.pipeline(transaction=False)
            stamp = now_ms()
            for gid in ids:
                pipe.zadd(every, {gid: stamp}, nx=True)
                pipe.zscore(every, gid)
            scores = pipe.execute()[1::2]
            pipe = client.pipeline(transaction=False)
            for gid, raw, score in zip(ids, chunk.values(), scores):
                summary = _summary(raw)
                if summary is None:
                    continue
                for k in keys_of(summary):
                    pipe.zadd(k, {gid: int(score)})
            pipe.execute()
            seen += len(ids)
        if position == 0:
            client.set(ready, "done")
            return True
        if budget is not None and seen >= budget:
            client.set(ready, f"scan:{position}")
            return False


def _summary(raw: Any) -> dict | None:
    try:
        value = loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
