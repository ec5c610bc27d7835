"""The habits that keep the layout: lint, format and the import contracts of pyproject.toml.

``ruff check``, ``ruff format --check`` and ``lint-imports`` run over the
repository; a broken contract or an unformatted file fails the suite.  The
contracts are shown to be live: a copy of the packages with one forbidden
import added (the core reaching up into the HTTP edge; a cycle between two
core modules) fails them, naming the contract.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
PACKAGES = ("domain", "events", "service", "workers")


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / args[0]), *args[1:]], cwd=cwd, capture_output=True, text=True, timeout=300)


def test_ruff_finds_nothing():
    done = run("ruff", "check", "--no-cache", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_file_is_formatted():
    done = run("ruff", "format", "--no-cache", "--check", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_import_contracts_are_kept():
    done = run("lint-imports", "--no-cache")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "BROKEN" not in done.stdout and "Contracts: 5 kept, 0 broken." in done.stdout, done.stdout


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    for name in PACKAGES:
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__", "viewer"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def _add_import(path: Path, line: str) -> None:
    text = path.read_text()
    head, sep, rest = text.partition("from __future__ import annotations\n")
    path.write_text(head + sep + "\n" + line + "\n" + rest)


def test_the_core_reaching_into_the_http_edge_breaks_the_layers(copy: Path):
    _add_import(copy / "service" / "core" / "moves.py", "import service.web.base  # noqa: F401")
    done = run("lint-imports", "--no-cache", cwd=copy)
    assert done.returncode != 0
    assert "Entry points over the composition root" in done.stdout and "BROKEN" in done.stdout
    assert "service.core.moves -> service.web.base" in done.stdout, done.stdout


def test_a_cycle_between_two_core_modules_breaks_the_acyclic_contract(copy: Path):
    _add_import(copy / "service" / "core" / "errors.py", "import service.core.moves  # noqa: F401")
    done = run("lint-imports", "--no-cache", cwd=copy)
    assert done.returncode != 0
    assert "No cycles are allowed in service.core" in done.stdout, done.stdout


def test_the_domain_reaching_for_the_clock_breaks_its_purity(copy: Path):
    _add_import(copy / "domain" / "dalmuti" / "tricks.py", "import time  # noqa: F401")
    done = run("lint-imports", "--no-cache", cwd=copy)
    assert done.returncode != 0
    assert "domain is not allowed to import time" in done.stdout, done.stdout
