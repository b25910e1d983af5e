"""yaniv-env: exact, fast Yaniv environments for reinforcement learning.

The rules core (``cards``, ``rules``, ``actions``, ``engine``) needs only NumPy; the
PettingZoo and Gymnasium layers are imported on first use of ``env``/``raw_env``.
"""

from __future__ import annotations

from . import games as _games  # registers the package's games
from .rules import PRESET_SOURCES, PRESETS, Rules, get_rules

__version__ = "0.1.0"

__all__ = ["PRESETS", "PRESET_SOURCES", "Rules", "get_rules", "env", "raw_env", "__version__"]


def _register() -> None:
    """Register every game's environments with Gymnasium (the single-agent wrapper) and
    PettingZoo's AEC registry (``env()``); idempotent."""
    import gymnasium
    from pettingzoo.env_registry.registration import aec_registry, register

    for game in _games.GAMES.values():
        if game.env_id not in gymnasium.registry:
            gymnasium.register(id=game.env_id, entry_point=game.gym_entry_point)
        if game.env_id not in aec_registry:
            register("aec", game.env_id, entry_point=f"{game.aec_module}:env")


_register()


def __getattr__(name: str):
    # Keep ``import yaniv_env`` free of RL libraries until the environment is asked for.
    if name in ("env", "raw_env"):
        from . import yaniv_aec

        return getattr(yaniv_aec, name)
    raise AttributeError(f"module 'yaniv_env' has no attribute {name!r}")
