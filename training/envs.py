"""Environment factories of ``yaniv train``: the training environments (the evaluations,
the league gate's included, play through :mod:`agents.evaluation`).

The training environments come in two kinds (``--vec-env``), with the same games, rewards
and observations, under one set of SB3 wrappers:

* ``batched``: :class:`yaniv_env.yaniv.batched.sb3.YanivVecEnv`, B games stepped together on the
  batched engine with the opponents acting in batch (Yaniv only), under ``VecMonitor``;
* ``dummy`` / ``subproc``: one :class:`yaniv_env.yaniv.gym_env.YanivGymEnv` (or
  :class:`yaniv_env.pis_yedili.gym_env.PisYediliGymEnv`) per environment under ``Monitor``,
  in SB3's ``DummyVecEnv`` or ``SubprocVecEnv``.

Either way the environments draw each episode's opponents themselves from the mix
(``opponent_mix``, from each game's own generator: :func:`yaniv_env.core.opponents.draw_opponents`)
and name them in ``info["opponent"]``, which the monitors log. On top of them, for both kinds:
:class:`VecOpponentPool` (``--league``: loads the self-play pool's snapshots and hands them to
the environments' ``set_pool``), :class:`VecHandShaping` and :class:`VecAdvice`, outermost, so
that the monitors log the environments' own rewards and the advice column is appended last.

``auto`` (the default) is ``batched`` where it can run (:func:`training.plan.vec_env_kind`),
else ``dummy``. Everything is built from an :class:`EnvSpec`, the values :mod:`training.plan`
resolved.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnvWrapper, VecMonitor

from agents.advice import advise, advised_space, make_advisor, with_advice
from training.league import SelfPlayPool
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
    if kind == "batched":
        from yaniv_env.yaniv.batched.sb3 import YanivVecEnv  # loads Numba: only for the batched engine

        venv = YanivVecEnv(spec.rules, n_envs, **_env_kwargs(spec))
        if monitor_prefix is not None:
            venv = VecMonitor(venv, f"{monitor_prefix}_batched", info_keywords=("opponent",))
    else:
        subprocess = kind == "subproc" and n_envs > 1
        paths = [None if monitor_prefix is None else f"{monitor_prefix}_{i:02d}" for i in range(n_envs)]
        fns = [make_env(spec, paths[i], subprocess) for i in range(n_envs)]
        venv = SubprocVecEnv(fns) if subprocess else DummyVecEnv(fns)
    venv.seed(seed)
    if spec.league:
        venv = VecOpponentPool(
            venv, spec.league_prob, seed=seed, pool_deterministic=spec.league_deterministic, pool_rules=spec.rules
        )
    if spec.shaping:
        venv = VecHandShaping(venv, coef=spec.shaping, gamma=spec.gamma)
    if spec.advice:
        venv = VecAdvice(venv, spec.advice, seed=advice_seed)
    return venv


def _env_kwargs(spec: EnvSpec) -> dict:
    """The environment's arguments after the rules, the same for both kinds."""
    return dict(
        num_players=spec.rules.num_players,
        opponent_mix=list(spec.mix),
        learner_seat=spec.learner_seat,
        episode=spec.episode,
        reward=spec.reward,
        turn_limit=spec.turn_limit,
    )


def make_env(spec: EnvSpec, monitor_path: str | None, subprocess: bool):
    """A thunk building one Gymnasium training environment (for ``DummyVecEnv`` or, with
    ``subprocess``, ``SubprocVecEnv``) under ``Monitor`` (``monitor_path`` ``None``: none)."""

    def thunk():
        import gymnasium
        from stable_baselines3.common.monitor import Monitor

        import yaniv_env  # noqa: F401  (registers the environments)

        if subprocess and spec.league:
            import torch

            torch.set_num_threads(1)  # the pool's members act in this process
        env = gymnasium.make(
            get_game(spec.game).env_id, rules=spec.rules, disable_env_checker=True, **_env_kwargs(spec)
        ).unwrapped
        return env if monitor_path is None else Monitor(env, monitor_path, info_keywords=("opponent",))

    return thunk


class VecOpponentPool(VecEnvWrapper):
    """The self-play pool (``--league``) of any training VecEnv whose environments have
    ``set_pool(policies, probability)``: :meth:`yaniv_env.yaniv.batched.envs.LearnerGames.set_pool`
    (``batched``, once for the batch) or :meth:`yaniv_env.core.gym.CardGameGymEnv.set_pool`
    (``dummy``/``subproc``, each environment). The baselines are the environments' own
    ``opponent_mix``; ``pool_rules``: the rules the snapshots were trained for (default: the
    environments'; ``yaniv train`` gives the run's, which have no ``--turn-limit``).

    ``set_pool(paths)`` (also through ``env_method("set_pool", paths)`` from any wrapper
    above it, as the league callback and ``--resume`` call it) loads the snapshots
    (:meth:`training.league.SelfPlayPool.load`: already loaded ones are kept; each new one
    seeded from the pool's generator, seeded by ``seed``; ``pool_deterministic`` for arg-max
    play) and hands them,
    with ``league_prob``, to every environment: from their next episodes on, each other seat
    is, with probability ``league_prob``, a pool member drawn uniformly from the game's own
    generator, else a baseline drawn by weight; ``info["opponent"]`` says ``"pool"`` for it.

    A member is one agent (one network, one generator) for all the games of a process: on
    the batched engine it acts in one forward pass per opponent step over all the games
    where it sits; in a ``SubprocVecEnv`` each process receives a copy of it.
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
        rules = venv.get_attr("rules")[0] if pool_rules is None else pool_rules
        self.snapshots = SelfPlayPool(rules, seed=seed, deterministic=pool_deterministic, torch_threads=torch_threads)

    @property
    def pool(self) -> list:
        """The pool's members (:class:`agents.trained.TrainedAgent`)."""
        return self.snapshots.members

    def set_pool(self, paths: list[str]) -> int:
        """Replace the pool by these checkpoints (already loaded ones are kept) in every
        environment; returns its size."""
        self.env_method("set_pool", paths)
        return len(self.pool)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
        if method_name == "set_pool":  # checkpoint paths: loaded here, once for all the environments
            members = self.snapshots.load(*method_args, **method_kwargs)
            return self.venv.env_method("set_pool", members, self.league_prob, indices=indices)
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


def shaped_rewards(
    rewards: np.ndarray, potential: np.ndarray, next_potential: np.ndarray, ended: np.ndarray, gamma: float
) -> np.ndarray:
    """Potential-based shaping (Ng et al., 1999) of the rewards of some decisions:
    ``r + γ·Φ(s')·(1 − ended) − Φ(s)``, with ``potential`` Φ of each decision's observation and
    ``next_potential`` Φ of its successor's (ignored where the episode ``ended``: Φ = 0
    there). Over an episode the discounted sum of the shaping terms telescopes to ``−Φ(s_0)``,
    the same for every policy. :class:`VecHandShaping` and the lean learner's advantages
    (:func:`training.ppo.advantages`) shape with it."""
    return rewards + gamma * np.where(ended, 0.0, next_potential) - potential


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
        shaped = shaped_rewards(rewards, self._phi, phi, dones, self.gamma)
        self._phi = phi
        for info, reward in zip(infos, rewards, strict=True):
            info["unshaped_reward"] = float(reward)
        return obs, shaped.astype(np.float32), dones, infos


class VecAdvice(VecEnvWrapper):
    """The advisor's move for each learner appended to every observation of any training
    VecEnv (:func:`agents.advice.advise`, one advisor for the batch; 0 on a terminal
    observation, where nothing is legal). It reads the masks through
    ``env_method("action_masks")`` and the rules through ``get_attr("rules")``, so it sits
    outermost, above the monitors (which log the environments' rewards) and the shaping (which
    reads the observation's hand piece, before the advice column)."""

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
