"""The games of the package side by side, registered in the game registry
(:mod:`yaniv_env.core.game`) when ``yaniv_env`` is imported.

==============  ===============================  =======================================
                ``yaniv``                        ``pis_yedili``
==============  ===============================  =======================================
package         ``yaniv_env.yaniv``              ``yaniv_env.pis_yedili``
rules           :class:`yaniv_env.Rules`         :class:`yaniv_env.pis_yedili.Rules`
observation     ``ObservationLayout``            ``PisObservationLayout``
environments    ``yaniv_env/Yaniv-v0``           ``yaniv_env/PisYedili-v0``
scored unit     round (``episode="round"``)      deal (``episode="deal"``)
==============  ===============================  =======================================

Each also states the largest values a rules dict read from a file may hold
(``rule_limits``, the ``RULE_LIMITS`` of the game's ``rules`` module): beyond them the
observation and action tables grow too large to build (what they cost without the limits:
``docs/loading-limits.md``), far above every preset (at most 21 Yaniv players with two
decks, hands of 7 cards).

A :class:`Game` only records where a game's modules are and imports them on first use
(the registry itself imports only the games' ``rules`` modules, for their limits):
``import yaniv_env.games`` stays as light as the rules core.

.. code-block:: python

    from yaniv_env.games import game_of, get_game

    game = get_game("pis_yedili")
    rules = game.get_rules("standard", 3)
    game.observation_layout(rules).size      # 204
    game_of(rules).title                     # 'Pis Yedili'
"""

from __future__ import annotations

from .core.game import GAMES, Game, game_of, get_game, register_game
from .pis_yedili import rules as pis_yedili_rules
from .yaniv import rules as yaniv_rules

YANIV = register_game(
    Game(
        name="yaniv",
        title="Yaniv",
        env_id="yaniv_env/Yaniv-v0",
        package="yaniv_env.yaniv",
        aec_module="yaniv_env.yaniv.aec",
        gym_entry_point="yaniv_env.yaniv.gym_env:YanivGymEnv",
        layout="ObservationLayout",
        part="round",
        rule_limits=yaniv_rules.RULE_LIMITS,
    )
)
PIS_YEDILI = register_game(
    Game(
        name="pis_yedili",
        title="Pis Yedili",
        env_id="yaniv_env/PisYedili-v0",
        package="yaniv_env.pis_yedili",
        aec_module="yaniv_env.pis_yedili.aec",
        gym_entry_point="yaniv_env.pis_yedili.gym_env:PisYediliGymEnv",
        layout="PisObservationLayout",
        part="deal",
        rule_limits=pis_yedili_rules.RULE_LIMITS,
    )
)

__all__ = ["GAMES", "PIS_YEDILI", "YANIV", "Game", "game_of", "get_game"]
