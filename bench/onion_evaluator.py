"""Per-hand latency of the Cripple Mr Onion evaluator.

Draws N random ten-card hands from the 104-card deck with a seeded RNG, times
``best_arrangement`` on each with ``time.perf_counter`` and prints p50, p99
and max in milliseconds, plus the machine it ran on.  A second run times
``evaluate`` with all twelve modifiers on: each hand is valued in one of the
situations a table with every modifier can put it in (eights wild or not, the
Lady, Death, the Sender, the Archchancellor, the Fool, crippling, and Great
A'Tuin's shift when the hand holds the queen of coins), cycling through them.

    .venv/bin/python bench/onion_evaluator.py [--hands 5000] [--seed 1] [--size 10]
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from domain.onion.hands import ATUIN, DECK_SIZE, best_arrangement, evaluate, rank_of  # noqa: E402

# what "all modifiers on" can mean for one hand (see domain/onion/modifiers/state.py _ctx)
SITUATIONS = (
    {"null": True, "arch": True, "crippling": True},
    {"null": True, "sender": True, "death": [2], "arch": True, "crippling": True, "fool": True},
    {"wild": True, "octavo": True, "lady": True, "death": [2, 3], "arch": True, "crippling": True},
    {
        "wild": True,
        "octavo": True,
        "lady": True,
        "death": [2, 3],
        "arch": True,
        "jack_wild": True,
        "crippling": True,
        "fool": True,
    },
    {
        "wild": True,
        "wild_limited": True,
        "zero_aces": True,
        "octavo": True,
        "death": [2, 3],
        "arch": True,
        "crippling": True,
    },
    {"null": True, "zero_aces": True, "sender": True, "death": [2], "arch": True, "crippling": True},
)


def with_shift(hand: list[int], mods: dict) -> dict:
    """The modifiers in force for ``hand``, with Great A'Tuin declared when the
    hand holds her: eight points move from a high card to a low one."""
    ctx = dict(mods)
    if ATUIN in hand:
        hi = [c for c in hand if rank_of(c) in (9, 10, 11, 12, 13) and c != ATUIN]
        lo = [c for c in hand if rank_of(c) in (2, 3)]
        if hi and lo:
            ctx["shift"] = [hi[0], lo[0]]
    return ctx


def percentile(sorted_xs: list[float], q: float) -> float:
    """Nearest-rank percentile of an ascending list."""
    if not sorted_xs:
        return float("nan")
    k = max(0, min(len(sorted_xs) - 1, int(round(q / 100 * len(sorted_xs) + 0.5)) - 1))
    return sorted_xs[k]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--size", type=int, default=10)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    deck = list(range(DECK_SIZE))
    hands = [rng.sample(deck, args.size) for _ in range(args.hands)]
    best_arrangement(hands[0])  # warm-up (imports, first-call costs)
    times: list[float] = []
    clock = time.perf_counter
    for hand in hands:
        t0 = clock()
        best_arrangement(hand)
        times.append((clock() - t0) * 1000.0)
    times.sort()
    print(f"onion evaluator: {args.hands} hands of {args.size} cards, seed {args.seed}")
    print(
        f"  p50 {percentile(times, 50):.3f} ms   p99 {percentile(times, 99):.3f} ms   "
        f"max {times[-1]:.3f} ms   mean {sum(times) / len(times):.3f} ms"
    )
    mod_times: list[float] = []
    for i, hand in enumerate(hands):
        ctx = with_shift(hand, SITUATIONS[i % len(SITUATIONS)])
        t0 = clock()
        evaluate(hand, ctx)
        mod_times.append((clock() - t0) * 1000.0)
    mod_times.sort()
    print(f"onion evaluator, all modifiers on: {args.hands} hands of {args.size} cards, {len(SITUATIONS)} situations")
    print(
        f"  p50 {percentile(mod_times, 50):.3f} ms   p99 {percentile(mod_times, 99):.3f} ms   "
        f"max {mod_times[-1]:.3f} ms   mean {sum(mod_times) / len(mod_times):.3f} ms"
    )
    print(
        f"  machine: {platform.platform()}, {platform.machine()}, {os.cpu_count()} cores, "
        f"{platform.python_implementation()} {platform.python_version()}"
    )


if __name__ == "__main__":
    main()
