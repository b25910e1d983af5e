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
advised action id) is stripped by :class:`WithoutAdvice` before the MLPs and only enters
through the term above.
"""

from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium import spaces

#: Default starting weight of the advised move's logit.
DEFAULT_ADVICE_SCALE = 5.0


def make_advisor(name: str, rules, seed: int | None):
    """The advisor agent ``name`` (``agents.make``) for ``rules``; ``ValueError`` if unknown."""
    import agents

    try:
        return agents.make(name, seed=seed, rules=rules)
    except (KeyError, ValueError, TypeError) as e:
        raise ValueError(f"advisor {name!r} cannot be made for rules {rules.name!r}: {e}") from None


def advised(advisor, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``observation`` with the advisor's move appended (0 when nothing is legal, as in a
    final observation: that column is then never used to act)."""
    move = advisor.act(observation, mask) if mask.any() else 0
    return np.append(observation, np.float32(move)).astype(np.float32, copy=False)


class AdviceWrapper(gymnasium.Wrapper):
    """Appends the advisor's move for the learner to every observation of a single-agent
    environment that has ``action_masks()`` (:class:`yaniv_env.gym_env.YanivGymEnv` and
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


try:  # the network classes need the [train] extra
    import torch
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
    from torch import nn

    from .trained import ActionFeaturePolicy
except ImportError:  # pragma: no cover
    ActionFeaturePolicy = None

if ActionFeaturePolicy is not None:

    class WithoutAdvice(BaseFeaturesExtractor):
        """The observation without its last column (the advised action id), which it keeps
        in ``advice`` for the action head: every SB3 path to an action distribution
        (``forward``, ``evaluate_actions``, ``get_distribution``) extracts the features of
        its observations right before it."""

        def __init__(self, observation_space: spaces.Box):
            super().__init__(observation_space, features_dim=int(observation_space.shape[0]) - 1)
            self.advice: torch.Tensor | None = None

        def forward(self, observations: torch.Tensor) -> torch.Tensor:
            self.advice = observations[..., -1].long()
            return observations[..., :-1]

    class AdvisedPolicy(ActionFeaturePolicy):
        """:class:`agents.trained.ActionFeaturePolicy` plus ``advice_scale`` times the
        one-hot of the advised move (the observation's last column) in the logits."""

        def __init__(self, *args, advice_scale: float = DEFAULT_ADVICE_SCALE, **kwargs):
            self.advice_scale_init = float(advice_scale)
            kwargs.setdefault("features_extractor_class", WithoutAdvice)
            super().__init__(*args, **kwargs)

        def _build(self, lr_schedule) -> None:
            # before the optimizer is made, so that the scale is trained too
            self.advice_scale = nn.Parameter(torch.tensor(self.advice_scale_init))
            super()._build(lr_schedule)

        def action_logits(self, latent_pi: torch.Tensor) -> torch.Tensor:
            """Logits of the observations whose actor features were extracted last."""
            advice = self.pi_features_extractor.advice
            if advice is None or advice.shape[0] != latent_pi.shape[0]:
                raise RuntimeError("advised policy: the action head ran without the features of its observations")
            one_hot = nn.functional.one_hot(advice, int(self.action_space.n)).to(latent_pi.dtype)
            return self.action_net(latent_pi) + self.advice_scale * one_hot

        def _get_action_dist_from_latent(self, latent_pi: torch.Tensor):
            return self.action_dist.proba_distribution(action_logits=self.action_logits(latent_pi))

        def _get_constructor_parameters(self) -> dict:
            data = super()._get_constructor_parameters()
            data["advice_scale"] = self.advice_scale_init
            return data


__all__ = ["AdviceWrapper", "AdvisedPolicy", "WithoutAdvice", "advised", "make_advisor", "DEFAULT_ADVICE_SCALE"]
