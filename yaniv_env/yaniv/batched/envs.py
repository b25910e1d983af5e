"""Vector environments on the batched engine: B learner games stepped together.

.. code-block:: python

    import numpy as np
    from sb3_contrib import MaskablePPO
    from yaniv_env.yaniv.batched.envs import YanivVectorEnv
    from yaniv_env.yaniv.batched.sb3 import YanivVecEnv

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
                    returns bool ``[B, A]``, also through ``env_method("action_masks")``;
                    defined in :mod:`yaniv_env.yaniv.batched.sb3` (this module imports it on first
                    use, so ``YanivVectorEnv`` needs neither SB3 nor torch)
BatchedSelfPlay     every seat of every game is the caller's: the acting seat, observations and
                    masks of B games, and per-seat rewards, for one network playing all seats
==================  ==========================================================================

Each game of a learner environment is the game :class:`yaniv_env.yaniv.gym_env.YanivGymEnv` plays
(same arguments: ``rules``, ``num_players``, ``opponents`` or ``opponent_mix``,
``learner_seat`` (a seat or ``"random"``), ``episode`` (``"game"``/``"round"``), ``reward``
(``score``, ``outcome``, ``round_win``, ``score_outcome``), ``turn_limit``), with the same
rewards: slot ``i`` after ``reset(seed=s)`` plays the episodes a ``YanivGymEnv`` reset with
``seed=s + i`` and then without a seed would play (same seats, same deals, same opponents'
decisions for the random, greedy and heuristic opponents: :mod:`agents.batched`), and the
same redeal when the opponents end an episode before the learner's first decision. Difference: in ``"round"``
episodes the last observation shows the next round dealt (the batched engine starts it at
once), not the finished round.

Bad input: the whole batch of actions is checked before any game moves
(:func:`check_actions`, for the three classes; SB3's ``step_async`` only stores the
actions, ``step_wait`` checks them first). An action the mask forbids, a negative or
out-of-range id, a non-integer (floats, even ``3.0``; bools; NaN; strings; objects) or
an array of another shape raises ``ValueError`` naming the game, the action and its legal
ones, and no game changes. Actions are integer arrays (any width: MaskablePPO's int64,
``uint16``...) or sequences of ints; a policy that outputs floats is cast by its caller.
``num_envs`` is a positive int (not ``True`` or ``2.0``).

Per game: ``YanivVecEnv.env_method``/``get_attr``/``set_attr`` honour ``indices``, and
``YanivVectorEnv`` has Gymnasium's ``call``/``get_attr``/``set_attr`` (:class:`GameAccess`):
``reset`` restarts only the games named (``env_method("reset", indices=[0], seed=s)``
plays in game 0 what ``YanivGymEnv.reset(seed=s)`` would; Gymnasium's
``reset(options={"reset_mask": mask})`` likewise), ``action_masks`` and ``seat`` answer per
game. Other methods and attributes are the batch's: read for any games, but called or set
for the whole batch only (``ValueError`` for some games).

Opponents (one spec per other seat, or one for all) are agent names, agent objects or
batched agents (``act_batch``); the random, greedy, heuristic and trained agents act in
batch (:func:`agents.batched.batched`), any other object row by row. Instead of fixed seats,
``opponent_mix=[(spec, weight), ...]`` draws each other seat's opponent for every episode
from the slot's generator, as ``YanivGymEnv`` draws from its own (the opponents of the episode
that ended are named in the SB3 ``infos[i]["opponent"]``, ``"+"``-joined in seat order, as
``yaniv train`` logs them).
:meth:`LearnerGames.set_pool` adds a replaceable self-play pool (``yaniv train --algo maskable_ppo --league``):
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

from ...core.ids import is_int
from ...core.opponents import (
    MAX_REDEALS,
    draw_opponents,
    mix_weights,
    opponent_label,
    pool_probability,
    seat_specs,
)
from ...core.policies import batched_policy
from ...core.seeding import opponent_seed, seeded_key
from ..actions import action_table
from ..rewards import check_reward
from ..rules import get_rules
from . import BatchedYaniv, round_rewards
from .engine import first_place_shares

# YanivVecEnv (Stable-Baselines3) lives in .sb3, which needs SB3 and torch; this module does not.
__all__ = ["LearnerGames", "YanivVectorEnv", "BatchedSelfPlay", "check_actions", "game_indices"]


def _opponent_table(opponents, opponent_mix, n: int, rules) -> tuple[list, list[str], np.ndarray | None, np.ndarray]:
    """The distinct batched opponents, their labels, the draw weights (``None``: fixed seats)
    and, for fixed seats, the opponent index of each other seat (``[n - 1]``)."""
    if opponent_mix is not None:
        specs, weights = mix_weights(opponent_mix, opponents)
        policies = [batched_policy(spec, rules=rules) for spec in specs]
        return policies, [opponent_label(spec) for spec in specs], weights, np.zeros(n - 1, np.int64)
    opponents = seat_specs("random" if opponents is None else opponents, n - 1)
    distinct: dict[int, int] = {}  # one object for repeated specs, so that a seat's batch is one call
    specs, seat_index = [], []
    for spec in opponents:
        if id(spec) not in distinct:
            distinct[id(spec)] = len(specs)
            specs.append(spec)
        seat_index.append(distinct[id(spec)])
    policies = [batched_policy(spec, rules=rules) for spec in specs]
    return policies, [opponent_label(spec) for spec in specs], None, np.array(seat_index, np.int64)


def _value(x) -> Any:
    """A NumPy scalar as the Python value it holds (for messages)."""
    return x.item() if isinstance(x, np.generic) else x


def check_actions(actions, masks: np.ndarray, table) -> np.ndarray:
    """``actions`` (one per game) as int64 ``[B]``, once every one is a legal action id of
    its game (``masks``: bool ``[B, A]``, ``table``: the action table naming the ids).
    Otherwise ``ValueError`` naming the first bad game, its action and the legal ones,
    before anything is played. Ids are integers: NumPy integer arrays of any width,
    sequences of ints, object arrays of ints. Floats are refused even when integer-valued
    (``3.0``: a policy that outputs floats is cast by its caller, on purpose), as are
    bools, NaN, strings and other objects, and any shape but ``[B]``."""
    B, A = masks.shape

    def refuse(b: int, what: str) -> ValueError:
        legal = ", ".join(f"{i} ({table.name(int(i))})" for i in np.flatnonzero(masks[b]))
        return ValueError(f"game {b}: {what}; legal: {legal}")

    shape_error = f"actions must be {B} action ids, one per game (shape ({B},)), got "
    if isinstance(actions, (list, tuple)):  # one by one: NumPy reads [3, True] as ints, [3, 1.5] as floats
        if len(actions) != B:
            raise ValueError(shape_error + f"{len(actions)}: {actions!r}")
        items = list(actions)
    else:
        arr = np.asarray(actions)
        if arr.shape != (B,):
            raise ValueError(shape_error + f"shape {arr.shape}")
        if arr.dtype.kind in "iu":
            items = None
        elif arr.dtype.kind == "O":
            items = list(arr)
        else:  # floats, bools, strings
            integral = np.isfinite(arr) & (arr == np.round(arr)) if arr.dtype.kind == "f" else np.ones(B, bool)
            b = int(np.argmin(integral))  # a fractional value first, else the first game
            raise refuse(
                b, f"action {_value(arr[b])!r} is not an action id (an int 0..{A - 1}; the actions are {arr.dtype})"
            )
    if items is None:
        in_range = (arr >= 0) & (arr < A)
        ids = np.where(in_range, arr, -1).astype(np.int64)
        shown = arr
    else:
        for b, a in enumerate(items):
            if not is_int(a):
                raise refuse(b, f"action {_value(a)!r} is not an action id (an int 0..{A - 1})")
        in_range = np.array([0 <= a < A for a in items], dtype=bool)
        ids = np.array([int(a) if ok else -1 for a, ok in zip(items, in_range, strict=True)], dtype=np.int64)
        shown = items
    legal = in_range.copy()
    legal[in_range] = masks[np.flatnonzero(in_range), ids[in_range]]
    if not legal.all():
        b = int(np.argmin(legal))
        a = _value(shown[b])
        name = table.name(int(a)) if in_range[b] else f"not an action id: the ids are 0..{A - 1}"
        raise refuse(b, f"illegal action {a} ({name})")
    return ids


def game_indices(indices, num_envs: int) -> np.ndarray:
    """The games ``indices`` names (``None``: all; an int; game indices; a bool mask of
    the batch) as an int64 array; ``ValueError`` for anything else or out of range."""
    if indices is None:
        return np.arange(num_envs)
    arr = np.asarray(indices)
    if arr.dtype == bool and arr.shape == (num_envs,):
        return np.flatnonzero(arr)
    arr = arr.reshape(-1) if arr.ndim == 0 else arr
    if arr.size == 0:
        return np.zeros(0, np.int64)
    if arr.ndim != 1 or arr.dtype.kind not in "iu" or ((arr < 0) | (arr >= num_envs)).any():
        raise ValueError(
            f"indices must be None, a game index, game indices in 0..{num_envs - 1} or a bool mask of "
            f"{num_envs} games, got {indices!r}"
        )
    return arr.astype(np.int64)


def _checked_rules(rules, num_players: int, episode: str, reward: str, turn_limit: int | None):
    """The rules of the games (``turn_limit`` applied), after checking ``episode`` and ``reward``."""
    check_reward(reward, episode)
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
        self.num_envs = B = self.engine.num_envs  # checked by the engine
        self.num_actions = self.engine.num_actions
        self._table = action_table(rules)
        self.policies, self.labels, self._weights, self._fixed = _opponent_table(opponents, opponent_mix, n, rules)
        self._num_baselines = len(self.policies)  # policies[:k]: the opponents; then the pool's
        self._pool = np.zeros(0, np.int64)  # the pool members' indices into policies
        self._pool_specs: list = []  # what set_pool was given for each member
        self.pool_probability = 0.0
        self.choice = np.tile(self._fixed, (B, 1))  # [B, n - 1]: index into policies, per other seat
        self.seats = np.zeros(B, np.int64)
        self.opponent_keys = np.zeros((B, n - 1), np.uint64)
        self._slot_rngs: list[np.random.Generator] = []
        self._carry = np.zeros(B)
        self._round_over = np.zeros(B, bool)
        #: bool ``[B]``, set by :meth:`step`: the games in which a round ended in that step
        #: (the learner's move or the opponents' after it), whether or not the episode did
        self.round_ended = np.zeros(B, bool)
        self._returns = np.zeros(B)
        self._lengths = np.zeros(B, np.int64)
        self._won = np.zeros(B)  # the learner's share of the first place, of episodes ending in a step
        self._masks = np.zeros((B, self.num_actions), bool)
        self._rows = np.arange(B)
        self.t_start = time.time()

    # -- episodes ------------------------------------------------------------------------
    def reset(self, seed: int | Sequence[int | None] | None = None, slots=None) -> np.ndarray:
        """New episodes in every game, or with ``slots`` (game indices or a bool mask, as
        :func:`game_indices` reads them) in those only, the others going on untouched.
        ``seed``: an int seeds game ``i`` with ``seed + i``, a sequence gives each game of
        the batch its seed (or ``None``), as Gymnasium's vector environments read it. A game
        reset without a seed continues from its own generator (as ``YanivGymEnv.reset()``);
        a whole reset without a seed draws fresh entropy. Returns every game's observation
        ``[B, S]``."""
        B = self.num_envs
        seeds = self._seeds(seed)
        chosen = np.zeros(B, bool)
        chosen[game_indices(slots, B)] = True
        if slots is None:
            self._slot_rngs = [None] * B  # type: ignore[list-item]  # each seeded below
        elif not self._slot_rngs:
            raise ValueError("reset() the whole batch before resetting some of its games")
        for b in np.flatnonzero(chosen):
            if slots is None or seeds[b] is not None:
                self._seed_game(int(b), seeds[b])
        self._returns[chosen] = 0.0
        self._lengths[chosen] = 0
        self._start(chosen)
        return self._observe()

    def _seeds(self, seed) -> list[int | None]:
        """One seed (or ``None``) per game from :meth:`reset`'s ``seed``."""
        B = self.num_envs
        if seed is None or (isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_))):
            return [None if seed is None else int(seed) + i for i in range(B)]
        seeds = list(seed) if isinstance(seed, Sequence) and not isinstance(seed, str) else None
        if (
            seeds is None
            or len(seeds) != B
            or not all(
                s is None or (isinstance(s, (int, np.integer)) and not isinstance(s, (bool, np.bool_))) for s in seeds
            )
        ):
            raise ValueError(f"seed must be None, an int or {B} ints (or None), one per game, got {seed!r}")
        return [None if s is None else int(s) for s in seeds]

    def _seed_game(self, b: int, seed: int | None) -> None:
        """Game ``b``'s generator and opponents' keys, as ``YanivGymEnv.reset(seed)`` seeds its own."""
        self._slot_rngs[b] = np.random.default_rng(seed)
        for j in range(self.num_players - 1):
            self.opponent_keys[b, j] = seeded_key(None if seed is None else opponent_seed(seed, j))

    def _start(self, slots: np.ndarray) -> None:
        """New episodes in ``slots`` (bool [B]): seat and deal from each slot's generator, the
        opponents played up to the learner's first decision, redealt if they end it first."""
        n = self.num_players
        for b in np.flatnonzero(slots):
            rng = self._slot_rngs[b]
            self.seats[b] = int(rng.integers(n)) if self.learner_seat == "random" else self.learner_seat
            # the pool's members are indices into policies, as the mix's opponents are
            self.choice[b] = draw_opponents(rng, n - 1, self._weights, self._pool, self.pool_probability, self._fixed)
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
        self._round_over |= res.round_over & rows
        rewards = round_rewards(res, self.reward, self.episode)[self._rows, self.seats]
        over, trunc = self._learner_ends(res, rows)
        self._won[over] = first_place_shares(res, self.episode)[self._rows, self.seats][over]
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
        policy registry: objects with ``act_batch`` are used as they are; an object already in
        the pool keeps its batched version) and the probability that an other seat is drawn
        from it. From the next episodes on, each other seat is, with probability
        ``probability`` when the pool is not empty, a pool member drawn uniformly (labelled
        ``label``), else an opponent of the mix (or its fixed one). The episodes under way
        keep their opponents (members that left the pool play them out). Returns the pool's
        size. :meth:`yaniv_env.core.gym.CardGameGymEnv.set_pool` is the same for one game."""
        probability = pool_probability(probability)
        given = list(policies)
        made = {id(spec): member for spec, member in zip(self._pool_specs, self.pool, strict=True)}
        for spec in given:
            if id(spec) not in made:
                made[id(spec)] = batched_policy(spec, rules=self.rules)
        pool = [made[id(spec)] for spec in given]
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
        self._pool_specs = given  # what each member was made from (kept: their ids stay theirs)
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
        ``final_observations[ended]`` the last ones). The ended episodes' returns, learner decisions,
        opponents and the learner's share of the first place (:func:`first_place_shares`) are in
        ``ended_returns``, ``ended_lengths``, ``ended_opponents`` and ``ended_won``."""
        if not self._slot_rngs:
            raise RuntimeError("step() before reset(): call reset() first")
        actions = check_actions(actions, self._masks, self._table)
        everyone = np.ones(self.num_envs, bool)
        self._round_over[:] = False
        self._won[:] = 0.0
        r, over, trunc = self._engine_step(actions, everyone)
        r += self._carry
        self._carry[:] = 0.0
        more, o2, t2 = self._play_opponents(everyone & ~over)
        rewards = r + more
        over |= o2
        trunc |= t2
        self._returns += rewards
        self._lengths += 1
        self.round_ended = self._round_over.copy()  # before a redeal's opponents play on
        final = None
        if over.any():
            final = self.engine.observations(self.seats)
            self.ended_returns = self._returns[over].copy()
            self.ended_lengths = self._lengths[over].copy()
            self.ended_won = self._won[over].copy()
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


class GameAccess:
    """Methods and attributes over some games of a vector environment of
    :class:`LearnerGames` (SB3's ``env_method``/``get_attr``/``set_attr`` with
    ``indices``, Gymnasium's ``call``/``get_attr``/``set_attr``). What is each game's own
    answers per game: ``reset`` starts new episodes in the games named only (each given
    the same ``seed``, as every environment of a ``DummyVecEnv`` would be), ``action_masks``
    gives their rows, the attribute ``seat`` their learner seats. Everything else is the
    batch's, one object for all games: it is read for any games, but called or set only
    for the whole batch (once); for some games only, ``ValueError``."""

    games: LearnerGames
    #: Attributes each game has its own value of, read-only here.
    _per_game_attributes = ("seat", "action_masks")

    def _call_games(self, name: str, indices, args: tuple, kwargs: dict) -> list:
        games = game_indices(indices, self.games.num_envs)
        if name == "reset":
            return self._reset_games(games, *args, **kwargs)
        if name == "action_masks":  # rows of one array (sb3_contrib's get_action_masks stacks them)
            masks = self.games.action_masks()
            return masks if indices is None else masks[games]
        attr = getattr(self, name)
        if not callable(attr):
            return [attr for _ in games]
        self._whole_batch(name, games, "called")
        result = attr(*args, **kwargs)
        return [result for _ in games]

    def _reset_games(self, games: np.ndarray, seed: int | None = None, options: dict | None = None) -> list:
        seeds = None if seed is None else [seed] * self.games.num_envs
        obs = self.games.reset(seeds, slots=games)
        return [(obs[b], {}) for b in games]

    def _get_games(self, name: str, indices) -> list:
        games = game_indices(indices, self.games.num_envs)
        if name == "seat":
            return [int(self.games.seats[b]) for b in games]
        value = getattr(self, name)
        return [value for _ in games]

    def _set_games(self, name: str, value, indices) -> None:
        games = game_indices(indices, self.games.num_envs)
        if name in self._per_game_attributes:
            raise ValueError(f"{name!r} is read-only")
        self._whole_batch(name, games, "set")
        setattr(self, name, value)

    def _whole_batch(self, name: str, games: np.ndarray, what: str) -> None:
        if len(np.unique(games)) != self.games.num_envs:
            raise ValueError(
                f"{name!r} belongs to the whole batch of {self.games.num_envs} games and can only be {what} for "
                f"all of them, not for the games {games.tolist()} (per game: reset, action_masks, seat)"
            )


class YanivVectorEnv(GameAccess, gymnasium.vector.VectorEnv):
    """A Gymnasium vector environment of :class:`LearnerGames` (same-step autoreset; see the
    module docstring). Keyword arguments: those of :class:`LearnerGames`.
    ``reset(seed=..., options={"reset_mask": mask})`` starts new episodes in the games of
    ``mask`` only (as Gymnasium's ``SyncVectorEnv``); :meth:`call`, :meth:`get_attr` and
    :meth:`set_attr` as :class:`GameAccess` answers them."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, rules="standard", num_envs: int = 16, **kwargs):
        self.games = LearnerGames(rules, num_envs, **kwargs)
        self.rules = self.games.rules
        self.num_envs = self.games.num_envs
        self.single_observation_space, self.single_action_space = _spaces(self.games)
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, self.num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, self.num_envs)

    def reset(self, *, seed: int | Sequence[int | None] | None = None, options: dict | None = None):
        mask = None if options is None else options.get("reset_mask")
        if mask is not None:
            mask = np.asarray(mask)
            if mask.dtype != bool or mask.shape != (self.num_envs,) or not mask.any():
                raise ValueError(
                    f"options['reset_mask'] must be a bool array of {self.num_envs} games with a True, got {mask!r}"
                )
        else:
            super().reset(seed=seed if isinstance(seed, int) else None)
        return self.games.reset(seed, slots=mask), {}

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

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """One result per game: ``name`` called (or read) as :class:`GameAccess` says."""
        return tuple(self._call_games(name, None, args, kwargs))

    def get_attr(self, name: str) -> tuple[Any, ...]:
        """One value per game of the attribute ``name``."""
        return tuple(self._get_games(name, None))

    def set_attr(self, name: str, values: list[Any] | tuple[Any, ...] | Any) -> None:
        """Set the batch's attribute ``name``: one value, or one per game (all the same:
        the games share it; ``ValueError`` otherwise)."""
        if isinstance(values, (list, tuple)):
            if len(values) != self.num_envs:
                raise ValueError(f"set_attr({name!r}): {len(values)} values for {self.num_envs} games")
            if any(v is not values[0] and not _equal(v, values[0]) for v in values):
                raise ValueError(f"set_attr({name!r}): the games share one {name}, got different values {values!r}")
            values = values[0]
        self._set_games(name, values, None)


def _equal(a, b) -> bool:
    try:
        return bool(a == b)
    except (ValueError, TypeError):  # arrays and other values without one truth value
        return False


class BatchedSelfPlay:
    """B games where the caller acts for every seat (one network playing all seats).

    ``reset(seed)`` then, repeatedly, ``seats, obs, masks = sp.seats, sp.observations,
    sp.masks`` and ``rewards, ended = sp.step(actions)``: ``seats`` (int ``[B]``) is the
    acting seat of each game, ``observations``/``masks`` are from that seat; ``rewards``
    (float ``[B, n]``) are every seat's AEC rewards earned in the step (``reward`` scheme and
    ``episode`` as the environments), ``ended`` (bool ``[B]``) the games whose episode ended
    in it (their final ranking is ``last_ranking[ended]``, each seat's share of the first place
    ``ended_won``, ``[ended games, n]``); those games restart at once.
    ``round_ended`` (bool ``[B]``) marks the games in which the step ended a round.
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
        self.engine = BatchedYaniv(rules, num_envs=num_envs, seed=0)
        self.num_envs = num_envs = self.engine.num_envs  # checked by the engine
        self.episode = episode
        self.reward = reward
        self.last_ranking = np.zeros((num_envs, rules.num_players), np.int64)
        self.round_ended = np.zeros(num_envs, bool)
        self.masks: np.ndarray | None = None  # set by reset()

    def reset(self, seed: int | None = None) -> None:
        """New games: slot ``i`` plays the game seeded ``seed + i``, later games the next seeds."""
        self.engine.reset(seed)
        self._refresh()

    def _refresh(self) -> None:
        self.seats = self.engine.current.copy()
        self.observations = self.engine.observations()
        self.masks = self.engine.legal_masks()

    def step(self, actions) -> tuple[np.ndarray, np.ndarray]:
        """The acting seats' actions ``[B]`` (checked as :func:`check_actions` does: an
        illegal one raises ``ValueError`` and no game changes) -> ``(rewards, ended)``."""
        if self.masks is None:
            raise RuntimeError("step() before reset(): call reset() first")
        res = self.engine.step(check_actions(actions, self.masks, self.engine.table))
        rewards = round_rewards(res, self.reward, self.episode)
        self.round_ended = res.round_over.copy()
        ended = res.game_over | (res.round_over if self.episode == "round" else False)
        if ended.any():
            self.last_ranking[res.game_over] = res.places[res.game_over]
            self.ended_won = first_place_shares(res, self.episode)[ended]
            self.engine.reset_games(ended)
        self._refresh()
        return rewards, ended
