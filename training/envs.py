"""Environment factories of ``yaniv train``: the training environments (the game's Gym
wrapper with the opponent sampler, Monitor, hand shaping and advice) and the vectorised
evaluation environments of the league gate.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from training.config import game_rules

if TYPE_CHECKING:
    from training.train import Args


def _learner_seat(spec: str) -> str | int:
    return spec if spec == "random" else int(spec)


def make_env(args: Args, rank: int, seed: int, monitor_path: str | None, mix, subprocess: bool = False):
    """A thunk building one training environment (for the VecEnv)."""

    def thunk():
        import gymnasium
        from stable_baselines3.common.monitor import Monitor

        import yaniv_env  # noqa: F401  (registers the environments)
        from agents.advice import AdviceWrapper
        from training.league import HandShaping, OpponentSampler
        from yaniv_env.games import get_game

        threads = None
        if subprocess:
            threads = 1
            if args.league:
                import torch

                torch.set_num_threads(1)
        env = gymnasium.make(
            get_game(args.game).env_id,
            rules=game_rules(args),
            num_players=args.num_players,
            learner_seat=_learner_seat(args.learner_seat),
            episode=args.episode,
            reward=args.reward,
            turn_limit=args.turn_limit,
            disable_env_checker=True,
        ).unwrapped
        env = OpponentSampler(
            env,
            mix,
            seed=seed + rank,
            league_prob=args.league_prob if args.league else 0.0,
            pool_deterministic=args.league_deterministic,
            torch_threads=threads,
        )
        if monitor_path is not None:
            env = Monitor(env, monitor_path, info_keywords=("opponent",))
        if args.shaping:
            env = HandShaping(env, coef=args.shaping, gamma=args.gamma)
        if args.advice:
            env = AdviceWrapper(env, args.advice, seed=seed + 7 * rank + 3)
        return env

    return thunk


def make_eval_env(args: Args, opponent, n: int, seed: int):
    """A DummyVecEnv of ``n`` environments against one opponent (a name or a policy),
    rewarding placement only."""
    import gymnasium
    from stable_baselines3.common.vec_env import DummyVecEnv

    from agents.advice import AdviceWrapper
    from training.league import OpponentSampler
    from yaniv_env.games import get_game

    def thunk(i):
        def make():
            env = gymnasium.make(
                get_game(args.game).env_id,
                rules=game_rules(args),
                num_players=args.num_players,
                learner_seat="random",
                episode=args.eval_episode or args.episode,
                reward="outcome",
                turn_limit=args.turn_limit,
                disable_env_checker=True,
            ).unwrapped
            env = OpponentSampler(env, [(opponent, 1.0)], seed=seed + i)
            return AdviceWrapper(env, args.advice, seed=seed + i) if args.advice else env

        return make

    venv = DummyVecEnv([thunk(i) for i in range(n)])
    venv.seed(seed)
    return venv


def evaluate_against(model, args: Args, venv, games: int, seed: int) -> dict:
    """Mean placement reward (+1 first, -1 last) and first-place rate over ``games`` episodes."""
    from sb3_contrib.common.maskable.evaluation import evaluate_policy

    venv.seed(seed)
    rewards, lengths = evaluate_policy(
        model, venv, n_eval_episodes=games, deterministic=True, return_episode_rewards=True, warn=False
    )
    r = np.asarray(rewards, dtype=float)
    return {
        "outcome": float(r.mean()),
        "outcome_se": float(r.std(ddof=1) / math.sqrt(len(r))) if len(r) > 1 else 0.0,
        "first": float((r >= 1.0 - 1e-9).mean()),
        "length": float(np.mean(lengths)),
        "episodes": len(r),
    }
