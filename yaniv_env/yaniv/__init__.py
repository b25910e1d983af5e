"""Yaniv, the game: rules core and environments.

``cards``, ``rules`` (one frozen :class:`Rules` and :data:`PRESETS`), ``actions`` (the
action ids), ``engine`` (the state and the functions that play it), ``observation`` and
``rewards`` need only NumPy. The PettingZoo environment (``env``, ``raw_env``:
:mod:`yaniv_env.yaniv.aec`) and the Gymnasium wrapper (:mod:`yaniv_env.yaniv.gym_env`)
are imported on first use; both are registered as ``yaniv_env/Yaniv-v0``
(``yaniv_env.games`` describes the game). ``batched`` is Yaniv's batched engine and vector
environments (Numba); the modules above never import it.
"""

from __future__ import annotations

from .rules import PRESET_SOURCES, PRESETS, Rules, get_rules

__all__ = ["PRESETS", "PRESET_SOURCES", "Rules", "get_rules", "env", "raw_env"]


def __getattr__(name: str):
    # Keep the rules core free of RL libraries until the environment is asked for.
    if name in ("env", "raw_env"):
        from . import aec

        return getattr(aec, name)
    raise AttributeError(f"module 'yaniv_env.yaniv' has no attribute {name!r}")
