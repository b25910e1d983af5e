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

#: The trained agents shipped with the package, by (preset, players): play files
#: (``agents.play_format``) in ``agents/models/``. ``agents.make("ppo", rules=...,
#: num_players=...)`` loads the one for those rules. Each is a MaskablePPO policy advised
#: by ``score_heuristic``, but ``two_deck``'s, advised by ``tuned_two_deck``; how each was
#: trained and what it measured: its model card, ``docs/agents/<file name>.md``.
SHIPPED_MODELS: dict[tuple[str, int], str] = {
    ("standard", 2): "ppo_standard_2p.safetensors",
    ("standard", 3): "ppo_standard_3p.safetensors",
    ("standard", 4): "ppo_standard_4p.safetensors",
    ("seven", 2): "ppo_seven_2p.safetensors",
    ("french", 2): "ppo_french_2p.safetensors",
    ("two_deck", 2): "ppo_two_deck_2p.safetensors",
}

#: The default shipped agent (``standard``, 2 players): ``agents.make("ppo")``.
SHIPPED_MODEL = Path(__file__).parent / "models" / SHIPPED_MODELS[("standard", 2)]

#: The shipped models learnt from scratch, by (preset, players): the lean PPO in self-play, no
#: advisor and no imitation (their metadata says so); the ladder seats them beside ``ppo``.
SCRATCH_MODELS: dict[tuple[str, int], str] = {("standard", 2): "ppo_scratch_standard_2p.safetensors"}

#: ``agents.make("ppo_scratch")``'s model (``standard``, 2 players); its model card:
#: ``docs/agents/ppo_scratch_standard_2p.md``.
SCRATCH_MODEL = Path(__file__).parent / "models" / SCRATCH_MODELS[("standard", 2)]

#: File suffixes ``agents.make`` reads as model paths.
MODEL_SUFFIXES = (".safetensors", ".zip")


def shipped_model(rules="standard", num_players: int | None = None) -> Path:
    """The shipped model file for ``rules`` (a preset name or a :class:`yaniv_env.Rules`)
    and ``num_players`` (default: the rules' own); ``ValueError`` listing the shipped
    models when none was trained for them (rules changed from a preset have none)."""
    from yaniv_env.yaniv.rules import PRESETS, Rules, get_rules

    wanted = get_rules(rules, num_players) if isinstance(rules, (str, Rules)) else rules
    for (preset, players), file in SHIPPED_MODELS.items():
        if get_rules(preset, players) == wanted:
            return Path(__file__).parent / "models" / file
    if isinstance(wanted, Rules):
        what = f"{wanted.name!r} rules with {wanted.num_players} players"
        if wanted.name in PRESETS and wanted != get_rules(wanted.name, wanted.num_players):
            what = f"rules changed from the preset {wanted.name!r} ({wanted.num_players} players)"
    else:
        what = f"rules of another game ({type(wanted).__module__}.{type(wanted).__qualname__})"
    shipped = ", ".join(f"{preset} with {players} players" for preset, players in SHIPPED_MODELS)
    raise ValueError(
        f"no trained agent is shipped for {what} (shipped: {shipped}); train one with "
        "`yaniv train --rules ... --num-players ...` and load its model.safetensors with agents.load"
    )


def _shipped_agent(seed: int | None = None, rules=None, num_players: int | None = None, **options) -> Policy:
    from yaniv_env.yaniv.rules import Rules

    rules = "standard" if rules is None else rules
    # Rules of another game: loading the default model raises the loader's own message
    # ("trained for Yaniv ... but the environment plays ...").
    path = shipped_model(rules, num_players) if isinstance(rules, (str, Rules)) else SHIPPED_MODEL
    return load(path, seed=seed, rules=rules, num_players=num_players, **options)


def _scratch_agent(seed: int | None = None, rules=None, **options) -> Policy:
    return load(SCRATCH_MODEL, seed=seed, rules="standard" if rules is None else rules, **options)


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
    "greedy": "agents.greedy:GreedyAgent",
    "heuristic": "agents.heuristic:HeuristicAgent",
    "score_heuristic": "agents.heuristic:ScoreHeuristicAgent",
    "tuned_two_deck": "agents.heuristic:TunedTwoDeckAgent",
    "search": "agents.search:SearchAgent",
    "search_fast": "agents.search_fast:FastSearchAgent",
    "round_search": "agents.search_fast:RoundSearchAgent",
    "ppo": _shipped_agent,
    "ppo_scratch": _scratch_agent,
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


__all__ = [
    "Policy",
    "RandomAgent",
    "SCRATCH_MODEL",
    "SCRATCH_MODELS",
    "SHIPPED_MODEL",
    "SHIPPED_MODELS",
    "from_sb3",
    "make",
    "load",
    "names",
    "register",
    "shipped_model",
]
