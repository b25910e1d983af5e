"""Vector environments on the batched engine: B learner games stepped together.

.. code-block:: python

    import numpy as np
    from sb3_contrib import MaskablePPO
    from yaniv_env.vector.envs import YanivVectorEnv, YanivVecEnv

    envs = YanivVectorEnv("standard", num_envs=256, opponents="heuristic")     # Gymnasium
    obs, infos = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in envs.action_masks()])
    obs, rewards, terminations, truncations, infos = envs.step(actions)

    venv = YanivVecEnv("standard", num_envs=16, opponents="heuristic")        # Stable-Baselines3
    # PPO updates every num_envs * n_steps steps: 16 * 64 = 1,024 here (SB3's default
    # n_steps=2048 with 64 environments would collect 131,072 steps before the first update)
    model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=256, seed=0)
    model.learn(total_timesteps=1_024)     # masks through venv.env_method("action_masks")

==================  ==========================================================================
class               interface
==================  ==========================================================================
YanivVectorEnv      ``gymnasium.vector.VectorEnv``; same-step autoreset
                    (``metadata["autoreset_mode"] = AutoresetMode.SAME_STEP``): the observation
                    returned with ``terminated | truncated`` is the next episode's first one, the
                    last one is ``infos["final_obs"][i]`` (``infos["_final_obs"][i]`` True)
YanivVecEnv         ``stable_baselines3`` ``VecEnv`` (autoreset as SB3 does it: the last
                    observation is ``infos[i]["terminal_observation"]``); ``action_masks()``
                    returns bool ``[B, A]``, also through ``env_method("action_masks")``
BatchedSelfPlay     every seat of every game is the caller's: the acting seat, observations and
                    masks of B games, and per-seat rewards, for one network playing all seats
==================  ==========================================================================

Each game of a learner environment is the game :class:`yaniv_env.gym_env.YanivGymEnv` plays
(same arguments: ``rules``, ``num_players``, ``opponents``, ``learner_seat`` (a seat or
``"random"``), ``episode`` (``"game"``/``"round"``), ``reward`` (``score``, ``outcome``,
``round_win``, ``score_outcome``), ``turn_limit``), with the same rewards: slot ``i`` after
``reset(seed=s)`` plays the episodes a ``YanivGymEnv`` reset with ``seed=s + i`` and then
without a seed would play (same seats, same deals, same opponents' decisions for the random,
greedy and heuristic opponents: :mod:`agents.batched`), and the same redeal when the
opponents end an episode before the learner's first decision. Differences: an illegal
learner action raises ``ValueError`` naming the game, the action and the legal ones (no game
changes); in ``"round"`` episodes the last observation shows the next round dealt (the
batched engine starts it at once), not the finished round.

Opponents (one spec per other seat, or one for all) are agent names, agent objects or
batched agents (``act_batch``); the random, greedy, heuristic and trained agents act in
batch (:func:`agents.batched.batched`), any other object row by row. Instead of fixed seats,
``opponent_mix=[(spec, weight), ...]`` draws each other seat's opponent for every episode
from the slot's generator (the opponents of the episode that ended are named in the SB3
``infos[i]["opponent"]``, ``"+"``-joined in seat order, as ``yaniv train`` logs them).
:meth:`LearnerGames.set_pool` adds a replaceable self-play pool (``yaniv train --league``):
from the next episodes on, each other seat is, with a given probability, a pool member drawn
uniformly (labelled ``"pool"``), else an opponent as before; each member acts in one call per
opponent step over all the games where it sits. Episode statistics are SB3 ``Monitor``'s: at
each episode end ``infos[i]["episode"] = {"r": return, "l": learner steps, "t": seconds since
the environment was made}`` (the Gymnasium env: ``infos["episode"]`` with one entry per game
and ``infos["_episode"]``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from ..core.policies import batched_policy
from ..core.seeding import seeded_key
from ..rules import get_rules
from ..yaniv_aec import EPISODES, REWARD_SCHEMES
from . import BatchedYaniv, round_rewards

__all__ = ["LearnerGames", "YanivVectorEnv", "YanivVecEnv", "BatchedSelfPlay"]

#: Deals tried per reset before giving up (as :attr:`YanivGymEnv.MAX_REDEALS`).
MAX_REDEALS = 100


def _label(spec) -> str:
    return spec if isinstance(spec, str) else str(getattr(spec, "name", type(spec).__name__))


def _opponent_table(opponents, opponent_mix, n: int, rules) -> tuple[list, list[str], np.ndarray | None, np.ndarray]:
    """The distinct batched opponents, their labels, the draw weights (``None``: fixed seats)
    and, for fixed seats, the opponent index of each other seat (``[n - 1]``)."""
    if opponent_mix is not None:
        if opponents is not None:
            raise ValueError("give opponents (one per other seat) or opponent_mix (drawn per episode), not both")
        mix = list(opponent_mix)
        weights = np.array([w for _, w in mix], dtype=float) if mix else np.zeros(0)
        if not mix or (weights < 0).any() or weights.sum() <= 0:
            raise ValueError(
                f"opponent_mix must be (opponent, weight) pairs, weights >= 0 with a positive sum: {mix!r}"
            )
        specs = [spec for spec, _ in mix]
        policies = [batched_policy(spec, rules=rules) for spec in specs]
        return policies, [_label(spec) for spec in specs], weights / weights.sum(), np.zeros(n - 1, np.int64)
    if opponents is None:
        opponents = ["random"]
    if isinstance(opponents, str) or hasattr(opponents, "act") or hasattr(opponents, "act_batch"):
        opponents = [opponents]
    opponents = list(opponents)
    if len(opponents) == 1:
        opponents = opponents * (n - 1)
    if len(opponents) != n - 1:
        raise ValueError(f"opponents: {len(opponents)} given for {n - 1} other seats")
    distinct: dict[int, int] = {}  # one object for repeated specs, so that a seat's batch is one call
    specs, seat_index = [], []
    for spec in opponents:
        if id(spec) not in distinct:
            distinct[id(spec)] = len(specs)
            specs.append(spec)
        seat_index.append(distinct[id(spec)])
    policies = [batched_policy(spec, rules=rules) for spec in specs]
    return policies, [_label(spec) for spec in specs], None, np.array(seat_index, np.int64)


def _checked_rules(rules, num_players: int, episode: str, reward: str, turn_limit: int | None):
    """The rules of the games (``turn_limit`` applied), after checking ``episode`` and ``reward``."""
    if episode not in EPISODES:
        raise ValueError(f"episode must be one of {EPISODES}, got {episode!r}")
    if reward not in REWARD_SCHEMES:
        raise ValueError(f"reward must be one of {REWARD_SCHEMES}, got {reward!r}")
    rules = get_rules(rules, num_players)
    return rules if turn_limit is None else rules.replace(turn_limit=turn_limit)


class LearnerGames:
    """B games with one learner seat each and the opponents stepped inside, in batch: the
    state machine behind :class:`YanivVectorEnv` and :class:`YanivVecEnv` (see the module
    docstring). ``reset(seed)`` and ``step(actions)`` return arrays; finished games are
    reset at once (their last observation and statistics are returned alongside)."""

    #: The batched engine class (anything with :class:`BatchedYaniv`'s interface).
    engine_class = BatchedYaniv

    def __init__(
        self,
        rules="standard",
        num_envs: int = 1,
        num_players: int = 2,
        opponents: Sequence | Any = None,
        learner_seat: int | str = "random",
        episode: str = "game",
        reward: str = "score_outcome",
        turn_limit: int | None = None,
        opponent_mix: Sequence[tuple[Any, float]] | None = None,
    ):
        self.rules = rules = _checked_rules(rules, num_players, episode, reward, turn_limit)
        n = self.num_players = rules.num_players
        if learner_seat != "random" and not (type(learner_seat) is int and 0 <= learner_seat < n):
            raise ValueError(f"learner_seat must be 'random' or a seat 0..{n - 1}, got {learner_seat!r}")
        self.learner_seat = learner_seat
        self.episode = episode
        self.reward = reward
        self.engine = self.engine_class(rules, num_envs=num_envs, seed=0)
        self.num_envs = B = num_envs
        self.obs_size = self.engine.layout.size
        self.num_actions = self.engine.num_actions
        self.policies, self.labels, self._weights, self._fixed = _opponent_table(opponents, opponent_mix, n, rules)
        self._num_baselines = len(self.policies)  # policies[:k]: the opponents; then the pool's
        self._pool = np.zeros(0, np.int64)  # the pool members' indices into policies
        self.pool_probability = 0.0
        self.choice = np.tile(self._fixed, (B, 1))  # [B, n - 1]: index into policies, per other seat
        self.seats = np.zeros(B, np.int64)
        self.opponent_keys = np.zeros((B, n - 1), np.uint64)
        self._slot_rngs: list[np.random.Generator] = []
        self._carry = np.zeros(B)
        self._returns = np.zeros(B)
        self._lengths = np.zeros(B, np.int64)
        self._masks = np.zeros((B, self.num_actions), bool)
        self._rows = np.arange(B)
        self.t_start = time.time()

    # -- episodes ------------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> np.ndarray:
        """Every game anew; slot ``i`` seeded ``seed + i`` (``None``: fresh entropy). Returns
        the observations ``[B, S]``."""
        B, n = self.num_envs, self.num_players
        self._slot_rngs = [np.random.default_rng(None if seed is None else seed + i) for i in range(B)]
        for i in range(B):
            for j in range(n - 1):  # the keys YanivGymEnv.reset(seed) gives its opponents
                self.opponent_keys[i, j] = seeded_key(None if seed is None else (seed + i) * 1000 + j + 1)
        self._returns[:] = 0.0
        self._lengths[:] = 0
        self._start(np.ones(B, bool))
        return self._observe()

    def _start(self, slots: np.ndarray) -> None:
        """New episodes in ``slots`` (bool [B]): seat and deal from each slot's generator, the
        opponents played up to the learner's first decision, redealt if they end it first."""
        n, k, pool, p = self.num_players, self._num_baselines, self._pool, self.pool_probability
        for b in np.flatnonzero(slots):
            rng = self._slot_rngs[b]
            self.seats[b] = int(rng.integers(n)) if self.learner_seat == "random" else self.learner_seat
            if len(pool):  # per seat, as training.league.OpponentSampler draws
                for j in range(n - 1):
                    if rng.random() < p:
                        self.choice[b, j] = pool[int(rng.integers(len(pool)))]
                    elif self._weights is not None:
                        self.choice[b, j] = rng.choice(k, p=self._weights)
                    else:
                        self.choice[b, j] = self._fixed[j]
            elif self._weights is not None:
                self.choice[b] = rng.choice(k, size=n - 1, p=self._weights)
            else:
                self.choice[b] = self._fixed
        todo = slots.copy()
        for _ in range(MAX_REDEALS):
            rows = np.flatnonzero(todo)
            seeds = np.array([int(self._slot_rngs[b].integers(2**63)) for b in rows], dtype=np.int64)
            self.engine.reset_games(rows, seeds=seeds)
            more, over, _ = self._play_opponents(todo)
            self._carry[todo] = more[todo]
            todo &= over
            if not todo.any():
                return
        raise RuntimeError(f"the opponents ended {MAX_REDEALS} episodes in a row before the learner's first decision")

    def _learner_ends(self, res, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(episode over, truncated) of the learners of ``rows`` after an engine step."""
        if self.episode == "round":
            over = res.round_over.copy()
            trunc = res.truncated | (res.game_over & res.game_truncated)
        else:
            over = res.game_over | (res.round_over & res.eliminated[self._rows, self.seats])
            trunc = res.game_over & res.game_truncated
        return over & rows, trunc & over & rows

    def _engine_step(self, actions: np.ndarray, rows: np.ndarray):
        """Step the games ``rows`` (others wait: action -1); the learners' rewards and ends."""
        res = self.engine.step(np.where(rows, actions, -1))
        rewards = round_rewards(res, self.reward, self.episode)[self._rows, self.seats]
        over, trunc = self._learner_ends(res, rows)
        return rewards, over, trunc

    def _play_opponents(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Step the opponents of ``rows`` until their learner must act or its episode is over.
        Returns the learner rewards earned (summed in step order), episode over, truncated."""
        B = self.num_envs
        more, over, trunc = np.zeros(B), np.zeros(B, bool), np.zeros(B, bool)
        waiting = rows & (self.engine.current != self.seats)
        while waiting.any():
            rows_waiting = np.flatnonzero(waiting)
            # observations and masks of the waiting games only (often half of the batch or less)
            obs = self.engine.observations(rows=rows_waiting)
            masks = self.engine.legal_masks(rows=rows_waiting)
            current = self.engine.current[rows_waiting]
            j = current - (current > self.seats[rows_waiting])  # opponent j plays the j-th other seat
            actions = np.full(B, -1, np.int64)
            acting = self.choice[rows_waiting, j]  # the policy of each waiting game's acting seat
            keys = self.opponent_keys[rows_waiting, j]
            policies = np.unique(acting)
            if len(policies) == 1:  # one policy everywhere: its rows are all of them, no copies
                actions[rows_waiting] = self.policies[policies[0]].act_batch(obs, masks, keys)
            else:
                for k in policies:  # one call per policy, wherever it sits
                    at = acting == k
                    actions[rows_waiting[at]] = self.policies[k].act_batch(obs[at], masks[at], keys[at])
            r, o, t = self._engine_step(actions, waiting)
            more += r
            over |= o
            trunc |= t
            waiting &= ~o & (self.engine.current != self.seats)
        return more, over, trunc

    def set_pool(self, policies: Sequence, probability: float, label: str = "pool") -> int:
        """Replace the self-play pool by ``policies`` (agent names or objects, batched by the
        policy registry: objects with ``act_batch`` are used as they are) and the probability
        that an other seat is drawn from it. From the next episodes on, each other seat is,
        with probability ``probability`` when the pool is not empty, a pool member drawn
        uniformly (labelled ``label``), else an opponent of the mix (or its fixed one). The
        episodes under way keep their opponents (members that left the pool play them out).
        Returns the pool's size."""
        probability = float(probability)
        if not 0.0 <= probability <= 1.0:
            raise ValueError(f"the pool probability must be in [0, 1], got {probability!r}")
        pool = [batched_policy(spec, rules=self.rules) for spec in policies]
        k, old = self._num_baselines, self.policies
        position = {id(member): i for i, member in enumerate(pool)}
        seated = set(np.unique(self.choice).tolist())
        lingering = [i for i in range(k, len(old)) if i in seated and id(old[i]) not in position]
        start = k + len(lingering)
        remap = np.arange(len(old))  # old index -> new index (members neither seated nor kept: unused)
        for i, m in enumerate(lingering):
            remap[m] = k + i
        for i in range(k, len(old)):
            if id(old[i]) in position:
                remap[i] = start + position[id(old[i])]
        self.choice = remap[self.choice]
        self.policies = old[:k] + [old[i] for i in lingering] + pool
        self.labels = self.labels[:k] + [self.labels[i] for i in lingering] + [label] * len(pool)
        self._pool = np.arange(start, start + len(pool), dtype=np.int64)
        self.pool_probability = probability
        return len(pool)

    @property
    def pool(self) -> list:
        """The batched policies of the self-play pool (:meth:`set_pool`)."""
        return [self.policies[i] for i in self._pool]

    def opponent_label(self, slot: int) -> str:
        """The opponents of the episode under way in ``slot`` (``"+"``-joined, seat order)."""
        return "+".join(self.labels[k] for k in self.choice[slot])

    def _observe(self) -> np.ndarray:
        self._masks = self.engine.legal_masks()
        return self.engine.observations()

    def action_masks(self) -> np.ndarray:
        """bool ``[B, A]``: the learners' legal actions."""
        return self._masks

    def step(self, actions) -> tuple[np.ndarray, ...]:
        """The learners' actions ``[B]`` -> ``(observations, rewards, terminated, truncated,
        final_observations, ended)``: ``ended`` (bool ``[B]``) marks the games whose episode
        ended (reset at once: ``observations`` are the new episodes' first ones and
        ``final_observations[ended]`` the last ones; statistics in :meth:`episode_stats`)."""
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,):
            actions = actions.reshape(self.num_envs)
        everyone = np.ones(self.num_envs, bool)
        r, over, trunc = self._engine_step(actions.astype(np.int64), everyone)
        r += self._carry
        self._carry[:] = 0.0
        more, o2, t2 = self._play_opponents(everyone & ~over)
        rewards = r + more
        over |= o2
        trunc |= t2
        self._returns += rewards
        self._lengths += 1
        final = None
        if over.any():
            final = self.engine.observations(self.seats)
            self.ended_returns = self._returns[over].copy()
            self.ended_lengths = self._lengths[over].copy()
            self.ended_opponents = [self.opponent_label(b) for b in np.flatnonzero(over)]
            self._returns[over] = 0.0
            self._lengths[over] = 0
            self._start(over)
        return self._observe(), rewards, over & ~trunc, trunc, final, over

    def close(self) -> None:
        pass


def _spaces(games: LearnerGames) -> tuple[spaces.Box, spaces.Discrete]:
    high = games.engine.layout.high
    return spaces.Box(0.0, high, dtype=np.float32), spaces.Discrete(games.num_actions)


class YanivVectorEnv(gymnasium.vector.VectorEnv):
    """A Gymnasium vector environment of :class:`LearnerGames` (same-step autoreset; see the
    module docstring). Keyword arguments: those of :class:`LearnerGames`."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, rules="standard", num_envs: int = 16, **kwargs):
        self.games = LearnerGames(rules, num_envs, **kwargs)
        self.rules = self.games.rules
        self.num_envs = num_envs
        self.single_observation_space, self.single_action_space = _spaces(self.games)
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, num_envs)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        return self.games.reset(seed), {}

    def step(self, actions):
        obs, rewards, terminated, truncated, final, ended = self.games.step(actions)
        infos: dict[str, Any] = {}
        if ended.any():
            final_obs = np.full(self.num_envs, None, dtype=object)
            for b in np.flatnonzero(ended):
                final_obs[b] = final[b]
            infos["final_obs"], infos["_final_obs"] = final_obs, ended
            infos["final_info"], infos["_final_info"] = {}, ended
            g = self.games
            r, ln = np.zeros(self.num_envs), np.zeros(self.num_envs, np.int64)
            r[ended], ln[ended] = g.ended_returns, g.ended_lengths
            t = np.where(ended, round(time.time() - g.t_start, 6), 0.0)
            infos["episode"] = {"r": r, "l": ln, "t": t, "_r": ended, "_l": ended, "_t": ended}
            infos["_episode"] = ended
        return obs, rewards, terminated, truncated, infos

    def action_masks(self) -> np.ndarray:
        """bool ``[B, A]``: the learners' legal actions (for masked policies)."""
        return self.games.action_masks()

    def set_pool(self, policies: Sequence, probability: float, label: str = "pool") -> int:
        """:meth:`LearnerGames.set_pool`: a self-play pool seated from the next episodes on."""
        return self.games.set_pool(policies, probability, label)


def _sb3_vecenv_base():
    from stable_baselines3.common.vec_env import VecEnv

    return VecEnv


class YanivVecEnv(_sb3_vecenv_base()):
    """A Stable-Baselines3 ``VecEnv`` of :class:`LearnerGames` (see the module docstring).
    ``seed(s)`` (or ``reset()`` after ``seed``) seeds slot ``i`` with ``s + i``."""

    render_mode = None

    def __init__(self, rules="standard", num_envs: int = 16, **kwargs):
        self.games = LearnerGames(rules, num_envs, **kwargs)
        self.rules = self.games.rules
        obs_space, act_space = _spaces(self.games)
        super().__init__(num_envs, obs_space, act_space)
        self._actions = None

    def reset(self) -> np.ndarray:
        seed = self._seeds[0]
        obs = self.games.reset(seed)
        self._reset_seeds()
        self._reset_options()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self):
        obs, rewards, terminated, truncated, final, ended = self.games.step(self._actions)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if ended.any():
            g = self.games
            t = round(time.time() - g.t_start, 6)
            for i, b in enumerate(np.flatnonzero(ended)):
                infos[b] = {
                    "episode": {"r": float(g.ended_returns[i]), "l": int(g.ended_lengths[i]), "t": t},
                    "terminal_observation": final[b],
                    "TimeLimit.truncated": bool(truncated[b] and not terminated[b]),
                    "opponent": g.ended_opponents[i],
                }
        return obs, rewards.astype(np.float32), ended, infos

    def seed(self, seed: int | None = None):
        """Seed the next :meth:`reset`: slot ``i`` gets ``seed + i``."""
        self._seeds = [None if seed is None else seed + i for i in range(self.num_envs)]
        return self._seeds

    def action_masks(self) -> np.ndarray:
        """bool ``[B, A]``: the learners' legal actions."""
        return self.games.action_masks()

    def set_pool(self, policies: Sequence, probability: float, label: str = "pool") -> int:
        """:meth:`LearnerGames.set_pool`: a self-play pool seated from the next episodes on
        (through ``env_method("set_pool", ...)`` too: once for the batch)."""
        return self.games.set_pool(policies, probability, label)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
        if method_name == "action_masks":
            # sb3_contrib's get_action_masks stacks what this returns: rows of one array
            masks = self.games.action_masks()
            return masks if indices is None else masks[self._get_indices(indices)]
        if method_name == "set_pool":  # one pool for the whole batch: set it once
            size = self.set_pool(*method_args, **method_kwargs)
            return [size for _ in self._get_indices(indices)]
        return [getattr(self, method_name)(*method_args, **method_kwargs) for _ in self._get_indices(indices)]

    def get_attr(self, attr_name: str, indices=None) -> list:
        return [getattr(self, attr_name) for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def _get_indices(self, indices):
        if indices is None:
            return range(self.num_envs)
        return [indices] if isinstance(indices, int) else indices

    def get_images(self):
        return [None for _ in range(self.num_envs)]

    def close(self) -> None:
        pass


class BatchedSelfPlay:
    """B games where the caller acts for every seat (one network playing all seats).

    ``reset(seed)`` then, repeatedly, ``seats, obs, masks = sp.seats, sp.observations,
    sp.masks`` and ``rewards, ended = sp.step(actions)``: ``seats`` (int ``[B]``) is the
    acting seat of each game, ``observations``/``masks`` are from that seat; ``rewards``
    (float ``[B, n]``) are every seat's AEC rewards earned in the step (``reward`` scheme and
    ``episode`` as the environments), ``ended`` (bool ``[B]``) the games whose episode ended
    in it (their final ranking is ``last_ranking[ended]``); those games restart at once.
    """

    def __init__(
        self,
        rules="standard",
        num_envs: int = 16,
        num_players: int = 2,
        episode: str = "game",
        reward: str = "score_outcome",
        turn_limit: int | None = None,
    ):
        self.rules = rules = _checked_rules(rules, num_players, episode, reward, turn_limit)
        self.num_envs = num_envs
        self.episode = episode
        self.reward = reward
        self.engine = BatchedYaniv(rules, num_envs=num_envs, seed=0)
        self.last_ranking = np.zeros((num_envs, rules.num_players), np.int64)

    def reset(self, seed: int | None = None) -> None:
        """New games: slot ``i`` plays the game seeded ``seed + i``, later games the next seeds."""
        self.engine.reset(seed)
        self._refresh()

    def _refresh(self) -> None:
        self.seats = self.engine.current.copy()
        self.observations = self.engine.observations()
        self.masks = self.engine.legal_masks()

    def step(self, actions) -> tuple[np.ndarray, np.ndarray]:
        res = self.engine.step(np.asarray(actions, dtype=np.int64))
        rewards = round_rewards(res, self.reward, self.episode)
        ended = res.game_over | (res.round_over if self.episode == "round" else False)
        if ended.any():
            self.last_ranking[res.game_over] = res.places[res.game_over]
            self.engine.reset_games(ended)
        self._refresh()
        return rewards, ended
