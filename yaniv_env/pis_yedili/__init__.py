"""Pis Yedili ("Dirty Seven"), the Turkish Crazy Eights: rules core.

``rules`` (one frozen :class:`Rules` and :data:`PRESETS`), ``actions`` (the action ids)
and ``engine`` (the state and the functions that play it) need only NumPy. Cards are the
shared kinds of :mod:`yaniv_env.cards` (kind = suit * 13 + rank, no jokers).
"""

from __future__ import annotations

from .rules import PRESET_SOURCES, PRESETS, Rules, get_rules

__all__ = ["PRESETS", "PRESET_SOURCES", "Rules", "get_rules"]
