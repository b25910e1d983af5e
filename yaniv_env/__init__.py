"""yaniv-env: exact, fast Yaniv environments for reinforcement learning.

The rules core (``cards``, ``rules``, ``actions``, ``engine``) needs only NumPy, and so does
``import yaniv_env``: the PettingZoo and Gymnasium layers are imported on first use of
``env``/``raw_env``. Every game of the package (``yaniv_env.games``) is registered with
Gymnasium and PettingZoo's AEC registry when those libraries are imported (at once if they
already are), so ``gymnasium.make("yaniv_env/Yaniv-v0")`` works after ``import yaniv_env``
in either order.
"""

from __future__ import annotations

from . import games as _games  # registers the package's games
from .core.imports import when_imported
from .yaniv.rules import PRESET_SOURCES, PRESETS, Rules, get_rules

__version__ = "0.1.0"

__all__ = ["PRESETS", "PRESET_SOURCES", "Rules", "get_rules", "env", "raw_env", "__version__"]


def _register_gymnasium(gymnasium) -> None:
    """Register every game's single-agent wrapper with Gymnasium; idempotent."""
    for game in _games.GAMES.values():
        if game.env_id not in gymnasium.registry:
            gymnasium.register(id=game.env_id, entry_point=game.gym_entry_point)


def _register_pettingzoo(_pettingzoo) -> None:
    """Register every game's AEC ``env()`` in PettingZoo's registry; idempotent."""
    from pettingzoo.env_registry.registration import aec_registry, register

    for game in _games.GAMES.values():
        if game.env_id not in aec_registry:
            register("aec", game.env_id, entry_point=f"{game.aec_module}:env")


# Gymnasium has no plugin entry points: register when (or, if already done, as soon as)
# the libraries are imported, so that importing yaniv_env does not import them.
when_imported("gymnasium", _register_gymnasium)
when_imported("pettingzoo", _register_pettingzoo)


def __getattr__(name: str):
    # Keep ``import yaniv_env`` free of RL libraries until the environment is asked for.
    if name in ("env", "raw_env"):
        from .yaniv import aec

        return getattr(aec, name)
    raise AttributeError(f"module 'yaniv_env' has no attribute {name!r}")
