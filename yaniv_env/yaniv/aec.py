"""Yaniv as a PettingZoo AEC environment.

.. code-block:: python

    import yaniv_env

    env = yaniv_env.env(rules="standard", num_players=3, render_mode="ansi")
    env.reset(seed=42)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        if termination or truncation:
            action = None
        else:
            action = env.action_space(agent).sample(obs["action_mask"])
        env.step(action)

==================  ===================================================================
Import              ``yaniv_env.env(...)`` (with PettingZoo's standard wrappers) or
                    ``yaniv_env.raw_env(...)``; registered as ``yaniv_env/Yaniv-v0`` in
                    PettingZoo's AEC registry
Agents              ``player_0 … player_{n-1}``
Action space        ``Discrete(N)``, ``N`` derived from the rules (1543 for ``standard``)
Observation space   ``Dict(observation=Box(S,), action_mask=Box(N,) int8)``
State               ``Box(...)``: every hand, the stock and all public values
==================  ===================================================================

Arguments
---------
``rules``       a preset name from ``yaniv_env.PRESETS`` (``standard``, the default;
                ``seven``; ``french``; ``two_deck``) or a :class:`yaniv_env.Rules`.
``num_players`` players (default 2); a count the rules do not allow raises ``ValueError``.
``episode``     ``"game"`` (default): a whole game with cumulative scores, milestones and
                elimination; ``"round"``: one round.
``reward``      the reward scheme, see below (default ``"score_outcome"``).
``turn_limit``  turns in a round before it ends as a draw (default: the rules' 400).
``render_mode`` ``None``, ``"ansi"``, ``"rgb_array"`` or ``"human"``, see "Rendering".
``reveal``      which hands ``render()`` shows: ``"current"`` (default), a seat number,
                ``True`` (all) or ``False`` (none), see "Rendering".

Turns and actions
-----------------
A Yaniv turn is split into successive decisions of the same player: *discard* (lay a
card or set, or call Yaniv), *draw* (from the stock or one card of the previous
discard), then, when the rules offer them, *slam* (slam the drawn card down or pass).
Out-of-turn decisions go to the player who may take them: *asaf* (001: each other player,
from the caller's left, may declare Asaf or pass) and *blast* (001: the player holding the
cards that complete the discard into four of a kind may Blast or pass).
``agent_selection`` is always the player who decides next.

With ``Rules.private_windows`` (on in every preset) the order of decisions shows nothing
the observations hide: the drawer answers every slam window a stock draw opens (only
``pass`` when the card cannot be slammed) and every player still in answers every Blast
window in turn (only ``pass`` without the completing cards); the exact sequence is in
:mod:`yaniv_env.yaniv.engine`. It costs steps (measured per preset on the docs' AEC page,
``docs/environments/aec.md``; ``Rules.replace(private_windows=False)`` turns it off).

Action ids (``yaniv_env.yaniv.actions``; the same ids mean the same move whatever the hand)::

    0 draw from stock   1 call Yaniv   2 slam   3 declare Asaf   4 Blast   5 pass
    6 .. 58             take card kind k (6 + k) from the previous discard
    59 .. N-1           lay discard table entry (id - 59): every single card, every
                        same-rank set, every run with its joker placement, and where the
                        rules let the discarder order a set (000 top card, 004 ends),
                        one id per choice

``env.unwrapped.decode(a)`` and ``env.unwrapped.action_name(a)`` (``"discard 7♥ 7♠"``,
``"take 5♣"``, ``"draw from stock"``, ``"call Yaniv"``) explain any id.

Observation
-----------
``{"observation": float32 (S,), "action_mask": int8 (N,)}`` from the acting player's seat,
opponents in turn order. The mask is exactly the engine's legal moves (all zeros for an
agent that is not to act). ``observe(agent)`` answers for every agent of
``possible_agents``, one that has left the game too (the table from its seat, an all-zero
mask), as SuperSuit's wrappers expect when they observe the last agent selected. The
vector is built from named pieces; the index table is in
:mod:`yaniv_env.yaniv.observation` and ``env.unwrapped.layout.table()`` prints the offsets;
``env.unwrapped.layout.split(obs)`` returns the pieces by name. ``state()`` is the full
information vector for centralised critics (:class:`yaniv_env.yaniv.observation.StateLayout`).

Rewards
-------
Every player receives its reward when it is earned, whether or not it is acting:

``"score"``          at each round end, minus the change of the player's total divided by
                     100 (points taken are negative; a milestone that lowers the total is
                     positive).
``"outcome"``        at the end of the episode (or when the player is eliminated), its
                     place: ``(n - 1 - 2·place) / (n - 1)``, +1 for the winner, -1 for the
                     last (ties share the better place; in ``"round"`` episodes places go
                     by the points taken in the round, and a round drawn at the turn limit
                     places nobody: 0).
``"round_win"``      +1 to each round winner.
``"score_outcome"``  (default) ``"score"`` plus ``"outcome"``: a dense signal for learning
                     that still ends on what decides a game.
``"score_round_outcome"``
                     ``"score_outcome"`` of a one-round episode at every round end (the
                     points, and the place by the points taken in the round), and in
                     ``"game"`` episodes the game's place at its end: a one-round learner's
                     signal over a whole game's totals.
``"margin_outcome"`` at each round end, minus the change of the player's total against
                     the mean change of the others who played the round, divided by 100
                     (zero-sum: points an opponent takes count for the player), plus
                     ``"outcome"``: the race to the score limit, round by round.

``infos[agent]["round_result"]`` holds the last finished round
(:class:`yaniv_env.yaniv.engine.RoundResult`). Eliminated players are terminated and leave
``agents`` after their last (``None``) step, the PettingZoo way. A round that hits
the turn limit (or a game that hits the rules' ``round_limit``) truncates.

Rendering
---------
``render()`` draws the table as ``render_mode`` says (``metadata["render_modes"]``):

``"ansi"``       the table as text: heading, last move (``last:``), discard (and what may
                 be taken), stock, each seat's score and hand, how the round ended.
``"rgb_array"``  the same table as a picture, an ``(640, 960, 3)`` ``uint8`` array
                 (:mod:`yaniv_env.core.frames`, Pillow): hands as card faces or backs, the
                 discard's takeable cards raised and outlined, the stock, the scores, who is
                 to act, the last moves in the words of ``action_name``. For
                 ``gymnasium.wrappers.RecordVideo`` and PettingZoo's wrappers alike.
``"human"``      that picture in a pygame-ce window after every move, at
                 ``metadata["render_fps"]`` (2) frames a second; ``close()`` closes it.
                 ``RuntimeError`` where there is no display.

Hands follow ``reveal``: ``"current"`` shows the hand of the player to act (every hand
once the game is over), a seat number that seat's only (the game as that player saw it),
``True`` every hand, ``False`` none; a hidden hand shows as card backs (``▮``) followed
by the cards its player is publicly known to hold (taken from a discard). ``"rgb_array"``
and ``"human"`` need the ``[render]`` extra (Pillow, pygame-ce; moviepy for videos):
``ImportError`` naming it otherwise. Rendering changes nothing in the game. The page
"Seeing the game" of the documentation shows frames and records a video.

Bad input
---------
``raw_env.step`` raises ``ValueError`` naming the illegal action and the legal ones, and
leaves the state untouched. ``env()`` adds PettingZoo's
``TerminateIllegalWrapper`` (an illegal move ends the game with reward -1 for the
offender) and ``OrderEnforcingWrapper`` (calls before ``reset()`` raise), extended by
``core.aec.CheckedOrderEnforcingWrapper``: anything ``raw_env`` refuses as an action id
(an id out of range, a bool, a float such as ``1.0``, a string, an array, ``None`` for a
live agent) raises the same ``ValueError`` as ``raw_env`` instead of a bare
``AssertionError`` or a NumPy error, state untouched; NumPy integers are ids.
``step()`` or ``last()`` once the game is over (every agent has left), and on
``raw_env`` before the first ``reset()``, raise ``core.aec.ResetNeededError`` (a
``RuntimeError``) saying to call ``reset()``. The Gymnasium wrapper raises ``ValueError``
for an id outside the action space (see :mod:`yaniv_env.core.gym`).

Version history
---------------
* ``Yaniv-v0`` (0.1.0): first release: four presets, AEC and Gymnasium interfaces.
* ``Yaniv-v0`` (unreleased): ``render_mode="rgb_array"`` (frames), ``"human"`` shows them in
  a window (it printed the text before; ``"ansi"`` returns it), ``reveal`` (the text showed
  every hand; the default now shows the hand of the player to act). Games are unchanged:
  the same seed plays the same game. The ``"score_round_outcome"`` reward. In ``"round"``
  episodes a round drawn at the turn limit no longer pays every player the first place under
  ``"outcome"`` and ``"score_outcome"`` (it pays 0); the other rewards are unchanged. The
  ``"margin_outcome"`` reward.
"""

from __future__ import annotations

import numpy as np
from pettingzoo import AECEnv

from ..core.aec import RENDER_FPS, RENDER_MODES, CardGameEnv, FastDiscrete, wrap
from ..core.frames import TableView
from . import engine
from .engine import GAME_OVER, ROUND_OVER
from .observation import ObservationLayout, StateLayout
from .render import render_table, round_result_line, table_view
from .rewards import EPISODES, REWARD_SCHEMES, part_rewards
from .rules import get_rules

__all__ = ["CardGameEnv", "FastDiscrete", "env", "raw_env", "wrap"]


def env(**kwargs) -> AECEnv:
    """The Yaniv AEC environment with PettingZoo's standard wrappers."""
    return wrap(raw_env(**kwargs))


class raw_env(CardGameEnv):
    metadata = {"render_modes": RENDER_MODES, "name": "yaniv_v0", "is_parallelizable": False, "render_fps": RENDER_FPS}
    _engine = engine
    _part_over = ROUND_OVER
    _get_rules = staticmethod(get_rules)
    episodes = EPISODES
    reward_schemes = REWARD_SCHEMES
    layout_class = ObservationLayout
    state_layout_class = StateLayout

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[agent]
        g = self.game
        mask = np.zeros(self._num_actions, dtype=np.int8)
        if g.current == seat and agent == self.agent_selection and self._in_play(agent):
            for a in engine.legal_actions(g):  # about three ids: faster one by one than by index array
                mask[a] = 1
        return {"observation": self.layout.build(g, seat), "action_mask": mask}

    def _new_game(self) -> None:
        self._round_start_scores = list(self.game.scores)

    def _render_text(self) -> str:
        return render_table(self.game, event=self.last_event, reveal=self.reveal)

    def _table_view(self) -> TableView:
        return table_view(self.game, self.recent_events, reveal=self.reveal)

    def _end_of_part(self) -> None:
        g = self.game
        rr = g.round_result
        n = g.num_players
        agents = self.possible_agents
        live = [p for p in range(n) if agents[p] in self.rewards]
        for p, r in enumerate(part_rewards(g, self._round_start_scores, self.reward_scheme, self.episode, live)):
            if r:
                self.rewards[agents[p]] += r
        game_over = g.phase == GAME_OVER
        episode_over = game_over or self.episode == "round"
        truncated = (self.episode == "round" and rr.truncated) or (game_over and g.game_truncated)
        scores = ", ".join(f"{agents[p]} {rr.scores[p]}" for p in range(n))
        event = f"round over: {round_result_line(rr)}; scores {scores}"
        for p in live:
            self.infos[agents[p]] = {"round_result": rr}
        if episode_over:
            for p in live:
                (self.truncations if truncated else self.terminations)[agents[p]] = True
            self._note(event + (" — game over" if game_over else ""))
            return
        for p in rr.eliminated:
            self.terminations[agents[p]] = True
        engine.start_next_round(g)
        self._round_start_scores = list(g.scores)
        self._note(event)
