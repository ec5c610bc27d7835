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
LOCK_FILE = "lock"  # held by the process that runs Redis over the data folder; says who that is


def data_dir() -> Path:
    path = Path(os.environ.get("NAIPES_DATA", ROOT / "data")).resolve()  # relative: to the caller's directory
    path.mkdir(parents=True, exist_ok=True)
    return path


def hold_data_folder(folder: Path, command: str, **about: str) -> int:
    """Take the data folder's lock for the rest of this process's life (the descriptor returned), or refuse
    at once naming the naipes process holding it.  One process at a time runs Redis over a data folder."""
    import fcntl
    import json

    fd = os.open(folder / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        try:
            holder = json.loads(os.pread(fd, 4096, 0) or b"{}")
        except ValueError:
            holder = {}
        os.close(fd)
        what = ", ".join(f"{k} {v}" for k, v in holder.items() if k not in ("command", "pid") and v)
        pid = holder.get("pid")
        raise click.ClickException(
            f"the data folder {folder} is in use by 'naipes {holder.get('command', '?')}' (pid {pid or '?'}"
            + (f", {what}" if what else "") + "); stop it first"
            + (f" (Ctrl-C in its terminal, or kill -INT {pid})" if pid else "")
            + ", or give this one another folder with NAIPES_DATA") from None
    note_data_folder(fd, command, **about)
    return fd


def note_data_folder(fd: int, command: str, **about: str) -> None:
    """Write who holds the lock (pid, command, addresses) into the lock file, for a refused second start."""
    import json

    text = json.dumps({"pid": os.getpid(), "command": command, **about}).encode() + b"\n"
    os.ftruncate(fd, 0)
    os.pwrite(fd, text, 0)


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

    return Naipes(connect(), api_keys=integrator_keys(data_dir()), secret=service_secret(data_dir()))


def service_secret(folder: Path) -> str:
    """NAIPES_SECRET, or the secret made once and kept in the data folder."""
    from .house_secret import ensure_secret_file

    return os.environ.get("NAIPES_SECRET") or ensure_secret_file(folder)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """naipes: an event-sourced card-game service.

    Run it as ./naipes: the virtual environment is the repository's, and
    every command runs in your current directory (relative paths are
    yours).  Each command has --help.
    """


@main.command()
@click.option("--bind", default=lambda: os.environ.get("NAIPES_BIND", "127.0.0.1:8000"), show_default="127.0.0.1:8000")
@click.option("--appendfsync", type=click.Choice(["everysec", "always", "no"]),
              default=lambda: os.environ.get("NAIPES_APPENDFSYNC", "everysec"), show_default="everysec",
              help="Durability of the embedded Redis (always: no acknowledged move is lost on a crash)")
def start(bind: str, appendfsync: str) -> None:
    """Start everything: Redis (embedded unless REDIS_URL is set), the API under gunicorn, an RQ worker.
    One start at a time per data folder: a second one refuses, naming the first."""
    import redis

    from events.embedded import EmbeddedRedis

    folder = data_dir()
    lock = hold_data_folder(folder, "start", api=f"http://{bind}")
    embedded = None
    redis_url = os.environ.get("REDIS_URL")
    left = folder / "redis.url"
    if not redis_url and left.exists():  # a start killed without its cleanup may have left its Redis running
        try:
            alive = redis.Redis.from_url(left.read_text().strip(), socket_connect_timeout=1).ping()
        except (redis.exceptions.RedisError, ValueError):
            alive = False
        if alive:
            raise click.ClickException(f"a Redis left by an earlier start still runs over {folder / 'redis'} at "
                                       f"{left.read_text().strip()}; shut it down first (redis-cli -u "
                                       f"{left.read_text().strip()} shutdown)")
    if not redis_url:
        port = int(os.environ.get("NAIPES_REDIS_PORT", "0")) or None
        embedded = EmbeddedRedis(folder / "redis", port=port, appendfsync=appendfsync).start()
        redis_url = embedded.url
        (folder / "redis.url").write_text(redis_url + "\n")
        click.echo(f"embedded Redis at {redis_url} (append-only file in {folder / 'redis'})")
    note_data_folder(lock, "start", api=f"http://{bind}", redis=redis_url if embedded else "external (REDIS_URL)")
    keys = integrator_keys(folder)
    env = {**os.environ, "REDIS_URL": redis_url, "NAIPES_API_KEYS": ",".join(keys), "NAIPES_BIND": bind,
           "NAIPES_SECRET": service_secret(folder)}
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
        os.ftruncate(lock, 0)
        os.close(lock)
        click.echo("naipes stopped.")


@main.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
              add_help_option=False)
@click.argument("pytest_args", nargs=-1, type=click.UNPROCESSED)
def test(pytest_args: tuple[str, ...]) -> None:
    """Run the test suite in the repository (./naipes test installs the test extras first; arguments go
    to pytest)."""
    import importlib.util

    if importlib.util.find_spec("pytest") is None or importlib.util.find_spec("xdist") is None:
        raise click.ClickException("the test extras are not installed: run ./naipes test, which installs them")
    os.chdir(ROOT)
    argv = [sys.executable, "-m", "pytest", "-n", os.environ.get("NAIPES_TEST_PROCS", "2"), *pytest_args]
    os.execv(sys.executable, argv)


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
            import json

            click.echo(f"verified: outcome {json.dumps(report.get('outcome'), ensure_ascii=False)}")
    sys.exit(0 if report["ok"] else 1)


@main.group()
def keys() -> None:
    """Integrator keys: create, list, revoke (stored hashed in Redis)."""


@keys.command("create")
@click.option("--name", required=True, help="Who the key is for")
@click.option("--scope", "scopes", multiple=True,
              type=click.Choice(SCOPES), help="Required: what the key may do; repeat for several scopes")
def keys_create(name: str, scopes: tuple[str, ...]) -> None:
    """Create a key; its secret is printed once and never stored."""
    if not scopes:
        raise click.UsageError(f"--scope is required: give one or more of {', '.join(SCOPES)} "
                               "(e.g. --scope games --scope tournaments)")
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
