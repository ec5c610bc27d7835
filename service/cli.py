"""The ``naipes`` command: start the whole service, or one part of it."""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

import click

from .access import SCOPES

ROOT = Path(__file__).resolve().parent.parent


def data_dir() -> Path:
    path = Path(os.environ.get("NAIPES_DATA", ROOT / "data"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def integrator_keys(folder: Path) -> list[str]:
    """NAIPES_API_KEYS, or a key made once and kept in the data folder."""
    given = [k.strip() for k in os.environ.get("NAIPES_API_KEYS", "").split(",") if k.strip()]
    if given:
        return given
    key_file = folder / "api_key"
    if not key_file.exists():
        key_file.write_text(f"nk_{secrets.token_urlsafe(24)}\n")
        key_file.chmod(0o600)
    return [key_file.read_text().strip()]


def running_redis_url() -> str:
    """REDIS_URL, or the embedded Redis a running ``naipes start`` wrote down."""
    url = os.environ.get("REDIS_URL")
    if url:
        return url
    note = data_dir() / "redis.url"
    if note.exists():
        return note.read_text().strip()
    raise click.ClickException("no Redis: set REDIS_URL, or run 'naipes start' (its embedded Redis is found "
                               "through the data folder)")


def connect():
    import redis

    return redis.Redis.from_url(running_redis_url())


def application():
    """The application over the running Redis, with the operator's keys."""
    from .application import Naipes

    return Naipes(connect(), api_keys=integrator_keys(data_dir()))


@click.group()
def main() -> None:
    """naipes: an event-sourced card-game service."""


@main.command()
@click.option("--bind", default=lambda: os.environ.get("NAIPES_BIND", "127.0.0.1:8000"), show_default="127.0.0.1:8000")
@click.option("--appendfsync", type=click.Choice(["everysec", "always", "no"]),
              default=lambda: os.environ.get("NAIPES_APPENDFSYNC", "everysec"), show_default="everysec",
              help="Durability of the embedded Redis (always: no acknowledged move is lost on a crash)")
def start(bind: str, appendfsync: str) -> None:
    """Start everything: Redis (embedded unless REDIS_URL is set), the API under gunicorn, an RQ worker."""
    from events.embedded import EmbeddedRedis

    folder = data_dir()
    embedded = None
    redis_url = os.environ.get("REDIS_URL")
    if not redis_url:
        port = int(os.environ.get("NAIPES_REDIS_PORT", "0")) or None
        embedded = EmbeddedRedis(folder / "redis", port=port, appendfsync=appendfsync).start()
        redis_url = embedded.url
        (folder / "redis.url").write_text(redis_url + "\n")
        click.echo(f"embedded Redis at {redis_url} (append-only file in {folder / 'redis'})")
    keys = integrator_keys(folder)
    env = {**os.environ, "REDIS_URL": redis_url, "NAIPES_API_KEYS": ",".join(keys), "NAIPES_BIND": bind}
    if not env.get("PROMETHEUS_MULTIPROC_DIR"):  # /metrics adds up every process of this run
        import shutil

        metrics_dir = folder / "metrics"
        shutil.rmtree(metrics_dir, ignore_errors=True)
        metrics_dir.mkdir()
        env["PROMETHEUS_MULTIPROC_DIR"] = str(metrics_dir)
    children = [
        subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", str(ROOT / "service" / "gunicorn_conf.py"),
                          "service.app:create_app()"], cwd=ROOT, env=env),
        subprocess.Popen([sys.executable, "-m", "workers"], cwd=ROOT, env=env),
    ]
    stopping = False

    def stop(*_):
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    click.echo(f"naipes is serving at http://{bind}")
    click.echo(f"integrator key: {keys[0]}")
    click.echo("Ctrl-C stops everything.")
    try:
        while not stopping:
            for child in children:
                if child.poll() is not None:
                    click.echo(f"a part of naipes stopped (exit {child.returncode}); stopping the rest", err=True)
                    stopping = True
            time.sleep(0.2)
    finally:
        for child in children:
            if child.poll() is None:
                child.terminate()
        for child in children:
            try:
                child.wait(15)
            except subprocess.TimeoutExpired:
                child.kill()
        if embedded:
            embedded.stop()
            (folder / "redis.url").unlink(missing_ok=True)
        click.echo("naipes stopped.")


@main.command()
def worker() -> None:
    """Start one RQ worker with its scheduler (REDIS_URL)."""
    from workers.__main__ import run

    run()


@main.command()
def openapi() -> None:
    """Print the OpenAPI contract the application serves."""
    from .app import create_app, spec_yaml

    click.echo(spec_yaml(create_app(redis_url="redis://127.0.0.1:1/0")), nl=False)


@main.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--quiet", is_flag=True, help="Print nothing; the exit status tells (0 verified, 1 not)")
def verify(file: Path, quiet: bool) -> None:
    """Check an exported game (JSON Lines from GET /games/{id}/export) offline:
    the hash chain, every deal commitment against its reveal, and that
    folding the events gives the recorded outcome.  Names the first broken link."""
    from .verify import verify_export

    lines = file.read_bytes().splitlines()
    with click.progressbar(length=max(0, len(lines) - 1), label="folding events", file=sys.stderr,
                           hidden=quiet) as bar:
        done = [0]

        def progress(n: int) -> None:
            bar.update(n - done[0])
            done[0] = n

        report = verify_export(lines, progress)
    if not quiet:
        chain = report.get("chain") or {}
        header = report.get("header") or {}
        click.echo(f"game {header.get('game_id')} ({header.get('game')}, rules {header.get('rules_version')}): "
                   f"{chain.get('checked', 0)} events chained, {report.get('commitments', 0)} deals committed, "
                   f"{report.get('reveals', 0)} revealed")
        for problem in report["problems"]:
            click.echo(f"FAILED: {problem}")
        if report["ok"]:
            click.echo(f"verified: outcome {report.get('outcome')}")
    sys.exit(0 if report["ok"] else 1)


@main.group()
def keys() -> None:
    """Integrator keys: create, list, revoke (stored hashed in Redis)."""


@keys.command("create")
@click.option("--name", required=True, help="Who the key is for")
@click.option("--scope", "scopes", multiple=True, required=True,
              type=click.Choice(SCOPES), help="Repeat for several scopes")
def keys_create(name: str, scopes: tuple[str, ...]) -> None:
    """Create a key; its secret is printed once and never stored."""
    rec = application().keys.create(name, list(scopes))
    click.echo(f"{rec['id']}  {rec['key']}  scopes: {','.join(rec['scopes'])}")


@keys.command("list")
def keys_list() -> None:
    """List stored keys (never their secrets)."""
    for rec in application().keys.list():
        state = f"revoked {rec['revoked_at']}" if rec.get("revoked_at") else "live"
        click.echo(f"{rec['id']}  {rec['name']}  {','.join(rec['scopes'])}  {state}")


@keys.command("revoke")
@click.argument("key_id")
def keys_revoke(key_id: str) -> None:
    """Revoke a key by its id: refused from then on (within two seconds everywhere)."""
    rec = application().keys.revoke(key_id)
    if rec is None:
        raise click.ClickException(f"there is no key '{key_id}'")
    click.echo(f"{key_id} revoked at {rec['revoked_at']}")


from .cli_ops import register as _register_ops  # noqa: E402 - games list, replay, export

_register_ops(main)


if __name__ == "__main__":
    main()
