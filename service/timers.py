"""Turn deadlines: schedule an RQ job for every seat that comes to act."""

from __future__ import annotations

from .application import Naipes


def attach_scheduler(service: Naipes) -> None:
    """Timed turns are added in the timed-turns work; untimed games need nothing."""
    service.scheduler = None
