"""Agents: baselines and loaders for trained policies, behind one registry.

``agents.make(name, seed=..., rules=..., **options)`` builds a registered agent;
every agent follows :class:`agents.base.Policy` (``act(observation, action_mask) -> int``).
"""

from __future__ import annotations

from collections.abc import Callable

from .base import Policy, RandomAgent

_REGISTRY: dict[str, Callable[..., Policy]] = {"random": RandomAgent}


def register(name: str, factory: Callable[..., Policy]) -> None:
    """Add an agent factory under ``name``."""
    _REGISTRY[name] = factory


def names() -> list[str]:
    return sorted(_REGISTRY)


def make(name: str, seed: int | None = None, **options) -> Policy:
    """A new agent by name, with its own generator seeded by ``seed``."""
    if name not in _REGISTRY:
        raise ValueError(f"unknown agent {name!r}; agents: {', '.join(names())}")
    return _REGISTRY[name](seed=seed, **options)


__all__ = ["Policy", "RandomAgent", "make", "names", "register"]
