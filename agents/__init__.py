"""Agents: baselines and loaders for trained policies, behind one registry.

``agents.make(name, seed=..., rules=..., **options)`` builds a registered agent;
``agents.load(path)`` loads a trained model as an agent. Every agent follows
:class:`agents.base.Policy` (``act(observation, action_mask) -> int``) and uses only the
observation and the public helpers of ``yaniv_env`` (``ObservationLayout``,
``action_table``), never engine internals.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

from .base import Policy, RandomAgent

#: The trained agent shipped with the package (MaskablePPO, ``standard`` rules, 2 players,
#: advised by the heuristic: ``agents.advice``); ``agents.make("ppo")`` loads it. How it
#: was trained: README, section Training.
SHIPPED_MODEL = Path(__file__).parent / "models" / "ppo_standard_2p.zip"

# name -> "module:factory" (imported on first use, so that `import agents` stays light)
_REGISTRY: dict[str, Callable[..., Policy] | str] = {
    "random": RandomAgent,
    "greedy": "agents.greedy:GreedyAgent",
    "heuristic": "agents.heuristic:HeuristicAgent",
    "search": "agents.search:SearchAgent",
    "ppo": lambda seed=None, **options: load(SHIPPED_MODEL, seed=seed, **options),
    "pis_random": "agents.pis_yedili:PisRandomAgent",
    "pis_heuristic": "agents.pis_yedili:PisHeuristicAgent",
}


def register(name: str, factory: Callable[..., Policy] | str) -> None:
    """Add an agent factory (or a ``"module:attr"`` string) under ``name``."""
    _REGISTRY[name] = factory


def names() -> list[str]:
    return sorted(_REGISTRY)


def _factory(name: str) -> Callable[..., Policy]:
    factory = _REGISTRY[name]
    if isinstance(factory, str):
        module, attr = factory.split(":")
        factory = getattr(importlib.import_module(module), attr)
        _REGISTRY[name] = factory
    return factory


def make(name: str, seed: int | None = None, **options) -> Policy:
    """A new agent by name, with its own generator seeded by ``seed``. A name that is a
    path to a saved model (``.zip``) loads it, as :func:`load` does."""
    if name not in _REGISTRY:
        if name.endswith((".zip", ".safetensors")):
            return load(name, seed=seed, **options)
        raise ValueError(
            f"unknown agent {name!r}; agents: {', '.join(names())} (or a path to a .zip or .safetensors model)"
        )
    return _factory(name)(seed=seed, **options)


def load(path: str, seed: int | None = None, **options) -> Policy:
    """A trained model (a checkpoint written by ``yaniv train``, or a ``.safetensors`` play
    file: :mod:`agents.play_file`) as an agent."""
    if str(path).endswith(".safetensors"):
        from .play_file import load as _load
    else:
        from .trained import load as _load

    return _load(path, seed=seed, **options)


__all__ = ["Policy", "RandomAgent", "SHIPPED_MODEL", "make", "load", "names", "register"]
