"""Environment factories of ``yaniv train``: the training environments (the evaluations,
the league gate's included, play through :mod:`agents.evaluation`).

The training environments come in two kinds (``--vec-env``), with the same games and
rewards (opponents drawn per episode from the mix, monitor, advice, and hand shaping on top
of them all, :class:`VecHandShaping`, one implementation for both kinds):

* ``batched``: :class:`yaniv_env.yaniv.batched.sb3.YanivVecEnv`, B games stepped together on the
  batched engine with the opponents acting in batch, under the SB3 wrappers
  :class:`VecOpponentPool` (``--league``: the self-play pool, each member acting in batch),
  ``VecMonitor``, :class:`VecHandShaping` and :class:`VecAdvice` (Yaniv only);
* ``dummy`` / ``subproc``: one :class:`yaniv_env.yaniv.gym_env.YanivGymEnv` per environment
  under :class:`training.league.OpponentSampler`, ``Monitor`` and
  :class:`agents.advice.AdviceWrapper`, in SB3's ``DummyVecEnv`` or ``SubprocVecEnv``, under
  :class:`VecHandShaping`.

``auto`` (the default) is ``batched`` where it can run (:func:`training.plan.vec_env_kind`),
else ``dummy``. Everything is built from an :class:`EnvSpec`, the values :mod:`training.plan`
resolved.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnvWrapper, VecMonitor

from agents.advice import AdviceWrapper, advise, advised_space, make_advisor, with_advice
from agents.batched import batched
from training.league import OpponentSampler, Snapshots
from yaniv_env.games import game_of, get_game
from yaniv_env.yaniv.rules import Rules


@dataclass(frozen=True)
class EnvSpec:
    """What a training environment is: the game, its rules and reward, the wrappers' settings
    and the opponent mix (from :func:`training.plan.make_plan`)."""

    game: str
    rules: Rules
    """The run's rules (as its checkpoints record them: without the environment's turn limit)."""
    learner_seat: str | int
    episode: str
    reward: str
    turn_limit: int | None
    shaping: float
    gamma: float
    advice: str
    mix: tuple[tuple[str, float], ...]
    league: bool
    league_prob: float
    league_deterministic: bool
    gate_episode: str
    """The episode of the league gate's games (:func:`training.callbacks.gate_score`)."""


def make_train_venv(spec: EnvSpec, seed: int, n_envs: int, monitor_prefix: str | None, kind: str, advice_seed: int):
    """The training VecEnv of ``kind`` (``batched``, ``dummy`` or ``subproc``): ``n_envs``
    environments seeded from ``seed`` (environment ``i``: ``seed + i``), the advisor from
    ``advice_seed``, with a monitor file per environment (one for the batch) named from
    ``monitor_prefix`` (``None``: no monitor)."""
    if kind != "batched":
        subprocess = kind == "subproc" and n_envs > 1
        paths = [None if monitor_prefix is None else f"{monitor_prefix}_{i:02d}" for i in range(n_envs)]
        fns = [make_env(spec, i, seed, paths[i], advice_seed, subprocess) for i in range(n_envs)]
        venv = SubprocVecEnv(fns) if subprocess else DummyVecEnv(fns)
        return VecHandShaping(venv, coef=spec.shaping, gamma=spec.gamma) if spec.shaping else venv
    from yaniv_env.yaniv.batched.sb3 import YanivVecEnv  # loads Numba: only for the batched engine

    venv = YanivVecEnv(
        spec.rules,
        n_envs,
        num_players=spec.rules.num_players,
        opponent_mix=list(spec.mix),
        learner_seat=spec.learner_seat,
        episode=spec.episode,
        reward=spec.reward,
        turn_limit=spec.turn_limit,
    )
    venv.seed(seed)
    if spec.league:
        venv = VecOpponentPool(
            venv, spec.league_prob, seed=seed, pool_deterministic=spec.league_deterministic, pool_rules=spec.rules
        )
    if monitor_prefix is not None:
        venv = VecMonitor(venv, f"{monitor_prefix}_batched", info_keywords=("opponent",))
    if spec.shaping:
        venv = VecHandShaping(venv, coef=spec.shaping, gamma=spec.gamma)
    if spec.advice:
        venv = VecAdvice(venv, spec.advice, seed=advice_seed)
    return venv


class VecOpponentPool(VecEnvWrapper):
    """The self-play pool of :class:`training.league.OpponentSampler` for a
    :class:`yaniv_env.yaniv.batched.sb3.YanivVecEnv` (wrapped directly; the baselines are the
    environment's ``opponent_mix``; ``pool_rules`` as :class:`training.league.OpponentSampler`'s).

    ``set_pool(paths)`` (also through ``env_method("set_pool", paths)`` from any wrapper
    above it, as the league callback and ``--resume`` call it) loads the snapshots as
    :meth:`training.league.OpponentSampler.set_pool` does (:class:`training.league.Snapshots`:
    already loaded ones are kept; each new one seeded from this wrapper's generator,
    ``pool_deterministic`` for arg-max play) and hands them, as
    :class:`agents.batched.BatchedTrained`, to the environment
    (:meth:`yaniv_env.yaniv.batched.envs.LearnerGames.set_pool`) with ``league_prob``: from the
    next episodes on, each other seat of a slot is, with probability ``league_prob``, a pool
    member drawn uniformly, else a baseline drawn by weight
    (:func:`yaniv_env.core.opponents.draw_opponents`, as on the wrapper path);
    ``info["opponent"]`` says ``"pool"`` for it, as on the wrapper path. Each member acts in
    one forward pass per opponent step over all the games where it sits.

    The same distribution as :class:`training.league.OpponentSampler`, not the same draws:
    the batched environment draws from each slot's generator (which also seats and deals),
    the wrapper path from a generator of its own per environment; and a member is one agent
    for the whole batch (sampling from one generator), where the wrapper path loads one per
    environment.
    """

    def __init__(
        self,
        venv,
        league_prob: float,
        seed: int = 0,
        pool_deterministic: bool = False,
        torch_threads: int | None = None,
        pool_rules=None,
    ):
        super().__init__(venv)
        self.league_prob = float(league_prob)
        self.rng = np.random.default_rng(seed)
        rules = venv.get_attr("rules")[0] if pool_rules is None else pool_rules
        self.snapshots = Snapshots(rules, pool_deterministic, torch_threads, member=batched)

    @property
    def pool(self) -> list:
        """The pool's members, batched (:class:`agents.batched.BatchedTrained`)."""
        return self.snapshots.members

    def set_pool(self, paths: list[str]) -> int:
        """Replace the pool by these checkpoints (already loaded ones are kept); returns its size."""
        return self.venv.set_pool(self.snapshots.load(paths, self.rng), self.league_prob)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
        if method_name == "set_pool":  # one pool for the batch (OpponentSampler: one per env)
            size = self.set_pool(*method_args, **method_kwargs)
            return [size] * len(self._get_indices(indices))
        return self.venv.env_method(method_name, *method_args, indices=indices, **method_kwargs)

    def reset(self):
        return self.venv.reset()

    def step_wait(self):
        return self.venv.step_wait()


def hand_potential_weights(rules, coef: float) -> np.ndarray:
    """``w`` (float64, the observation's size) such that ``observation @ w`` is the shaping
    potential ``Φ = -coef · hand total / 100`` of :class:`VecHandShaping` and of the lean
    learner (:mod:`training.ppo`); an advice column appended to the observation is not read."""
    game = game_of(rules)
    layout = game.observation_layout(rules)
    w = np.zeros(layout.size)
    w[layout.pieces["hand"].slice] = -coef * np.asarray(game.card_values(rules), dtype=np.float64) / 100.0
    return w


class VecHandShaping(VecEnvWrapper):
    """Potential-based reward shaping (Ng et al., 1999) with ``Φ(s) = -coef · hand total / 100``,
    for every kind of training environment.

    The hand total is what the game scores a hand at (:meth:`yaniv_env.games.Game.card_values`):
    Yaniv card values, or Pis Yedili penalty points (J 25, 7 20, A 15, ...). Each step adds
    ``γ·Φ(s') - Φ(s)`` (``Φ = 0`` at an episode's end; the next episode starts from the
    potential of its first observation), so throwing points is rewarded at once and taking
    cards penalised at once, while the sum over an episode telescopes to ``-Φ(s_0)``, the
    same for every policy: the optimal policy is unchanged. It sits outside the monitors, so
    that the logs keep the environment's own reward; ``info["unshaped_reward"]`` has it too.
    The hand is read from the observation's ``hand`` piece, so an advice column appended
    after it changes nothing."""

    def __init__(self, venv, coef: float = 1.0, gamma: float = 0.995):
        super().__init__(venv)
        self._weights = hand_potential_weights(venv.get_attr("rules")[0], float(coef))
        self.coef = float(coef)
        self.gamma = float(gamma)
        self._phi = np.zeros(self.num_envs)

    def potential(self, obs: np.ndarray) -> np.ndarray:
        return obs[:, : len(self._weights)] @ self._weights

    def reset(self):
        obs = self.venv.reset()
        self._phi = self.potential(obs)
        return obs

    def step_wait(self):
        obs, rewards, dones, infos = self.venv.step_wait()
        phi = self.potential(obs)  # after an end: the next episode's first observation
        shaped = rewards + self.gamma * np.where(dones, 0.0, phi) - self._phi
        self._phi = phi
        for info, reward in zip(infos, rewards, strict=True):
            info["unshaped_reward"] = float(reward)
        return obs, shaped.astype(np.float32), dones, infos


class VecAdvice(VecEnvWrapper):
    """:class:`agents.advice.AdviceWrapper` for a whole VecEnv: the advisor's move for each
    learner appended to every observation (:func:`agents.advice.advise`; 0 on a terminal
    observation, where nothing is legal)."""

    def __init__(self, venv, advisor: str, seed: int | None = None):
        super().__init__(venv, observation_space=advised_space(venv.observation_space, venv.action_space.n))
        self.advisor = make_advisor(advisor, venv.get_attr("rules")[0], seed)

    def _advise(self, obs: np.ndarray) -> np.ndarray:
        return advise(self.advisor, obs, np.asarray(self.venv.env_method("action_masks"), dtype=bool))

    def reset(self):
        return self._advise(self.venv.reset())

    def step_wait(self):
        obs, rewards, dones, infos = self.venv.step_wait()
        for info in infos:
            final = info.get("terminal_observation")
            if final is not None:
                info["terminal_observation"] = with_advice(final[None], np.array([-1]))[0]
        return self._advise(obs), rewards, dones, infos


def make_env(spec: EnvSpec, rank: int, seed: int, monitor_path: str | None, advice_seed: int, subprocess: bool):
    """A thunk building training environment ``rank`` (for the VecEnv)."""

    def thunk():
        import gymnasium
        from stable_baselines3.common.monitor import Monitor

        import yaniv_env  # noqa: F401  (registers the environments)

        threads = None
        if subprocess:
            threads = 1
            if spec.league:
                import torch

                torch.set_num_threads(1)
        env = gymnasium.make(
            get_game(spec.game).env_id,
            rules=spec.rules,
            num_players=spec.rules.num_players,
            learner_seat=spec.learner_seat,
            episode=spec.episode,
            reward=spec.reward,
            turn_limit=spec.turn_limit,
            disable_env_checker=True,
        ).unwrapped
        env = OpponentSampler(
            env,
            list(spec.mix),
            seed=seed + rank,
            league_prob=spec.league_prob if spec.league else 0.0,
            pool_deterministic=spec.league_deterministic,
            torch_threads=threads,
            pool_rules=spec.rules,
        )
        if monitor_path is not None:
            env = Monitor(env, monitor_path, info_keywords=("opponent",))
        if spec.advice:
            env = AdviceWrapper(env, spec.advice, seed=advice_seed + rank)
        return env

    return thunk
