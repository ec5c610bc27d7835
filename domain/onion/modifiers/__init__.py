"""Cripple Mr Onion: the twelve optional modifiers of seed 002 (#0..#11).

When any is switched on ``state["mods"]`` holds the round's modifier state
(``state``) and the Showdown is played as the seed tells it (see
``domain.onion.showdown``).  Declarations are ``declare`` moves; a replacement
card is chosen with ``choose`` and the Archchancellor's forced disclosures are
``reveal``s (``declarations`` says which are open, ``moves`` decides them,
``events`` folds them).  Readings are in docs/rules/onion.md.
"""
