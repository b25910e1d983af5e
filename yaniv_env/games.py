"""The games of the package side by side, registered in the game registry
(:mod:`yaniv_env.core.game`) when ``yaniv_env`` is imported.

==============  ===============================  =======================================
                ``yaniv``                        ``pis_yedili``
==============  ===============================  =======================================
package         ``yaniv_env``                    ``yaniv_env.pis_yedili``
rules           :class:`yaniv_env.Rules`         :class:`yaniv_env.pis_yedili.Rules`
observation     ``ObservationLayout``            ``PisObservationLayout``
environments    ``yaniv_env/Yaniv-v0``           ``yaniv_env/PisYedili-v0``
scored unit     round (``episode="round"``)      deal (``episode="deal"``)
==============  ===============================  =======================================

A :class:`Game` only records where a game's modules are and imports them on first use:
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

YANIV = register_game(
    Game(
        name="yaniv",
        title="Yaniv",
        env_id="yaniv_env/Yaniv-v0",
        package="yaniv_env",
        aec_module="yaniv_env.yaniv_aec",
        gym_entry_point="yaniv_env.gym_env:YanivGymEnv",
        layout="ObservationLayout",
        part="round",
    )
)
PIS_YEDILI = register_game(
    Game(
        name="pis_yedili",
        title="Pis Yedili",
        env_id="yaniv_env/PisYedili-v0",
        package="yaniv_env.pis_yedili",
        aec_module="yaniv_env.pis_yedili.pis_aec",
        gym_entry_point="yaniv_env.pis_yedili.gym_env:PisYediliGymEnv",
        layout="PisObservationLayout",
        part="deal",
    )
)

__all__ = ["GAMES", "PIS_YEDILI", "YANIV", "Game", "game_of", "get_game"]
