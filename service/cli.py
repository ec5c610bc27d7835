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
        click.echo(f"embedded Redis at {redis_url} (append-only file in {folder / 'redis'})")
    keys = integrator_keys(folder)
    env = {**os.environ, "REDIS_URL": redis_url, "NAIPES_API_KEYS": ",".join(keys), "NAIPES_BIND": bind}
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


if __name__ == "__main__":
    main()
