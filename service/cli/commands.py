"""The ``naipes`` command: start the whole service, or one part of it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import click

from service.cli.context import (
    ROOT,
    application,
    data_dir,
    deployment_secret,
    hold_data_folder,
    integrator_keys,
    note_data_folder,
    service_secret,
)
from service.core.keys import SCOPES


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """naipes: an event-sourced card-game service.

    Run it as ./naipes: the virtual environment is the repository's, and
    every command runs in your current directory (relative paths are
    yours).  Each command has --help.
    """


@main.command()
@click.option(
    "--bind",
    default=lambda: os.environ.get("NAIPES_BIND", "127.0.0.1:8000"),
    show_default="127.0.0.1:8000",
    help="Address and port the API listens on (NAIPES_BIND); 0.0.0.0:PORT for every interface",
)
@click.option(
    "--appendfsync",
    type=click.Choice(["everysec", "always", "no"]),
    default=lambda: os.environ.get("NAIPES_APPENDFSYNC", "everysec"),
    show_default="everysec",
    help="Durability of the embedded Redis (always: no acknowledged move is lost on a crash)",
)
def start(bind: str, appendfsync: str) -> None:
    """Start everything: Redis (embedded unless REDIS_URL is set), the API under gunicorn, an RQ worker.
    One start at a time per data folder: a second one refuses, naming the first."""
    import redis

    from events.embedded import EmbeddedRedis

    folder = data_dir()
    secret = service_secret(folder)  # a secret too short is refused before anything starts
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
            raise click.ClickException(
                f"a Redis left by an earlier start still runs over {folder / 'redis'} at "
                f"{left.read_text().strip()}; shut it down first (redis-cli -u "
                f"{left.read_text().strip()} shutdown)"
            )
    if not redis_url:
        port = int(os.environ.get("NAIPES_REDIS_PORT", "0")) or None
        embedded = EmbeddedRedis(folder / "redis", port=port, appendfsync=appendfsync).start()
        redis_url = embedded.url
        (folder / "redis.url").write_text(redis_url + "\n")
        click.echo(f"embedded Redis at {redis_url} (append-only file in {folder / 'redis'})")
    note_data_folder(lock, "start", api=f"http://{bind}", redis=redis_url if embedded else "external (REDIS_URL)")
    keys = integrator_keys(folder)
    env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "NAIPES_API_KEYS": ",".join(keys),
        "NAIPES_BIND": bind,
        "NAIPES_SECRET": secret,
    }
    if not env.get("PROMETHEUS_MULTIPROC_DIR"):  # /metrics adds up every process of this run
        import shutil

        metrics_dir = folder / "metrics"
        shutil.rmtree(metrics_dir, ignore_errors=True)
        metrics_dir.mkdir()
        env["PROMETHEUS_MULTIPROC_DIR"] = str(metrics_dir)
    children = [
        subprocess.Popen(
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
            process_group=0,
        ),
        subprocess.Popen([sys.executable, "-m", "workers", "timers"], cwd=ROOT, env=env, process_group=0),
        # bots think apart
        subprocess.Popen([sys.executable, "-m", "workers", "bots"], cwd=ROOT, env=env, process_group=0),
    ]
    # (each part in a process group of its own: a terminal's Ctrl-C reaches this process alone, which
    # stops the parts in order with SIGTERM, instead of each part meeting the SIGINT mid-request)
    stopping = False

    def stop(*_):
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGHUP, stop)  # the terminal closed: the parts, in groups of their own, stop too
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


@main.command(
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False}, add_help_option=False
)
@click.argument("pytest_args", nargs=-1, type=click.UNPROCESSED)
def test(pytest_args: tuple[str, ...]) -> None:
    """Run the test suite in the repository (./naipes test installs the test extras first; arguments go
    to pytest)."""
    import importlib.util

    if importlib.util.find_spec("pytest") is None or importlib.util.find_spec("xdist") is None:
        raise click.ClickException("the test extras are not installed: run ./naipes test, which installs them")
    os.chdir(ROOT)
    if any(arg in ("-h", "--help") for arg in pytest_args):
        click.echo(
            "Usage: naipes test [PYTEST ARGS]...\n\n"
            "  Runs the whole suite (tests/) with pytest over NAIPES_TEST_PROCS processes (default 2), on a Redis\n"
            "  server of its own on a free port, with real workers, gunicorn and Chromium.  Arguments go\n"
            "  to pytest: a file or test (tests/test_api.py::test_x), -k EXPR, -n 0 for one process, -x.\n\n"
            "pytest's own options follow.\n"
        )
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
    from service.web.app import create_app, spec_yaml

    click.echo(spec_yaml(create_app(redis_url="redis://127.0.0.1:1/0")), nl=False)


@main.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--quiet", is_flag=True, help="Print nothing; the exit status tells (0 verified, 1 not)")
@click.option(
    "--key",
    "seal_key",
    metavar="PUBLIC_KEY",
    help="Also require the seal of the service whose key this is (`public_key` of its GET /seal-key): a log "
    "anyone rewrote with a fresh chain, results included, fails",
)
@click.option(
    "--sealed",
    is_flag=True,
    help="Also require this deployment's own seal (its key derived from NAIPES_SECRET, or the data folder's secret)",
)
def verify(file: Path, quiet: bool, seal_key: str | None, sealed: bool) -> None:
    """Check an exported game (JSON Lines from GET /games/{id}/export) offline:
    the hash chain, every deal commitment against its reveal, and that
    folding the events gives the recorded outcome.  Names the first broken link.
    A chain proves the log unchanged since it was written, not who wrote it:
    --key (or --sealed) checks the export's seal, the signature of the service
    that wrote it."""
    from service.core.verify import verify_export

    lines = file.read_bytes().splitlines()
    with click.progressbar(length=max(0, len(lines) - 1), label="folding events", file=sys.stderr, hidden=quiet) as bar:
        done = [0]

        def progress(n: int) -> None:
            bar.update(n - done[0])
            done[0] = n

        report = verify_export(lines, progress)
    sealed_by = None
    if (sealed or seal_key) and report["ok"]:
        from service.core.house_secret import HouseSecret
        from service.core.records import seal_holds

        header, chain = report["header"], report.get("chain") or {}
        secret = None if seal_key else deployment_secret(data_dir())
        key = seal_key or (HouseSecret(secret.encode()).public_key if secret else None)
        if key is None:  # a secret made here would be nobody's: no seal could hold
            report["ok"] = False
            report["problems"].append(
                f"--sealed: no service secret here (neither NAIPES_SECRET nor {data_dir() / 'secret'}): set "
                "NAIPES_SECRET or NAIPES_DATA as the service has them, or check with --key and its GET /seal-key"
            )
        elif not seal_holds(key, header.get("seal"), header.get("game_id"), chain.get("checked"), chain.get("head")):
            report["ok"] = False
            report["problems"].append(
                "not sealed by this service: the export's seal is not that key's signature of its game, version "
                "and head hash (written elsewhere, or rewritten)"
            )
        else:
            sealed_by = key
    if not quiet:
        chain = report.get("chain") or {}
        header = report.get("header") or {}
        click.echo(
            f"game {header.get('game_id')} ({header.get('game')}, rules {header.get('rules_version')}): "
            f"{chain.get('checked', 0)} events chained, {report.get('commitments', 0)} deals committed, "
            f"{report.get('reveals', 0)} revealed"
        )
        if sealed_by:
            click.echo(f"sealed by the service whose key is {sealed_by}")
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
@click.option(
    "--scope",
    "scopes",
    multiple=True,
    type=click.Choice(SCOPES),
    help="Required: what the key may do; repeat for several scopes",
)
@click.option(
    "--rate-limit",
    help="The key's own limits per route, replacing NAIPES_RATE_LIMIT (e.g. '1000 per minute')",
)
def keys_create(name: str, scopes: tuple[str, ...], rate_limit: str | None) -> None:
    """Create a key; its secret is printed once and never stored."""
    if not scopes:
        raise click.UsageError(
            f"--scope is required: give one or more of {', '.join(SCOPES)} (e.g. --scope games --scope tournaments)"
        )
    try:
        rec = application().keys.create(name, list(scopes), rate_limit=rate_limit)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--rate-limit") from None
    limit = f"  rate limit: {rec['rate_limit']}" if rec.get("rate_limit") else ""
    click.echo(f"{rec['id']}  {rec['key']}  scopes: {','.join(rec['scopes'])}{limit}")


@keys.command("list")
def keys_list() -> None:
    """List stored keys (never their secrets)."""
    for rec in application().keys.list():
        state = f"revoked {rec['revoked_at']}" if rec.get("revoked_at") else "live"
        limit = f"  rate limit: {rec['rate_limit']}" if rec.get("rate_limit") else ""
        click.echo(f"{rec['id']}  {rec['name']}  {','.join(rec['scopes'])}  {state}{limit}")


@keys.command("limit")
@click.argument("key_id")
@click.argument("limits")
def keys_limit(key_id: str, limits: str) -> None:
    """Give a key its own rate limits per route, replacing NAIPES_RATE_LIMIT for it: LIMITS such as
    '1000 per minute' (several separated by ';'), or 'default' for the service's again.  Takes effect
    within two seconds everywhere."""
    try:
        rec = application().keys.set_limit(key_id, None if limits.strip().lower() == "default" else limits)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="LIMITS") from None
    if rec is None:
        raise click.ClickException(f"there is no key '{key_id}'")
    click.echo(f"{key_id} rate limit: {rec.get('rate_limit') or 'the service default (NAIPES_RATE_LIMIT)'}")


@keys.command("revoke")
@click.argument("key_id")
def keys_revoke(key_id: str) -> None:
    """Revoke a key by its id: refused from then on (within two seconds everywhere)."""
    rec = application().keys.revoke(key_id)
    if rec is None:
        raise click.ClickException(f"there is no key '{key_id}'")
    click.echo(f"{key_id} revoked at {rec['revoked_at']}")
