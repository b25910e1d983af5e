"""The games of the package side by side, for code that serves both (checkpoints, training,
evaluation).

==============  ===============================  =======================================
                ``yaniv``                        ``pis_yedili``
==============  ===============================  =======================================
package         ``yaniv_env``                    ``yaniv_env.pis_yedili``
rules           :class:`yaniv_env.Rules`         :class:`yaniv_env.pis_yedili.Rules`
observation     ``ObservationLayout``            ``PisObservationLayout``
environments    ``yaniv_env/Yaniv-v0``           ``yaniv_env/PisYedili-v0``
scored unit     round (``episode="round"``)      deal (``episode="deal"``)
==============  ===============================  =======================================

Both packages have the same module names (``rules``, ``actions``, ``observation``,
``engine``), so a :class:`Game` only records where they are and imports them on first use:
``import yaniv_env.games`` stays as light as the rules core.

.. code-block:: python

    from yaniv_env.games import game_of, get_game

    game = get_game("pis_yedili")
    rules = game.get_rules("standard", 3)
    game.observation_layout(rules).size      # 204
    game_of(rules).title                     # 'Pis Yedili'
"""

from __future__ import annotations

import dataclasses
import importlib
from dataclasses import dataclass
from types import ModuleType
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
    """Module of the AEC ``raw_env``."""
    layout: str
    """Class name of the observation layout in ``<package>.observation``."""
    part: str
    """The scored unit of a game (``round`` or ``deal``): the short episode type, and the
    ``infos[agent]["<part>_result"]`` key of the AEC environment."""

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

    def rules_from_dict(self, d: dict[str, Any]):
        """Rules of this game from ``dataclasses.asdict`` output read back from JSON (lists
        back to tuples); ``ValueError`` for options this version does not know."""
        cls = self.rules_class
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(d) - known)
        if unknown:
            raise ValueError(
                f"the checkpoint's {self.title} rules have options this version does not know: {', '.join(unknown)}"
            )

        def tup(v):
            return tuple(tup(x) for x in v) if isinstance(v, list) else v

        return cls(**{k: tup(v) for k, v in d.items()})

    # -- tables -----------------------------------------------------------------------------
    def observation_layout(self, rules):
        """The observation layout (named pieces, ``size``) of ``rules``."""
        return getattr(self.module("observation"), self.layout)(rules)

    def rules_vector(self, rules) -> np.ndarray:
        """The ``rules`` piece of the observation under ``rules``."""
        return self.module("observation").rules_vector(rules)

    def action_table(self, rules):
        """The (cached) action table of ``rules``: ``num_actions``, ``names()``."""
        return self.module("actions").action_table(rules)

    def card_values(self, rules) -> np.ndarray:
        """Points of each card kind of the ``hand`` piece under ``rules`` (float64): Yaniv
        hand values (joker 0), or Pis Yedili penalty points (``rules.rank_values``)."""
        from .cards import RANK, YANIV_VALUE

        if self.name == "yaniv":
            return np.asarray(YANIV_VALUE, dtype=np.float64)
        size = self.observation_layout(rules).pieces["hand"].size
        return np.asarray([rules.rank_values[RANK[k]] for k in range(size)], dtype=np.float64)

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


YANIV = Game(
    name="yaniv",
    title="Yaniv",
    env_id="yaniv_env/Yaniv-v0",
    package="yaniv_env",
    aec_module="yaniv_env.yaniv_aec",
    layout="ObservationLayout",
    part="round",
)
PIS_YEDILI = Game(
    name="pis_yedili",
    title="Pis Yedili",
    env_id="yaniv_env/PisYedili-v0",
    package="yaniv_env.pis_yedili",
    aec_module="yaniv_env.pis_yedili.pis_aec",
    layout="PisObservationLayout",
    part="deal",
)

#: The games by name.
GAMES: dict[str, Game] = {g.name: g for g in (YANIV, PIS_YEDILI)}


def get_game(name: str | Game) -> Game:
    """A game by name (``yaniv``, ``pis_yedili``); ``ValueError`` naming the games otherwise."""
    if isinstance(name, Game):
        return name
    if name not in GAMES:
        raise ValueError(f"unknown game {name!r}; games: {', '.join(GAMES)}")
    return GAMES[name]


def game_of(rules) -> Game:
    """The game a rules object belongs to; ``ValueError`` for anything that is not one."""
    for game in GAMES.values():
        if isinstance(rules, game.rules_class):
            return game
    raise ValueError(f"{rules!r} is not the rules of any game ({', '.join(GAMES)})")


__all__ = ["GAMES", "PIS_YEDILI", "YANIV", "Game", "game_of", "get_game"]
