"""Pis Yedili as a PettingZoo AEC environment.

.. code-block:: python

    from yaniv_env import pis_yedili

    env = pis_yedili.env(num_players=3, render_mode="ansi")
    env.reset(seed=42)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        if termination or truncation:
            action = None
        else:
            action = env.action_space(agent).sample(obs["action_mask"])
        env.step(action)

==================  ===================================================================
Import              ``yaniv_env.pis_yedili.env(...)`` (with PettingZoo's standard
                    wrappers) or ``yaniv_env.pis_yedili.raw_env(...)``; registered as
                    ``yaniv_env/PisYedili-v0`` in PettingZoo's AEC registry (and the
                    Gymnasium wrapper under the same id in Gymnasium's)
Agents              ``player_0 … player_{n-1}``, 2 to 7 players with 7-card hands (the
                    deck must deal every hand and leave a stock: ``Rules.max_seats``)
Action space        ``Discrete(71)`` under every rule set (``yaniv_env.pis_yedili.actions``)
Observation space   ``Dict(observation=Box(195 + 3n,) float32, action_mask=Box(71,) int8)``
State               ``Box(52·(n+1) + 143 + 3n,)``: every hand, the stock and all public
                    values (:class:`yaniv_env.pis_yedili.observation.PisStateLayout`)
==================  ===================================================================

Arguments
---------
``rules``        a preset name from ``yaniv_env.pis_yedili.PRESETS`` (``standard``, the
                 default: the source's rules) or a :class:`yaniv_env.pis_yedili.Rules`.
``num_players``  players (default 2); a count the rules do not allow raises ``ValueError``.
``episode``      ``"game"`` (default): the four deals of a game with cumulative scores;
                 ``"deal"``: one deal.
``reward``       the reward scheme, see below (default ``"score_outcome"``).
``turn_limit``   turns in a deal before it ends unscored (default: the rules' 500).
``render_mode``  ``None``, ``"ansi"`` (``render()`` returns the table as text),
                 ``"rgb_array"`` (the table as a ``(640, 960, 3)`` ``uint8`` picture) or
                 ``"human"`` (that picture in a pygame-ce window after every step);
                 as for Yaniv (:mod:`yaniv_env.yaniv.aec`, "Rendering").
``reveal``       which hands ``render()`` shows: ``"current"`` (default: only the hand of
                 the player to act, as at a hot-seat table, and every hand once the
                 deal is over and scored), ``True`` (all), ``False`` (none) or a seat
                 number. Hidden hands show as card backs.

Turns and actions
-----------------
Each decision belongs to the player to act (``agent_selection``); a turn can take several
decisions of the same player (draw, draw again, then play or pass; an Ace's optional
follow-up card). The phase (in the observation) says which kind it is: *opening* (the
first card of a deal must be a club; without one the opener draws until one comes),
*play* (play a matching card or a Jack naming a suit, draw, or pass after drawing),
*seven* (play a 7 or draw 3 cards per pending 7), *ace* (play a card matching the Ace
just played, or pass).

Action ids (``yaniv_env.pis_yedili.actions``; each id means the same move whatever the
hand)::

    0 draw one card     1 pass (after drawing, or declining the Ace's follow-up)
    2 draw the sevens' penalty (3 cards per 7)
    3 .. 54             play card kind k (3 + k); for a Jack only the opening J♣
    55 .. 70            play the Jack of suit j naming suit s (55 + 4j + s)

``env.unwrapped.decode(a)`` and ``env.unwrapped.action_name(a)`` (``"play 7♥"``,
``"play J♠ naming ♣"``, ``"draw"``) explain any id.

Observation
-----------
``{"observation": float32 (195 + 3n,), "action_mask": int8 (71,)}`` from the observing
player's seat, other seats clockwise from it. The mask is exactly the engine's legal
moves for the player to act (all zeros for every other agent, between deals and at the
end, and for an agent that has left the game, whose observation SuperSuit's wrappers
read). The index table is in :mod:`yaniv_env.pis_yedili.observation`;
``env.unwrapped.layout.table()`` prints the offsets and ``env.unwrapped.layout.split(obs)``
returns the pieces by name. ``state()`` is the full-information vector.

Rewards
-------
Every player receives its reward when it is earned, whether or not it is acting:

``"score"``          at each deal end, minus the points the player took in the deal divided
                     by 100 (a hand of ~60 points is -0.6; a 7 or Jack going out
                     multiplies it).
``"outcome"``        at the end of the episode, the player's place:
                     ``(n - 1 - 2·place) / (n - 1)``, +1 for the winner, -1 for the last
                     (ties share the better place; lowest total first). In ``"deal"``
                     episodes places go by the points taken in the deal; a deal truncated
                     by ``turn_limit`` gives no outcome reward.
``"deal_win"``       +1 to each deal winner (the player who went out, or every player tied
                     for the lowest hand on a stock-out).
``"score_outcome"``  (default) ``"score"`` plus ``"outcome"``. The game is decided by the
                     lowest total after four deals, so the outcome is what to maximise; the
                     per-deal score change is a dense signal of the same sign that tells
                     the learner *how much* a deal cost, including the ×3 and ×2 of going
                     out on a 7 or a Jack.

``infos[agent]["deal_result"]`` holds the last finished deal
(:class:`yaniv_env.pis_yedili.engine.DealResult`). There is no elimination: all agents
terminate together at the end of the episode. A deal that hits the turn limit ends
unscored; it truncates a ``"deal"`` episode and the game goes on to the next deal in a
``"game"`` episode.

Bad input
---------
``raw_env.step`` raises ``ValueError`` naming the illegal action, why it is illegal and the
legal ones, and leaves the state untouched. ``env()`` is :func:`yaniv_env.core.aec.wrap`
around it, as for Yaniv: an illegal move ends the game with reward -1 for the offender;
anything ``raw_env`` refuses as an action id (out of range, a bool, a float, an array,
``None`` for a live agent) raises that same ``ValueError``; ``step()`` or
``last()`` once the game is over (and on ``raw_env`` before ``reset()``) raise
``ResetNeededError`` saying to call ``reset()``.

Version history
---------------
* ``PisYedili-v0`` (0.1.0): first release: the ``standard`` preset (source 003), AEC and
  Gymnasium interfaces, random and heuristic baselines (``pis_random``, ``pis_heuristic``).
* ``PisYedili-v0`` (unreleased): ``render_mode="rgb_array"`` (frames); ``"human"`` shows them
  in a window (it printed the text before). Games are unchanged.
"""

from __future__ import annotations

import numpy as np
from pettingzoo import AECEnv

from ..core.aec import RENDER_FPS, RENDER_MODES, CardGameEnv, wrap
from ..core.frames import TableView
from . import engine
from .engine import DEAL_OVER, GAME_OVER
from .observation import PisObservationLayout, PisStateLayout
from .render import render_table, table_view
from .rewards import EPISODES, REWARD_SCHEMES, part_rewards
from .rules import get_rules


def env(**kwargs) -> AECEnv:
    """The Pis Yedili AEC environment with PettingZoo's standard wrappers."""
    return wrap(raw_env(**kwargs))


class raw_env(CardGameEnv):
    metadata = {
        "render_modes": RENDER_MODES,
        "name": "pis_yedili_v0",
        "is_parallelizable": False,
        "render_fps": RENDER_FPS,
    }
    _engine = engine
    _part_over = DEAL_OVER
    _get_rules = staticmethod(get_rules)
    episodes = EPISODES
    reward_schemes = REWARD_SCHEMES
    layout_class = PisObservationLayout
    state_layout_class = PisStateLayout

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[agent]
        g = self.game
        mask = np.zeros(self.table.num_actions, dtype=np.int8)
        if g.current == seat and g.phase < DEAL_OVER and self._in_play(agent):
            mask[engine.legal_actions(g)] = 1
        return {"observation": self.layout.build(g, seat), "action_mask": mask}

    def _render_text(self) -> str:
        return render_table(self.game, event=self.last_event, reveal=self.reveal)

    def _table_view(self) -> TableView:
        return table_view(self.game, self.recent_events, reveal=self.reveal)

    def _end_of_part(self) -> None:
        g = self.game
        dr = g.deal_result
        agents = self.possible_agents
        for p, r in enumerate(part_rewards(g, self.reward_scheme, self.episode)):
            if r:
                self.rewards[agents[p]] += r
        game_over = g.phase == GAME_OVER
        episode_over = game_over or self.episode == "deal"
        truncated = self.episode == "deal" and dr.truncated
        for a in agents:
            self.infos[a] = {"deal_result": dr}
        event = f"deal over: {dr.reason}, winners {[agents[p] for p in dr.winners]}, scores {dr.scores}"
        move = self.last_event
        self._note(event + (" — game over" if game_over else ""))
        if self.render_mode is not None:  # the text's "last:" line: the move that ended the deal, then how it ended
            self.last_event = f"{move} — {self.last_event}"
        if episode_over:
            done = self.truncations if truncated else self.terminations
            for a in agents:
                done[a] = True
            return
        engine.start_next_deal(g)
