"""Pis Yedili ("Dirty Seven"), the Turkish Crazy Eights: rules core and environments.

``rules`` (one frozen :class:`Rules` and :data:`PRESETS`), ``actions`` (the action ids),
``engine`` (the state and the functions that play it), ``observation`` and ``rewards`` need
only NumPy: the same module names as Yaniv's package, :mod:`yaniv_env.yaniv`. Cards are the
shared kinds of :mod:`yaniv_env.core.cards` (kind = suit * 13 + rank, no jokers).

The PettingZoo environment (``env``, ``raw_env``: :mod:`yaniv_env.pis_yedili.aec`) and
the Gymnasium wrapper (:mod:`yaniv_env.pis_yedili.gym_env`) are imported on first use;
both are registered as ``yaniv_env/PisYedili-v0`` (``yaniv_env.games`` describes the game).
"""

from __future__ import annotations

from .rules import PRESET_SOURCES, PRESETS, Rules, get_rules

__all__ = ["PRESETS", "PRESET_SOURCES", "Rules", "get_rules", "env", "raw_env"]

ENV_ID = "yaniv_env/PisYedili-v0"


def __getattr__(name: str):
    # Keep the rules core free of RL libraries until the environment is asked for.
    if name in ("env", "raw_env"):
        from . import aec

        return getattr(aec, name)
    raise AttributeError(f"module 'yaniv_env.pis_yedili' has no attribute {name!r}")
