"""The AEC environment as an RLlib ``MultiAgentEnv``: turn order, masks, rewards and baseline seats.

RLlib's own ``PettingZooEnv`` hands each step's reward only to the agent that acts next and
has no place for opponents outside RLlib, so this adapter drives the PettingZoo AEC
``raw_env`` itself:

* **Turn order.** Only the seat that decides next (``agent_selection``) gets an
  observation; Yaniv's successive decisions of one player (discard, draw, slam) and its
  out-of-turn ones (Asaf, Blast) come out as they are, one agent per step.
* **Masks.** Observations are the AEC ``{"observation", "action_mask"}`` dicts; the
  masking module (:mod:`training.rllib.module`) reads the mask. An action the mask forbids
  raises :class:`MaskViolation` (training stops) instead of reaching the engine.
* **Rewards.** Every reward the AEC env gives (to any seat, acting or not) is summed per
  seat and paid with that seat's next observation, or at its end; nothing is lost.
* **Seats.** Per episode, one seat drawn at random is the shared policy; every other seat
  is drawn from ``opponents`` (a mix such as ``"self:2,heuristic:1"``, :func:`training.league.parse_mix`):
  ``self`` is the shared policy too (self-play), any other name is an ``agents.make``
  baseline that acts inside the adapter and is invisible to RLlib.
* **Ends.** A seat that is out (eliminated, or the episode is over) gets its final
  observation with ``terminated`` (``truncated`` at a turn limit); seats that never
  decided in the episode are left out, as RLlib requires.

Seeding: ``reset(seed=s)`` reseeds the adapter's generator, which draws each episode's
deal seed, seating and the baselines' seeds.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from yaniv_env.games import get_game

#: The opponent name meaning "a seat of the shared policy".
SELF = "self"

DEFAULT_CONFIG: dict[str, Any] = {
    "game": "yaniv",
    "rules": "standard",
    "num_players": 2,
    "episode": "round",
    "reward": "score_outcome",
    "turn_limit": None,
    "opponents": SELF,
    "seed": None,
}


class MaskViolation(ValueError):
    """The policy chose an action its observation's mask forbids."""


class YanivMultiAgentEnv(MultiAgentEnv):
    """Yaniv (or Pis Yedili) for RLlib; ``config`` keys: see :data:`DEFAULT_CONFIG`."""

    def __init__(self, config: dict | None = None):
        super().__init__()
        from training.league import agent_available, parse_mix

        unknown = set(config or {}) - set(DEFAULT_CONFIG)
        if unknown:
            raise ValueError(f"unknown environment options: {', '.join(sorted(unknown))}")
        cfg = {**DEFAULT_CONFIG, **(config or {})}
        game = get_game(cfg["game"])
        self.aec = game.aec_class(
            rules=cfg["rules"],
            num_players=int(cfg["num_players"]),
            episode=cfg["episode"],
            reward=cfg["reward"],
            turn_limit=cfg["turn_limit"],
        )
        self.rules = self.aec.rules
        self.opponents = parse_mix(cfg["opponents"])
        for name, _ in self.opponents:
            why = None if name == SELF else agent_available(name, self.rules)
            if why:
                raise ValueError(f"opponent {name!r} cannot play here: {why}")
        names = [n for n, _ in self.opponents]
        weights = np.array([w for _, w in self.opponents], dtype=np.float64)
        self._opponent_names, self._opponent_p = names, weights / weights.sum()
        self.possible_agents = list(self.aec.possible_agents)
        self.agents = list(self.possible_agents)
        self.observation_spaces = {a: self.aec.observation_space(a) for a in self.possible_agents}
        self.action_spaces = {a: self.aec.action_space(a) for a in self.possible_agents}
        self._rng = np.random.default_rng(cfg["seed"])
        self._bots: dict[str, Any] = {}
        self._pending: dict[str, float] = {}
        self._live: set[str] = set()  # seats of the policy that decided and are not out yet
        self._last_obs: dict[str, dict] = {}

    # -- RLlib API -------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        import agents

        if seed is not None:
            self._rng = np.random.default_rng(seed)
        rng = self._rng
        self.aec.reset(seed=int(rng.integers(2**63)))
        learner = int(rng.integers(len(self.possible_agents)))
        self._bots = {}
        for seat, agent in enumerate(self.possible_agents):
            drawn = self._opponent_names[rng.choice(len(self._opponent_names), p=self._opponent_p)]
            name = SELF if seat == learner else drawn
            if name != SELF:
                self._bots[agent] = agents.make(name, seed=int(rng.integers(2**63)), rules=self.rules)
        self.agents = [a for a in self.possible_agents if a not in self._bots]
        self._pending = dict.fromkeys(self.possible_agents, 0.0)
        self._live = set()
        obs, _, _, _ = self._advance()
        return obs, {}

    def step(self, action_dict: dict):
        agent = self.aec.agent_selection
        if agent not in action_dict:
            raise ValueError(f"{agent} is to act but the actions are for {sorted(action_dict)}")
        action = int(action_dict[agent])
        mask = self._last_obs[agent]["action_mask"]
        if not 0 <= action < mask.size or not mask[action]:
            raise MaskViolation(
                f"{agent} chose action {action} ({self.aec.action_name(action) if 0 <= action < mask.size else '?'}) "
                "which its action mask forbids"
            )
        self.aec.step(action)
        self._collect_rewards()
        obs, rewards, terminateds, truncateds = self._advance()
        return obs, rewards, terminateds, truncateds, {}

    # -- driving the AEC env ---------------------------------------------------------------
    def _collect_rewards(self) -> None:
        for a, r in self.aec.rewards.items():
            self._pending[a] += float(r)

    def _advance(self):
        """Step dead seats and baseline seats until a seat of the policy decides or the
        episode ends; returns RLlib's obs, rewards, terminateds, truncateds."""
        aec = self.aec
        obs: dict[str, dict] = {}
        terminateds: dict[str, bool] = {}
        truncateds: dict[str, bool] = {}
        while aec.agents:
            agent = aec.agent_selection
            if aec.terminations[agent] or aec.truncations[agent]:
                if agent in self._live:
                    self._live.discard(agent)
                    obs[agent] = aec.observe(agent)
                    terminateds[agent] = bool(aec.terminations[agent])
                    truncateds[agent] = bool(aec.truncations[agent])
                aec.step(None)
                self._collect_rewards()
                continue
            observation = aec.observe(agent)
            bot = self._bots.get(agent)
            if bot is None:
                obs[agent] = self._last_obs[agent] = observation
                self._live.add(agent)
                break
            aec.step(bot.act(observation["observation"], observation["action_mask"]))
            self._collect_rewards()
        over = not aec.agents
        if over:  # defensive: a seat the AEC env dropped without a dead step still ends
            for agent in self._live:
                obs[agent] = self._last_obs[agent]
                terminateds[agent], truncateds[agent] = True, False
            self._live.clear()
        rewards = {a: self._pending[a] for a in obs}
        for a in obs:
            self._pending[a] = 0.0
        terminateds["__all__"] = over
        truncateds["__all__"] = False
        return obs, rewards, terminateds, truncateds
