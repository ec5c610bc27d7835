"""The command line: ``naipes start``, ``naipes test``, keys, games, replays, exports.

:mod:`service.cli.context` finds the operator's service (data folder, Redis,
keys); :mod:`service.cli.commands` starts and runs it; :mod:`service.cli.ops`
reads games through the same application code as the API."""

from service.cli.commands import main
from service.cli.ops import register

register(main)

__all__ = ["main"]
