"""The README's examples run as written against a live service, and what it states holds.

Convention for README.md's fenced blocks:

* every block whose info string starts with ``sh`` or ``python`` runs, in the
  README's order, in one bash session (shell variables carry from one block
  to the next; a Python block runs as a script with the session's exported
  variables);
* a block whose info string also carries ``no-run`` (```` ```sh no-run ````) is
  shown to the reader and not run: the commands that start the service or
  run the tests, and the reader's own settings of ``API`` and ``KEY``, which
  this test makes itself (the address of its server and its integrator key);
* any other info string on a ``sh``/``python`` block fails the test, so a new
  block is either run or marked.

The session runs in a folder laid out like the repository as the README
expects: ``./naipes`` (the command line of this virtual environment, as the
wrapper runs it once installed), ``openapi.yaml``, and ``data/`` with the
integrator key and the Redis address a running ``./naipes start`` keeps
there.  The service is real: gunicorn and an RQ worker over the tests' Redis.
Every ``curl`` fails the example on a 4xx or 5xx answer (``--fail-with-body``);
``jq`` is needed (``./naipes test`` installs it as root), else the examples
are skipped, saying so.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid

import pytest
import requests

from domain import registry
from events.embedded import free_port

from .conftest import API_KEY, ROOT
from .test_timers import kill_group, start_worker

README = ROOT / "README.md"
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.S | re.M)


def readme_blocks() -> list[dict]:
    """The README's fenced sh and python blocks: language, whether they run, line, text."""
    text = README.read_text()
    found = []
    for m in FENCE.finditer(text):
        info = m.group(1).split()
        if not info or info[0] not in ("sh", "python"):
            continue
        flags = info[1:]
        assert set(flags) <= {"no-run"}, f"README line {text.count(chr(10), 0, m.start()) + 1}: unknown {flags}"
        found.append(
            {
                "lang": info[0],
                "run": "no-run" not in flags,
                "body": m.group(2),
                "line": text.count("\n", 0, m.start()) + 1,
            }
        )
    return found


@pytest.fixture(scope="module")
def live_service(redis_url, tmp_path_factory):
    """gunicorn (logging at info, into a file) and an RQ worker over the tests' Redis."""
    log_path = tmp_path_factory.mktemp("readme-log") / "gunicorn.log"
    port = free_port()
    env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "NAIPES_API_KEYS": API_KEY,
        "NAIPES_BIND": f"127.0.0.1:{port}",
        "PYTHONPATH": str(ROOT),
        "NAIPES_WEB_WORKERS": "2",
        "NAIPES_RATE_LIMIT": "off",
        "NAIPES_LOG_LEVEL": "info",
    }
    env.pop("NAIPES_ACCESS_LOG", None)
    with open(log_path, "w") as log:
        web = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "-c",
                str(ROOT / "service" / "web" / "gunicorn_conf.py"),
                "service.web.app:create_app()",
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=log,
            start_new_session=True,
        )
    worker = start_worker(redis_url)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if requests.get(base + "/health", timeout=1).status_code == 200:
                    break
            except requests.RequestException:
                pass
            assert web.poll() is None and time.monotonic() < deadline, log_path.read_text()[-3000:]
            time.sleep(0.1)
        yield {"url": base, "log": log_path, "redis_url": redis_url}
    finally:
        kill_group(worker)
        web.terminate()
        web.wait(20)


def test_every_block_of_the_readme_runs_or_is_marked_not_to():
    blocks = readme_blocks()
    run = [b for b in blocks if b["run"]]
    assert {b["lang"] for b in run} == {"sh", "python"}
    for b in blocks:
        if not b["run"]:  # what a not-run block may hold: starting or testing, or setting API and KEY
            assert re.search(r"\./naipes (start|test)|^gunicorn|^export API=", b["body"], re.M), b


def test_the_readme_examples_run_as_written(live_service, tmp_path):
    missing = [tool for tool in ("jq", "curl") if shutil.which(tool) is None]
    if missing:
        pytest.skip(
            f"{' and '.join(missing)} missing (./naipes test installs Debian's jq as root): the README's "
            "shell examples need curl and jq"
        )
    work = tmp_path / "repo"
    (work / "data").mkdir(parents=True)
    (work / "data" / "api_key").write_text(API_KEY + "\n")
    (work / "data" / "redis.url").write_text(live_service["redis_url"] + "\n")  # as a running start keeps it
    (work / "openapi.yaml").symlink_to(ROOT / "openapi.yaml")
    stand_in = work / "naipes"
    stand_in.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m service.cli "$@"\n')
    stand_in.chmod(0o755)

    script = [
        "set -euo pipefail",
        'curl() { command curl --fail-with-body --max-time 60 "$@"; }  # a 4xx or 5xx answer fails',
    ]
    for i, b in enumerate(readme_blocks()):
        if not b["run"]:
            continue
        script.append(f"echo '>>> README block at line {b['line']}' >&2")
        if b["lang"] == "sh":
            script.append(b["body"])
        else:
            (work / f"readme_block_{i}.py").write_text(b["body"])
            script.append(f'"$NAIPES_TEST_PYTHON" readme_block_{i}.py')
    script.append('echo "::GAME=$GAME"')
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NAIPES_", "REDIS_URL"))}
    env.update(
        API=live_service["url"],
        KEY=API_KEY,
        NAIPES_DATA=str(work / "data"),
        PYTHONPATH=str(ROOT),
        NAIPES_TEST_PYTHON=sys.executable,
        PATH=os.pathsep.join([str(os.path.dirname(sys.executable)), env.get("PATH", "")]),
    )
    proc = subprocess.Popen(
        ["bash", "-c", "\n".join(script)],
        cwd=work,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=400)
    finally:  # nothing a block started outlives the test
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
    assert proc.returncode == 0, out[-6000:]

    # what the examples claim they did
    game = re.search(r"^::GAME=(\S+)$", out, re.M).group(1)
    view = requests.get(f"{live_service['url']}/games/{game}", timeout=10).json()
    assert view["game"] == "cego" and view["finished"], view  # the complete game in a few lines of shell
    verified = re.search(r"^verified: outcome (.*)$", out, re.M)
    assert verified, out[-3000:]
    assert isinstance(json.loads(verified.group(1)), dict)  # the outcome, as JSON
    assert (work / "game.jsonl").exists() and (work / "naipes_client").is_dir()
    parts = re.split(r"^>>> README block at line (\d+)$", out, flags=re.M)
    printed = dict(zip(map(int, parts[1::2]), parts[2::2]))  # each block's output, by its README line
    for b in readme_blocks():
        if b["lang"] == "python":  # the generated client played its game to the end and printed the result
            assert "'winners'" in printed[b["line"]], printed[b["line"]]


def test_what_the_readme_states_holds(live_service):
    text = README.read_text()
    # the rules version of every game, as the registry has it
    for game, module in registry.all_games().items():
        assert f"(`{game}`, rules {module.RULES_VERSION}" in text, game
    # Cripple Mr Onion's modifiers are options of the game
    types = {t["id"]: t for t in requests.get(f"{live_service['url']}/game-types", timeout=10).json()}
    assert "crippling" in json.dumps(types["onion"]) and "not in yet" not in text
    # at NAIPES_LOG_LEVEL=info gunicorn's access log has a line per request
    assert "`NAIPES_LOG_LEVEL` is `info`" in text
    probe = uuid.uuid4().hex
    for _ in range(3):
        requests.get(f"{live_service['url']}/health", params={"probe": probe}, timeout=10)
    deadline = time.monotonic() + 5
    while live_service["log"].read_text().count(probe) < 3 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert live_service["log"].read_text().count(probe) == 3
