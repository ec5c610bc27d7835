"""A longer Schemathesis run against the live app (same checks as tests/test_schemathesis.py).

    .venv/bin/python bench/schemathesis_long.py [--examples 200]

Prints, per operation and mode, the cases sent and the failures found, then the totals.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import redis  # noqa: E402
from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis.errors import Unsatisfiable  # noqa: E402
from schemathesis.generation.modes import GenerationMode  # noqa: E402
from schemathesis.specs.openapi.checks import positive_data_acceptance  # noqa: E402

from events.embedded import EmbeddedRedis  # noqa: E402
from service.core.naipes import Naipes  # noqa: E402
from service.core.timers import attach_scheduler  # noqa: E402
from service.web.app import create_app  # noqa: E402
from tests import test_schemathesis as st  # noqa: E402
from tests.conftest import API_KEY  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--examples", type=int, default=200)
    args = ap.parse_args()
    cases = failures = 0
    with tempfile.TemporaryDirectory() as tmp, EmbeddedRedis(tmp) as server:
        service = Naipes(redis.Redis.from_url(server.url), api_keys=[API_KEY])
        attach_scheduler(service)
        app = create_app(service, rate_limit="off")
        for param in st.operations():
            label, mode = param.values
            games = st.make_games(service)
            operation = st.load_contract(app).find_operation_by_label(label)
            sent, failed = [0], []

            @given(case=operation.as_strategy(generation_mode=mode))
            @settings(
                max_examples=args.examples,
                deadline=None,
                database=None,
                phases=[Phase.explicit, Phase.generate],
                suppress_health_check=list(HealthCheck),
            )
            def run(case):
                import random

                rng = random.Random(repr((label, case.path_parameters, case.query, case.body)))
                auth = st._prepare(case, service, games, rng, mode is GenerationMode.POSITIVE)
                sent[0] += 1
                try:
                    case.call_and_validate(
                        headers=auth, additional_checks=[st.problem_json], excluded_checks=[positive_data_acceptance]
                    )
                except Exception as exc:  # noqa: BLE001 - counted and shown, the run goes on
                    failed.append(f"{type(exc).__name__}: {str(exc)[:300]}")

            try:
                run()
            except Unsatisfiable:
                pass
            cases += sent[0]
            failures += len(failed)
            print(f"{label:55s} {mode.value:8s} cases {sent[0]:5d}  failures {len(failed)}", flush=True)
            for f in failed[:3]:
                print("    " + f.replace("\n", " ")[:300])
    print(f"schemathesis cases: {cases}  failures: {failures}")


if __name__ == "__main__":
    main()
