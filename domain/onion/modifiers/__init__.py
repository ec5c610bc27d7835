"""Cripple Mr Onion: the twelve optional modifiers of seed 002 (#0..#11).

When any is switched on ``state["mods"]`` holds the round's modifier state
(laid out in ``domain.onion.state``, read in ``state``) and the Showdown is
played as the seed tells it (see ``domain.onion.showdown``).  Declarations are
``declare`` moves; a replacement card is chosen with ``choose`` and the
Archchancellor's forced disclosures are ``reveal``s (``declarations`` says
which are open, ``events`` folds them; ``domain.onion.modifier_moves``, above
the Showdown and the legal moves, decides them).  Readings are in
docs/rules/onion.md.

This package sits below ``evolve``: it imports only ``hands`` and ``state``.
"""
