"""Ties shown as ties: equal scores share a place, in the API, the command line and the viewer.

A result gets ``ranks`` (per seat, competition ranking: 1, 1, 3) beside its
``ranking``; ``winners`` lists every seat sharing first place.  El Gran
Dalmuti breaks equal points by the final hand's order of going out
(docs/rules/dalmuti.md, "Scoring"), so its places never repeat.  The outcome
folded from a log stays as it was, so logs exported earlier still verify.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from domain import table as tables
from service.cli import main as cli

from .helpers import create

FIXTURES = Path(__file__).parent / "fixtures"
NDJSON = {"Content-Type": "application/x-ndjson"}


def fixture_lines(name: str) -> list[bytes]:
    return (FIXTURES / name).read_bytes().splitlines()


def imported(client, integrator, name: str) -> str:
    """The game of a recorded export, imported into this store (once per store)."""
    lines = fixture_lines(name)
    gid = json.loads(lines[0])["game_id"]
    r = client.post("/games/import", data=b"\n".join(lines), headers={**integrator, **NDJSON})
    assert r.status_code in (201, 409), r.get_json()
    return gid


def test_a_game_that_ends_level_shows_the_tied_seats_at_one_place(client, integrator):
    # Cego, two rounds ending -80, 80, -80, 80: two winners, two seats level behind them
    gid = imported(client, integrator, "cego_rules_v1/gegensolo_then_piccolo.jsonl")
    result = client.get(f"/games/{gid}").get_json()["result"]
    assert result["scores"] == [-80, 80, -80, 80]
    assert result["winners"] == [1, 3]
    assert result["ranks"] == [3, 1, 3, 1]
    # all three level: all first
    gid = imported(client, integrator, "cego_rules_v1/zwei_verschiedene_one_suit_led_twice.jsonl")
    assert client.get(f"/games/{gid}").get_json()["result"]["ranks"] == [1, 1, 1]
    # a replay shows it too, and the export keeps the outcome as folded (it verifies as before)
    version = client.get(f"/games/{gid}").get_json()["version"]
    assert client.get(f"/games/{gid}/replay?version={version}").get_json()["result"]["ranks"] == [1, 1, 1]
    header = json.loads(client.get(f"/games/{gid}/export", headers=integrator).data.splitlines()[0])
    assert "ranks" not in header["outcome"]


def test_an_award_with_equal_scores_ranks_them_equal(client, integrator):
    g = create(client, integrator, game="dalmuti", players=["ana", "bea", "carl", "dani"], options={"hands": 1})
    r = client.post(
        f"/games/{g['id']}/adjudications",
        headers=integrator,
        json={"action": "award", "reason": "a shared first place", "scores": [5, 5, 1, 1]},
    )
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["result"]["ranks"] == [1, 1, 3, 3]
    result = client.get(f"/games/{g['id']}").get_json()["result"]
    assert result["winners"] == [0, 1] and result["ranks"] == [1, 1, 3, 3]


@pytest.mark.parametrize("name", ["greater_revolution.jsonl", "philanthropic_without_scoring.jsonl"])
def test_el_gran_dalmuti_breaks_equal_points_so_places_do_not_repeat(name):
    """docs/rules/dalmuti.md, Scoring: "equal points are ranked by the order of going out in the
    final hand, so there is always exactly one winner"."""
    lines = fixture_lines(f"dalmuti_rules_v1/{name}")
    table = tables.fold(json.loads(line) for line in lines[1:])
    result = tables.outcome(table)
    assert len(set(result["scores"])) < len(result["scores"]), "the fixture has equal points"
    ranks = tables.ranked(table, result)["ranks"]
    assert [ranks[seat] for seat in result["ranking"]] == list(range(1, len(ranks) + 1))
    assert result == json.loads(lines[0])["outcome"]  # the outcome itself is the one recorded


def test_the_command_line_prints_tied_places(client, integrator, redis_url):
    gid = imported(client, integrator, "cego_rules_v1/gegensolo_then_piccolo.jsonl")
    out = CliRunner().invoke(cli, ["replay", gid, "--as", "spectator"], env={"REDIS_URL": redis_url})
    assert out.exit_code == 0, out.output
    result = out.output.split("result:", 1)[1].splitlines()
    placed = [line.split()[0] for line in result if line.strip()]
    assert placed == ["=1.", "=1.", "=3.", "=3."], out.output
    assert sum("winner" in line for line in result) == 2


# The viewer's result table drawn by viewer.js itself (Node, with the few DOM calls it makes stubbed).
VIEWER_HARNESS = r"""
const fs = require("fs"), vm = require("vm");
function el(tag) {
  return { tag, children: [], textContent: "", className: "", title: "", dataset: {},
    classList: { add(c) { this.owner.className += " " + c; } },
    appendChild(c) { this.children.push(c); return c; },
    replaceChildren(...c) { this.children = c; },
    get lastChild() { return this.children[this.children.length - 1]; },
    addEventListener() {}, setAttribute() {} };
}
function make(tag) { const e = el(tag); e.classList.owner = e; return e; }
const ids = {};
const sandbox = {
  location: { pathname: "/replay/g1", search: "" }, sessionStorage: { getItem: () => null, setItem() {} },
  fetch: () => new Promise(() => {}), console, setTimeout, clearTimeout, URLSearchParams,
  AbortController: class { abort() {} },
  document: { getElementById: (id) => (ids[id] = ids[id] || make("div")), createElement: make,
              querySelectorAll: () => [], addEventListener() {} },
  window: { addEventListener() {} },
};
vm.createContext(sandbox);
vm.runInContext(fs.readFileSync(process.argv[2], "utf8") + "\n;globalThis.__render = renderResult;", sandbox);
const view = JSON.parse(process.argv[3]);
sandbox.__render(view);
const table = ids["result-body"].children[0];
console.log(JSON.stringify(table.children.slice(1).map((tr) => tr.children.map((td) => td.textContent))));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="no Node.js to run the viewer's script")
def test_the_viewer_draws_tied_places(tmp_path):
    harness = tmp_path / "harness.js"
    harness.write_text(VIEWER_HARNESS)
    view = {
        "players": ["ana", "bea", "carl", "dani"],
        "finished": True,
        "result": {"scores": [-80, 80, -80, 80], "ranking": [1, 3, 0, 2], "ranks": [3, 1, 3, 1], "winners": [1, 3]},
    }
    viewer_js = Path(__file__).resolve().parent.parent / "service" / "web" / "viewer" / "viewer.js"
    out = subprocess.run(
        ["node", str(harness), str(viewer_js), json.dumps(view)], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout.strip().splitlines()[-1])
    assert rows == [["=1", "bea #1", "80"], ["=1", "dani #3", "80"], ["=3", "ana #0", "-80"], ["=3", "carl #2", "-80"]]
