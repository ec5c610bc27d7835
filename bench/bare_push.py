"""What the bare push floors share (``bench/bare.py``, ``bench/bare_wsgi.py``, ``bench/bare_asgi.py``): a
table of five seats playing a game of fixed length, a state pushed to the seat to act (and to every seat at
the end), and, for the two on gevent, the process's one subscription handing every game's pushes to the
streams of its seats.  No framework here: the floor without Flask imports none."""

from __future__ import annotations

import json
import queue
import threading

SEATS = 5
MOVES_PER_GAME = 170  # about a one-hand Dalmuti game's moves
CHANNELS = "bare:push:*"


def state(turn: int) -> bytes:
    """A seat's state message on its stream."""
    return b"event: state\ndata: " + json.dumps({"turn": turn, "finished": turn >= MOVES_PER_GAME}).encode() + b"\n\n"


def pushed(message: dict) -> tuple[str, int, range | tuple[int]] | None:
    """A push as the subscription hands it over: its game, its turn and the seats to tell (None for the
    subscription's other messages)."""
    if message["type"] != "pmessage":
        return None
    game_id = message["channel"].decode().removeprefix("bare:push:")
    turn = int(message["data"])
    return game_id, turn, range(SEATS) if turn >= MOVES_PER_GAME else (turn % SEATS,)


class Feed:
    """One subscription per process (started by the first stream), handing each push to the queue of the
    seat's stream in this process."""

    def __init__(self, client) -> None:
        self.client = client
        self.streams: dict[tuple[str, int], queue.Queue] = {}
        self._started = False
        self._starting = threading.Lock()
        self._subscribed = threading.Event()  # set once Redis confirmed it: a push before it would be lost

    def _listen(self) -> None:
        pubsub = self.client.pubsub()
        pubsub.psubscribe(CHANNELS)
        for message in pubsub.listen():
            if message["type"] == "psubscribe":
                self._subscribed.set()
            found = pushed(message)
            if found is None:
                continue
            game_id, turn, seats = found
            for seat in seats:
                q = self.streams.get((game_id, seat))
                if q is not None:
                    q.put(turn)

    def open(self, game_id: str, seat: int):
        """A seat's stream: its messages, from the state of the turn it opens at (sent if the seat is to
        act) to the game's end.  The turn is read once the subscription holds (the first streams of a
        process opened before it did missed the pushes in between, and their game stalled)."""
        with self._starting:
            if not self._started:
                self._started = True
                threading.Thread(target=self._listen, daemon=True).start()
        self._subscribed.wait(10)
        q = self.streams[(game_id, seat)] = queue.Queue()
        turn = int(self.client.get(f"bare:{{{game_id}}}:turn") or 0)

        def events():
            try:
                if turn % SEATS == seat or turn >= MOVES_PER_GAME:
                    yield state(turn)
                while True:
                    now = q.get(timeout=30)
                    yield state(now)
                    if now >= MOVES_PER_GAME:
                        return
            finally:
                self.streams.pop((game_id, seat), None)

        return events()
