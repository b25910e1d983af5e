"""Game descriptions and the game registry, for code that serves every game (checkpoints,
training, evaluation, environment registration).

A :class:`Game` describes one game declaratively, in the manner of OpenSpiel's
``GameType``: its names, its environment id, its scored unit, and where its modules are.
Every game package has the same module names (``rules``, ``actions``, ``observation``,
``engine``) with the same public names in them, so the description only records the
package and imports the modules on first use; each game supplies its own values (card
values, rules vector, presets...) through them, and nothing here knows a game by name.
:func:`register_game` adds a description to the registry (``yaniv_env.games`` registers
the package's games); :func:`get_game` and :func:`game_of` find them.

.. code-block:: python

    from yaniv_env.games import game_of, get_game

    game = get_game("pis_yedili")
    rules = game.get_rules("standard", 3)
    game.observation_layout(rules).size      # 204
    game_of(rules).title                     # 'Pis Yedili'
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType, ModuleType
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Game:
    """Where one game's rules, action table, observation layout and environments live."""

    name: str
    """Identifier (``Args.game`` of training, the ``game`` key of checkpoints)."""
    title: str
    """Name for messages."""
    env_id: str
    """Gymnasium id of the single-agent wrapper (and PettingZoo id of the AEC env)."""
    package: str
    """Package holding the ``rules``, ``actions``, ``observation`` and ``engine`` modules."""
    aec_module: str
    """Module of the AEC ``raw_env`` and ``env``."""
    gym_entry_point: str
    """``"module:Class"`` of the single-agent Gymnasium wrapper."""
    layout: str
    """Class name of the observation layout in ``<package>.observation``."""
    part: str
    """The scored unit of a game (``round`` or ``deal``): the short episode type, and the
    ``infos[agent]["<part>_result"]`` key of the AEC environment."""
    rule_limits: tuple[tuple[str, int], ...] = ()
    """``(option, largest value)`` pairs: the most a rules dict read from a file may ask
    for (:meth:`rules_from_dict`), checked before any table is built for it."""

    def module(self, name: str) -> ModuleType:
        """``<package>.<name>`` (``rules``, ``actions``, ``observation``, ``engine``)."""
        return importlib.import_module(f"{self.package}.{name}")

    # -- rules ----------------------------------------------------------------------------
    @property
    def rules_class(self) -> type:
        return self.module("rules").Rules

    @property
    def presets(self) -> dict[str, Any]:
        return self.module("rules").PRESETS

    def get_rules(self, rules="standard", num_players: int | None = None):
        """A preset of this game by name (or a rules object of it), optionally with another
        player count; ``ValueError`` for anything else."""
        return self.module("rules").get_rules(rules, num_players)

    def rules_from_dict(self, d: Mapping[str, Any], what: str = "the rules"):
        """Rules of this game from :func:`rules_to_dict` output read back from JSON (lists
        back to tuples); ``ValueError`` (naming ``what``: the file and where in it) for
        anything but a dict of this game's options, and for a number above
        :attr:`rule_limits`, checked before the rules (and so any table) are built."""
        return self.rules_class.from_dict(d, what, dict(self.rule_limits), self.title)

    # -- tables -----------------------------------------------------------------------------
    def observation_layout(self, rules):
        """The observation layout (named pieces, ``size``, ``decode``) of ``rules``."""
        return getattr(self.module("observation"), self.layout)(rules)

    def rules_vector(self, rules) -> np.ndarray:
        """The ``rules`` piece of the observation under ``rules``."""
        return self.module("observation").rules_vector(rules)

    def action_table(self, rules):
        """The (cached) action table of ``rules``: ``num_actions``, ``names()``."""
        return self.module("actions").action_table(rules)

    def card_values(self, rules) -> np.ndarray:
        """Points of each card kind of the ``hand`` piece under ``rules`` (float64): what the
        game scores a hand at (the game's ``observation.card_values``)."""
        return self.module("observation").card_values(rules)

    # -- environments -----------------------------------------------------------------------
    @property
    def engine(self) -> ModuleType:
        return self.module("engine")

    @property
    def aec_class(self) -> type:
        """The AEC ``raw_env`` class (imports PettingZoo)."""
        return importlib.import_module(self.aec_module).raw_env

    @property
    def episodes(self) -> tuple[str, ...]:
        return tuple(self.aec_class.episodes)

    @property
    def reward_schemes(self) -> tuple[str, ...]:
        return tuple(self.aec_class.reward_schemes)

    @property
    def result_key(self) -> str:
        return f"{self.part}_result"


def rules_to_dict(rules) -> dict[str, Any]:
    """Every option of ``rules`` (of any game) as plain JSON data: :meth:`RulesBase.to_dict`."""
    return rules.to_dict()


_GAMES: dict[str, Game] = {}
#: The registered games by name (read-only; :func:`register_game` adds to it).
GAMES: Mapping[str, Game] = MappingProxyType(_GAMES)


def register_game(game: Game) -> Game:
    """Add a game to the registry (again with the same description: nothing changes);
    ``ValueError`` when another description holds the name."""
    if not isinstance(game, Game):
        raise TypeError(f"register_game takes a Game, got {type(game).__name__}")
    known = _GAMES.get(game.name)
    if known is not None and known != game:
        raise ValueError(f"another game is registered as {game.name!r}")
    _GAMES[game.name] = game
    return game


def get_game(name: str | Game) -> Game:
    """A game by name (``yaniv``, ``pis_yedili``); ``ValueError`` naming the games otherwise."""
    if isinstance(name, Game):
        return name
    if name not in _GAMES:
        raise ValueError(f"unknown game {name!r}; games: {', '.join(_GAMES)}")
    return _GAMES[name]


def game_of(rules) -> Game:
    """The game a rules object belongs to; ``ValueError`` for anything that is not one."""
    for game in _GAMES.values():
        if isinstance(rules, game.rules_class):
            return game
    raise ValueError(f"{rules!r} is not the rules of any game ({', '.join(_GAMES)})")


__all__ = ["GAMES", "Game", "game_of", "get_game", "register_game", "rules_to_dict"]
