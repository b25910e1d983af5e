"""``YanivVecEnv``: the Stable-Baselines3 ``VecEnv`` of :class:`~yaniv_env.yaniv.batched.envs.LearnerGames`
(see :mod:`yaniv_env.yaniv.batched.envs`). Importing it imports Stable-Baselines3 (and torch), so
it lives apart from the Gymnasium vector environment; ``from yaniv_env.yaniv.batched.envs import
YanivVecEnv`` still works (imported from here on first use)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from .envs import GameAccess, LearnerGames, _spaces, game_indices

__all__ = ["YanivVecEnv"]


class YanivVecEnv(GameAccess, VecEnv):
    """A Stable-Baselines3 ``VecEnv`` of :class:`LearnerGames` (see the module docstring of
    :mod:`yaniv_env.yaniv.batched.envs`). ``seed(s)`` (or ``reset()`` after ``seed``) seeds slot
    ``i`` with ``s + i``. ``env_method``, ``get_attr`` and ``set_attr`` honour ``indices``
    as :class:`~yaniv_env.yaniv.batched.envs.GameAccess` says (``env_method("reset",
    indices=[0])`` restarts game 0 only). The actions are checked in :meth:`step_wait`,
    before any game moves."""

    render_mode = None

    def __init__(self, rules="standard", num_envs: int = 16, **kwargs):
        self.games = LearnerGames(rules, num_envs, **kwargs)
        self.rules = self.games.rules
        obs_space, act_space = _spaces(self.games)
        super().__init__(self.games.num_envs, obs_space, act_space)
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
        """Seed the next :meth:`reset`: slot ``i`` gets ``seed + i`` (``ValueError`` for
        anything but an int or ``None``)."""
        if seed is not None and not isinstance(seed, (int, np.integer)) or isinstance(seed, (bool, np.bool_)):
            raise ValueError(f"seed must be an int or None, got {seed!r}")
        self._seeds = self.games._seeds(seed)
        return self._seeds

    def action_masks(self) -> np.ndarray:
        """bool ``[B, A]``: the learners' legal actions."""
        return self.games.action_masks()

    def set_pool(self, policies: Sequence, probability: float, label: str = "pool") -> int:
        """:meth:`LearnerGames.set_pool`: a self-play pool seated from the next episodes on
        (through ``env_method("set_pool", ...)`` too: once for the batch)."""
        return self.games.set_pool(policies, probability, label)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
        # sb3_contrib's get_action_masks stacks what "action_masks" returns: rows of one array
        return self._call_games(method_name, indices, method_args, method_kwargs)

    def get_attr(self, attr_name: str, indices=None) -> list:
        return self._get_games(attr_name, indices)

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        self._set_games(attr_name, value, indices)

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def _get_indices(self, indices):
        return game_indices(indices, self.num_envs).tolist()

    def get_images(self):
        return [None for _ in range(self.num_envs)]

    def close(self) -> None:
        pass
