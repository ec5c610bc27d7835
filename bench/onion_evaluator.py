"""Per-hand latency of the Cripple Mr Onion evaluator.

Draws N random ten-card hands from the 104-card deck with a seeded RNG, times
``best_arrangement`` on each with ``time.perf_counter`` and prints p50, p99
and max in milliseconds, plus the machine it ran on.

    /tmp/venvtest/bin/python bench/onion_evaluator.py [--hands 5000] [--seed 1] [--size 10]
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

from domain.onion_hands import DECK_SIZE, best_arrangement  # noqa: E402


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
    print(f"  p50 {percentile(times, 50):.3f} ms   p99 {percentile(times, 99):.3f} ms   "
          f"max {times[-1]:.3f} ms   mean {sum(times) / len(times):.3f} ms")
    print(f"  machine: {platform.platform()}, {platform.machine()}, {os.cpu_count()} cores, "
          f"{platform.python_implementation()} {platform.python_version()}")


if __name__ == "__main__":
    main()
