"""Agents: baselines and loaders for trained policies, behind one registry.

``agents.make(name, seed=..., rules=..., **options)`` builds a registered agent (an unknown
option is a ``TypeError``); ``agents.load(path)`` loads a trained model as an agent (a
``.safetensors`` play file from anyone; a ``.zip`` training checkpoint only with
``trusted=True``, see :mod:`agents.trained`); ``agents.from_sb3(model, rules=...)`` wraps a
model trained with Stable-Baselines3 directly. Every agent follows
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

from yaniv_env.core.policies import (
    make_policy,
    policy_names,
    register_batcher,
    register_policy,
    register_policy_loader,
)

from .base import Policy, RandomAgent

#: The trained agent shipped with the package (MaskablePPO, ``standard`` rules, 2 players,
#: advised by the heuristic: ``agents.advice``), in the play format (``agents.play_format``);
#: ``agents.make("ppo")`` loads it. How it was trained: README, section Training.
SHIPPED_MODEL = Path(__file__).parent / "models" / "ppo_standard_2p.safetensors"

#: File suffixes ``agents.make`` reads as model paths.
MODEL_SUFFIXES = (".safetensors", ".zip")


def load(path: str, seed: int | None = None, **options) -> Policy:
    """A trained model file as an agent (:func:`agents.trained.load`: a ``.safetensors``
    play file, or a ``.zip`` checkpoint with ``trusted=True``)."""
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
    path to a saved model (``.safetensors``, or ``.zip`` with ``trusted=True``) loads it, as
    :func:`load` does."""
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
register_batcher("agents.batched:batched")
for _suffix in MODEL_SUFFIXES:
    register_policy_loader(_suffix, load)
del _suffix


def from_sb3(model, rules="standard", num_players: int | None = None, **options) -> Policy:
    """A ``MaskablePPO`` model trained with Stable-Baselines3 directly as an agent
    (:func:`agents.trained.from_sb3`)."""
    from .trained import from_sb3 as _from_sb3

    return _from_sb3(model, rules=rules, num_players=num_players, **options)


__all__ = ["Policy", "RandomAgent", "SHIPPED_MODEL", "from_sb3", "make", "load", "names", "register"]
