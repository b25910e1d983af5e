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
from functools import partial
from pathlib import Path

from yaniv_env.core.policies import (
    make_policy,
    policy_names,
    register_batcher,
    register_policy,
    register_policy_loader,
)

from .base import Policy, RandomAgent

#: The advised agents shipped with the package, by (preset, players): play files
#: (``agents.play_format``) in ``agents/models/``, loaded by ``agents.make("ppo_advised",
#: rules=..., num_players=...)``. Each is a MaskablePPO policy advised by ``score_heuristic``,
#: but ``two_deck``'s, advised by ``tuned_two_deck``; how each was trained and what it
#: measured: its model card, ``docs/agents/<file name>.md``.
ADVISED_MODELS: dict[tuple[str, int], str] = {
    ("standard", 2): "ppo_standard_2p.safetensors",
    ("standard", 3): "ppo_standard_3p.safetensors",
    ("standard", 4): "ppo_standard_4p.safetensors",
    ("seven", 2): "ppo_seven_2p.safetensors",
    ("french", 2): "ppo_french_2p.safetensors",
    ("two_deck", 2): "ppo_two_deck_2p.safetensors",
}

#: The shipped models learnt from scratch, by (preset, players): the lean PPO in self-play, no
#: advisor and no imitation (their metadata says so), loaded by ``agents.make("ppo_scratch")``.
SCRATCH_MODELS: dict[tuple[str, int], str] = {("standard", 2): "ppo_scratch_standard_2p.safetensors"}

#: The default trained agent of each table, ``agents.make("ppo", rules=..., num_players=...)``:
#: the model learnt from scratch where it beat the advised one head to head (its model card
#: says by how much), the advised one elsewhere.
SHIPPED_MODELS: dict[tuple[str, int], str] = {**ADVISED_MODELS, **SCRATCH_MODELS}

_MODELS_DIR = Path(__file__).parent / "models"

#: The default shipped agent (``standard``, 2 players): ``agents.make("ppo")``.
SHIPPED_MODEL = _MODELS_DIR / SHIPPED_MODELS[("standard", 2)]

#: ``agents.make("ppo_advised")``'s model (``standard``, 2 players); its model card:
#: ``docs/agents/ppo_standard_2p.md``.
ADVISED_MODEL = _MODELS_DIR / ADVISED_MODELS[("standard", 2)]

#: ``agents.make("ppo_scratch")``'s model (``standard``, 2 players); its model card:
#: ``docs/agents/ppo_scratch_standard_2p.md``.
SCRATCH_MODEL = _MODELS_DIR / SCRATCH_MODELS[("standard", 2)]

#: The registered names of the shipped trained agents and the models each loads.
SHIPPED_KINDS: dict[str, dict[tuple[str, int], str]] = {
    "ppo": SHIPPED_MODELS,
    "ppo_advised": ADVISED_MODELS,
    "ppo_scratch": SCRATCH_MODELS,
}

#: File suffixes ``agents.make`` reads as model paths.
MODEL_SUFFIXES = (".safetensors", ".zip")


def shipped_model(rules="standard", num_players: int | None = None, name: str = "ppo") -> Path:
    """The model file the shipped agent ``name`` (``ppo``, ``ppo_advised`` or ``ppo_scratch``,
    :data:`SHIPPED_KINDS`) loads for ``rules`` (a preset name or a :class:`yaniv_env.Rules`)
    and ``num_players`` (default: the rules' own); ``ValueError`` listing that agent's models
    when none was trained for them (rules changed from a preset have none)."""
    from yaniv_env.yaniv.rules import PRESETS, Rules, get_rules

    if name not in SHIPPED_KINDS:
        raise ValueError(f"no shipped agent is named {name!r}; the shipped agents: {', '.join(SHIPPED_KINDS)}")
    models = SHIPPED_KINDS[name]
    wanted = get_rules(rules, num_players) if isinstance(rules, (str, Rules)) else rules
    for (preset, players), file in models.items():
        if get_rules(preset, players) == wanted:
            return _MODELS_DIR / file
    if isinstance(wanted, Rules):
        what = f"{wanted.name!r} rules with {wanted.num_players} players"
        if wanted.name in PRESETS and wanted != get_rules(wanted.name, wanted.num_players):
            what = f"rules changed from the preset {wanted.name!r} ({wanted.num_players} players)"
    else:
        what = f"rules of another game ({type(wanted).__module__}.{type(wanted).__qualname__})"
    shipped = ", ".join(f"{preset} with {players} players" for preset, players in models)
    raise ValueError(
        f"no trained agent {name!r} is shipped for {what} (shipped: {shipped}); train one with "
        "`yaniv train --rules ... --num-players ...` and load its model.safetensors with agents.load"
    )


def _shipped_agent(name: str, seed: int | None = None, rules=None, num_players: int | None = None, **options) -> Policy:
    from yaniv_env.yaniv.rules import Rules

    rules = "standard" if rules is None else rules
    # Rules of another game: loading the standard 2-player model raises the loader's own
    # message ("trained for Yaniv ... but the environment plays ...").
    path = shipped_model(rules, num_players, name) if isinstance(rules, (str, Rules)) else shipped_model(name=name)
    return load(path, seed=seed, rules=rules, num_players=num_players, **options)


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
    **{name: partial(_shipped_agent, name) for name in SHIPPED_KINDS},
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
    "ADVISED_MODEL",
    "ADVISED_MODELS",
    "Policy",
    "RandomAgent",
    "SCRATCH_MODEL",
    "SCRATCH_MODELS",
    "SHIPPED_KINDS",
    "SHIPPED_MODEL",
    "SHIPPED_MODELS",
    "from_sb3",
    "make",
    "load",
    "names",
    "register",
    "shipped_model",
]
