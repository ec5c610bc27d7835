"""Pieces the games' notations write their published shapes (``VIEW_SCHEMA``, ``EVENT_SCHEMAS``) with."""

from __future__ import annotations


def obj(description: str, properties: dict, optional: tuple[str, ...] = (), nullable: bool = False) -> dict:
    """A JSON Schema object with fixed keys: all of ``properties`` required but ``optional``."""
    return {
        "type": ["object", "null"] if nullable else "object",
        "description": description,
        "properties": properties,
        "required": [k for k in properties if k not in optional],
        "additionalProperties": False,
    }
