"""Agents: baselines and loaders for trained policies, behind one registry.

``agents.make(name, seed=..., rules=..., **options)`` builds a registered agent;
``agents.load(path)`` loads a trained model as an agent. Every agent follows
:class:`agents.base.Policy` (``act(observation, action_mask) -> int``) and uses only the
observation and the public helpers of ``yaniv_env`` (``ObservationLayout``,
``action_table``), never engine internals.

The registry is the environment's policy registry (:mod:`yaniv_env.core.policies`):
importing this package registers its agents there, so the Gymnasium wrappers and
``yaniv play`` take these names (``opponents=["heuristic"]``) without importing
``agents`` themselves. The package announces itself to them through the
``yaniv_env.policies`` entry point (``pyproject.toml``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from yaniv_env.core.policies import make_policy, policy_names, register_policy, register_policy_loader

from .base import Policy, RandomAgent

#: The trained agent shipped with the package (MaskablePPO, ``standard`` rules, 2 players,
#: advised by the heuristic: ``agents.advice``); ``agents.make("ppo")`` loads it. How it
#: was trained: README, section Training.
SHIPPED_MODEL = Path(__file__).parent / "models" / "ppo_standard_2p.zip"


def load(path: str, seed: int | None = None, **options) -> Policy:
    """A trained model (a checkpoint written by ``yaniv train``) as an agent."""
    from .trained import load as _load

    return _load(path, seed=seed, **options)


def register(name: str, factory: Callable[..., Policy] | str) -> None:
    """Add an agent factory (or a ``"module:attr"`` string) under ``name``."""
    register_policy(name, factory)


def names() -> list[str]:
    """Every registered agent name, sorted."""
    return policy_names()


def make(name: str, seed: int | None = None, **options) -> Policy:
    """A new agent by name, with its own generator seeded by ``seed``. A name that is a
    path to a saved model (``.zip``) loads it, as :func:`load` does."""
    return make_policy(name, seed=seed, **options)


# name -> factory or "module:factory" (imported on first use, so that `import agents` stays light)
for _name, _factory in {
    "random": RandomAgent,
    "greedy": "agents.greedy:GreedyAgent",
    "heuristic": "agents.heuristic:HeuristicAgent",
    "search": "agents.search:SearchAgent",
    "ppo": lambda seed=None, **options: load(SHIPPED_MODEL, seed=seed, **options),
    "pis_random": "agents.pis_yedili:PisRandomAgent",
    "pis_heuristic": "agents.pis_yedili:PisHeuristicAgent",
}.items():
    register_policy(_name, _factory)
del _name, _factory
register_policy_loader(".zip", load)

__all__ = ["Policy", "RandomAgent", "SHIPPED_MODEL", "make", "load", "names", "register"]
