"""Operator commands: list games, print a replay as text, export a game.

They talk to Redis directly, through the same application code as the API:
``REDIS_URL`` when set; else the embedded Redis of a running ``naipes start``
(its address is kept in the data folder while it runs); else the embedded
Redis is started over the data folder for the duration of the command.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path

import click

REDIS_URL_FILE = "redis.url"


@contextlib.contextmanager
def connected_service():
    """A :class:`service.core.naipes.Naipes` over the operator's Redis."""
    import redis

    from events.embedded import EmbeddedRedis
    from service import bootstrap
    from service.cli.context import data_dir, deployment_secret, hold_data_folder

    url = os.environ.get("REDIS_URL")
    embedded = None
    lock = None
    if not url:
        folder = data_dir()
        running = folder / REDIS_URL_FILE
        if running.exists():
            candidate = running.read_text().strip()
            try:
                if redis.Redis.from_url(candidate, socket_connect_timeout=1).ping():
                    url = candidate
            except redis.exceptions.RedisError:
                pass
        if not url:
            if not (folder / "redis").exists():
                raise click.ClickException(f"no naipes data in {folder}: set REDIS_URL or NAIPES_DATA")
            # Redis over the folder for this command alone: refused while another naipes process runs it
            ctx = click.get_current_context(silent=True)
            lock = hold_data_folder(folder, ctx.command_path.partition(" ")[2] if ctx else "command")
            embedded = EmbeddedRedis(folder / "redis").start()
            url = embedded.url
    client = redis.Redis.from_url(url)
    try:
        client.ping()
    except redis.exceptions.RedisError as exc:
        raise click.ClickException(f"cannot reach Redis at {url}: {exc}") from None
    try:
        # the deployment's own secret: an export is sealed with the key GET /seal-key publishes
        secret = deployment_secret(data_dir())
        yield bootstrap.build("command", client=client, api_keys=[], secret=secret, schedule=False)
    finally:
        client.close()
        if embedded:
            embedded.stop()
        if lock is not None:
            os.close(lock)


def _problem(exc) -> click.ClickException:
    return click.ClickException(f"{exc.title}: {exc.detail}")


@click.group("games")
def games() -> None:
    """Games in the store."""


@games.command("list")
@click.option("--game", "game_type", help="Only games of this type (dalmuti, cego, muerte, onion)")
@click.option("--status", type=click.Choice(["active", "finished"]), help="Only active or finished games")
@click.option("--limit", type=click.IntRange(1, 100000), default=50, show_default=True)
@click.option("--cursor", help="Go on after an earlier page (the cursor it printed)")
@click.option("--offset", type=click.IntRange(0), default=0, show_default=True, help="Rows to skip (without --cursor)")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per line instead of a table")
def games_list(
    game_type: str | None, status: str | None, limit: int, cursor: str | None, offset: int, as_json: bool
) -> None:
    """List games, newest first: id, type, status, current version, time of the latest event, players."""
    from service.core.errors import ProblemError

    with connected_service() as svc:
        try:
            listed = svc.listing.list_games(game_type, status, limit, offset, cursor=cursor)
        except ProblemError as exc:
            raise _problem(exc) from None
    if as_json:
        for row in listed["games"]:
            click.echo(json.dumps(row, ensure_ascii=False))
    else:
        click.echo(f"{'id':<18} {'game':<8} {'status':<9} {'version':>7}  {'updated':<24} players")
        for row in listed["games"]:
            click.echo(
                f"{row['id']:<18} {row['game']:<8} {row['status']:<9} {row['version']:>7}  "
                f"{row['updated_at']:<24} {', '.join(row['players'])}"
            )
    more = f"; next page: --cursor {listed['next_cursor']}" if listed.get("next_cursor") else ""
    click.echo(f"{len(listed['games'])} of {listed['total']} games{more}", err=True)


def _viewer(svc, view_as: str):
    from service.core.identity import SPECTATOR_VIEWER, Viewer

    if view_as == "spectator":
        return SPECTATOR_VIEWER
    if view_as == "reviewer":
        return Viewer("integrator", key_id="operator", scopes=frozenset({"review"}))
    return Viewer("seat", seat=int(view_as))


def _as_choice(value: str) -> str:
    if value in ("spectator", "reviewer") or value.isdigit():
        return value
    raise click.BadParameter("a seat number, 'spectator' or 'reviewer'")


def render_text(view: dict) -> str:
    """A game view as plain text: header, seats, table state, result."""
    st = view.get("state") or {}
    players = view["players"]
    n = len(players)
    lines = [
        f"{view['game']} {view['id']}  version {view['version']}  viewer "
        + ("reviewer (full sight)" if view["viewer"].get("full") else view["viewer"]["kind"])
        + (f" (seat {view['viewer']['seat']})" if view["viewer"].get("seat") is not None else ""),
        f"status: {'finished' if view['finished'] else 'to act: ' + ', '.join(players[s] for s in view['to_act'])}",
    ]
    per_seat = {
        k: v
        for k, v in st.items()
        if isinstance(v, list)
        and len(v) == n
        and k not in ("players", "hands", "hand", *_not_by_seat(view["game"]))
        and all(not isinstance(x, dict) for x in v)
    }
    lines.append("seats:")
    for seat, name in enumerate(players):
        mark = "*" if seat in view["to_act"] else " "
        hand = None
        if isinstance(st.get("hands"), list):
            hand = st["hands"][seat]
        elif st.get("seat") == seat and isinstance(st.get("hand"), list):
            hand = st["hand"]
        fields = "  ".join(f"{k}={_short(v[seat])}" for k, v in per_seat.items())
        lines.append(f" {mark}{seat} {name:<12} {fields}")
        if hand is not None:
            lines.append(f"     hand: {' '.join(str(c) for c in hand) or '-'}")
    lines.append("table:")
    for k, v in st.items():
        if (
            k in per_seat
            or k
            in ("players", "hands", "hand", "options", "outcome", "game", "rules_version", "seat", "to_act", "deck")
            or v in (None, [], {})
        ):
            continue
        lines.append(f"  {k}: {_short(v)}")
    if view.get("result"):
        r = view["result"]
        lines.append("result:")
        places = r.get("ranks") or []
        for position, seat in enumerate(r.get("ranking") or range(n), start=1):
            place = places[seat] if seat < len(places) and places[seat] is not None else position
            shared = sum(1 for p in places if p == place) > 1  # a tie: "=2." for each seat sharing it
            score = r["scores"][seat] if r.get("scores") else ""
            win = "  winner" if seat in (r.get("winners") or []) else ""
            lines.append(
                f"  {'=' if shared else ''}{place}. {players[seat]} ({seat}) {score}{win}{'  (tie)' if shared else ''}"
            )
    return "\n".join(lines)


def _not_by_seat(game: str) -> set[str]:
    """The lists of a game's view that are not one value per seat, however long: seats in an order (a turn order,
    the seats still in), cards, and [seat, card] pairs (a trick), from the view's schema."""
    from domain.describe import describe

    try:
        properties = describe(game)["view_schema"].get("properties", {})
    except (KeyError, ValueError):
        return set()
    lists = set()
    for name, spec in properties.items():
        items = spec.get("items") or {}
        seats = items.get("description") == "a seat number"
        cards = items.get("x-naipes-card") and "(index)" not in spec.get("description", "")  # not a card per seat
        pairs = items.get("type") == "array" and str(items.get("description", "")).startswith("[seat, card]")
        if seats or cards or pairs:
            lists.add(name)
    return lists


def _short(v, width: int = 160) -> str:
    s = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, separators=(",", ":"))
    return s if len(s) <= width else s[: width - 1] + "…"


@click.command("replay")
@click.argument("game_id")
@click.option("--version", "version", type=click.IntRange(1), help="The version to show (default: the latest)")
@click.option(
    "--as",
    "view_as",
    default="spectator",
    show_default=True,
    callback=lambda c, p, v: _as_choice(v),
    help="Whose view: a seat number, 'spectator' or 'reviewer' (every card)",
)
@click.option("--json", "as_json", is_flag=True, help="The view JSON as the API serves it")
@click.option(
    "--events",
    "recent",
    type=click.IntRange(0, 1000),
    default=8,
    show_default=True,
    help="How many of the events up to that version to print, in words",
)
@click.option(
    "--lang", type=click.Choice(["en", "es"]), default="en", show_default=True, help="The language of the events' words"
)
def replay(game_id: str, version: int | None, view_as: str, as_json: bool, recent: int, lang: str) -> None:
    """Print a game as it stood at a version, as text, from the viewpoint chosen, with the events
    that led there in words."""
    from service.core.errors import ProblemError

    with connected_service() as svc:
        try:
            head, _ = svc.store.head(game_id)
            viewer = _viewer(svc, view_as)
            view = svc.reads.replay(game_id, viewer, version or head)
            at = view["version"]
            after = max(0, at - recent)
            events = svc.reads.events(game_id, viewer, after, limit=at - after, lang=lang)["events"] if recent else []
        except ProblemError as exc:
            raise _problem(exc) from None
    if as_json:
        click.echo(json.dumps(view, ensure_ascii=False, indent=1))
        return
    if events:  # how the game came to stand where it does, then the game as it stands
        click.echo("events:")
        for env in events:
            click.echo(f"  {env['version']:>5}  {env['label']}")
        click.echo("")
    click.echo(render_text(view))


@click.command("export")
@click.argument("game_id")
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help="Write to this file (default: standard output)",
)
def export(game_id: str, output: Path | None) -> None:
    """Export a game's whole log as JSON Lines (a header, then every event); `naipes verify` checks it."""
    from service.core.errors import ProblemError

    with connected_service() as svc:
        try:
            total, _ = svc.store.head(game_id)
            if total == 0:
                raise ProblemError(404, "Game not found", f"there is no game '{game_id}'", "game-not-found")
            lines = svc.records.export_lines(game_id)
            sink = output.open("wb") if output else sys.stdout.buffer
            try:
                with click.progressbar(
                    length=total, label=f"exporting {game_id}", file=sys.stderr, show_pos=True
                ) as bar:
                    for i, line in enumerate(lines):
                        sink.write(line)
                        if i:  # the first line is the header
                            bar.update(1)
            finally:
                if output:
                    sink.close()
                else:
                    sink.flush()
        except ProblemError as exc:
            raise _problem(exc) from None
    if output:
        click.echo(f"{total} events written to {output}", err=True)


def register(main: click.Group) -> None:
    for command in (games, replay, export):
        if command.name not in main.commands:
            main.add_command(command)
