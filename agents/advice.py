"""Advised policies: residual policy learning on top of a baseline agent.

An *advised* model sees, besides the environment's observation, the move an *advisor*
agent (e.g. ``heuristic``) would make in the same position, and its action logits are

.. code-block:: text

    logits(a) = network(observation)[a] + advice_scale · [a == advisor's move]

``advice_scale`` is a trained parameter that starts high (5: with ~10 legal moves the
advised one has ~94% of the probability) and the network's own output layer starts near
zero, so training starts from the advisor's play and learns where to depart from it
(residual policy learning: Silver et al. 2018, "Residual Policy Learning"; Johannink et
al. 2019). The advisor is part of the model: its name is stored in the checkpoint
(``advice``) and :class:`agents.trained.TrainedAgent` asks it at every decision, so an
advised model is a policy of the observation like any other (the advisor only reads the
observation and the mask).

The network never sees the advice as an input: the extra observation column (the
advised action id) is stripped by :class:`agents.networks.WithoutAdvice` before the MLPs
and only enters through the term above (:class:`agents.networks.AdvisedPolicy`, which
reads it from the observations of each call). This module holds the advisor side:
:func:`make_advisor`, :func:`advised` and the environment wrapper :class:`AdviceWrapper`.
"""

from __future__ import annotations

import contextlib

import gymnasium
import numpy as np
from gymnasium import spaces

from .networks import DEFAULT_ADVICE_SCALE  # noqa: F401  (re-exported)


def make_advisor(name: str, rules, seed: int | None):
    """The advisor agent ``name`` (a registered agent of ``agents.make``, not a file) for
    ``rules``; ``ValueError`` if unknown."""
    # the registry itself, not the package that fills it (``agents`` imports this module)
    from yaniv_env.core.policies import make_policy, policy_names

    if not isinstance(name, str) or name not in policy_names():
        raise ValueError(f"advisor {name!r} is not a registered agent; agents: {', '.join(policy_names())}")
    try:
        return make_policy(name, seed=seed, rules=rules)
    except (KeyError, ValueError, TypeError) as e:
        raise ValueError(f"advisor {name!r} cannot be made for rules {rules.name!r}: {e}") from None


def advised(advisor, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``observation`` with the advisor's move appended (0 when nothing is legal, as in a
    final observation: that column is then never used to act)."""
    move = advisor.act(observation, mask) if mask.any() else 0
    return np.append(observation, np.float32(move)).astype(np.float32, copy=False)


class AdviceWrapper(gymnasium.Wrapper):
    """Appends the advisor's move for the learner to every observation of a single-agent
    environment that has ``action_masks()`` (:class:`yaniv_env.yaniv.gym_env.YanivGymEnv` and
    the wrappers of ``training.train``)."""

    def __init__(self, env: gymnasium.Env, advisor: str, seed: int | None = None):
        super().__init__(env)
        self.advisor = make_advisor(advisor, env.unwrapped.rules, seed)
        box = env.observation_space
        n = env.action_space.n
        self.observation_space = spaces.Box(
            low=np.append(box.low, 0.0).astype(np.float32),
            high=np.append(box.high, float(n - 1)).astype(np.float32),
            dtype=np.float32,
        )

    def _advise(self, obs: np.ndarray) -> np.ndarray:
        return advised(self.advisor, obs, np.asarray(self.action_masks()))

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        return self._advise(obs), info

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        return self._advise(obs), reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        return self.env.get_wrapper_attr("action_masks")()


with contextlib.suppress(ImportError):  # checkpoints pickle these classes by these names (the [train] extra)
    from .networks import AdvisedPolicy, WithoutAdvice


__all__ = ["AdviceWrapper", "AdvisedPolicy", "WithoutAdvice", "advised", "make_advisor", "DEFAULT_ADVICE_SCALE"]
