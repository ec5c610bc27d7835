"""The bare push loop as a raw ASGI app: ``bench/bare.py``'s push endpoints on an event loop.

Same protocol and Redis work as ``bench/bare.py``'s push endpoints (and ``bench/bare_wsgi.py``):
``GET /push/<game>/stream?seat=N`` is a seat's event stream, pushed a state when it must act (and every
seat the game's end); ``POST /push/<game>/moves`` reads the turn, refuses a move for another turn (412),
then appends, sets the turn and publishes in one pipeline.  No framework: the ASGI callable itself,
redis.asyncio (hiredis parsing the replies), one subscription per process, started with the process
(the lifespan), handing the pushes to the streams of its seats.  Served by gunicorn with the start
command's configuration but uvicorn's worker (uvloop, httptools):

    gunicorn -c service/web/gunicorn_conf.py -k uvicorn_worker.UvicornWorker bench.bare_asgi:app
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from urllib.parse import parse_qs

import redis.asyncio as aioredis

from bench.bare_push import CHANNELS, MOVES_PER_GAME, SEATS, pushed, state

URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")

_client: list[aioredis.Redis] = []  # the process's client, made on the process's loop (the lifespan)
_streams: dict[tuple[str, int], asyncio.Queue] = {}  # (game, seat) -> its stream's messages, in this process
_listener: list[asyncio.Task] = []


async def _listen(pubsub) -> None:
    """The process's one subscription: every game's pushes, each handed to the stream of its seat here."""
    async for message in pubsub.listen():
        found = pushed(message)
        if found is None:
            continue
        game_id, turn, seats = found
        for seat in seats:
            q = _streams.get((game_id, seat))
            if q is not None:
                q.put_nowait(turn)


async def _start() -> None:
    client = aioredis.Redis.from_url(URL)
    _client.append(client)
    pubsub = client.pubsub()
    await pubsub.psubscribe(CHANNELS)
    # the confirmation read before any stream opens: a push before it would be lost
    while (await pubsub.get_message(timeout=10)) is None:
        pass
    _listener.append(asyncio.create_task(_listen(pubsub)))


async def _stop() -> None:
    for task in _listener:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    for client in _client:
        await client.aclose()


async def _json(send, status: int, body: dict) -> None:
    data = json.dumps(body, separators=(",", ":")).encode() + b"\n"
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})


async def _stream(scope, send, game_id: str) -> None:
    seat = int(parse_qs(scope["query_string"].decode())["seat"][0])
    q = _streams[(game_id, seat)] = asyncio.Queue()
    try:
        turn = int(await _client[0].get(f"bare:{{{game_id}}}:turn") or 0)
        headers = [(b"content-type", b"text/event-stream; charset=utf-8")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        if turn % SEATS == seat or turn >= MOVES_PER_GAME:
            await send({"type": "http.response.body", "body": state(turn), "more_body": True})
        now = turn
        while now < MOVES_PER_GAME:
            async with asyncio.timeout(30):
                now = await q.get()
            await send({"type": "http.response.body", "body": state(now), "more_body": True})
        await send({"type": "http.response.body", "body": b""})
    finally:
        _streams.pop((game_id, seat), None)


async def _move(receive, send, game_id: str) -> None:
    raw = b""
    while True:
        message = await receive()
        raw += message.get("body", b"")
        if not message.get("more_body"):
            break
    body = json.loads(raw)
    client = _client[0]
    turn = int(await client.get(f"bare:{{{game_id}}}:turn") or 0)
    if body.get("turn") != turn:
        return await _json(send, 412, {"error": "not this turn"})
    pipe = client.pipeline(transaction=False)
    pipe.xadd(f"bare:{{{game_id}}}:events", {"e": raw})
    pipe.set(f"bare:{{{game_id}}}:turn", turn + 1)
    pipe.publish(f"bare:push:{game_id}", turn + 1)
    version = (await pipe.execute())[0]
    await _json(send, 201, {"turn": turn + 1, "version": version.decode()})


async def app(scope, receive, send) -> None:
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await _start()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await _stop()
                await send({"type": "lifespan.shutdown.complete"})
                return
    if scope["type"] != "http":
        return
    parts = scope["path"].split("/")  # "", "push", game, "stream" | "moves"
    method = scope["method"]
    if len(parts) == 4 and parts[1] == "push" and parts[2]:
        if parts[3] == "stream" and method == "GET":
            return await _stream(scope, send, parts[2])
        if parts[3] == "moves" and method == "POST":
            return await _move(receive, send, parts[2])
    await _json(send, 404, {"error": "not found"})
