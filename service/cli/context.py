"""Where the operator's service is: its data folder (and the lock one process
holds over it), its Redis, its keys and secret, and the application over them.
Shared by every command of the command line."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import click

ROOT = Path(__file__).resolve().parents[2]
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
            + (f", {what}" if what else "")
            + "); stop it first"
            + (f" (Ctrl-C in its terminal, or kill -INT {pid})" if pid else "")
            + ", or give this one another folder with NAIPES_DATA"
        ) from None
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
    raise click.ClickException(
        "no Redis: set REDIS_URL, or run 'naipes start' (its embedded Redis is found through the data folder)"
    )


def connect():
    import redis

    return redis.Redis.from_url(running_redis_url())


def application():
    """The application over the running Redis, with the operator's keys."""
    from service import bootstrap

    return bootstrap.build(
        "command", client=connect(), api_keys=integrator_keys(data_dir()), secret=service_secret(data_dir())
    )


def service_secret(folder: Path) -> str:
    """NAIPES_SECRET, or the secret made once and kept in the data folder.  A NAIPES_SECRET shorter
    than the service takes is refused here, before anything starts."""
    from service.core.house_secret import MIN_LENGTH, ensure_secret_file

    given = os.environ.get("NAIPES_SECRET")
    if given and len(given.encode()) < MIN_LENGTH:
        raise click.ClickException(
            f"NAIPES_SECRET is {len(given.encode())} bytes; the service secret must be at least {MIN_LENGTH} "
            "(unset it to use the one kept in the data folder, or make one: python -c "
            "'import secrets; print(secrets.token_hex(32))')"
        )
    return given or ensure_secret_file(folder)


def deployment_secret(folder: Path) -> str | None:
    """The secret of the deployment over this data folder, made nowhere: NAIPES_SECRET, else the one ``naipes
    start`` keeps in the folder; None when neither is there (a process given none keeps its own in Redis, and a
    command over that Redis then finds the same one)."""
    if os.environ.get("NAIPES_SECRET") or (folder / "secret").exists():
        return service_secret(folder)  # (neither makes one here)
    return None
