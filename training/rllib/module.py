"""The action-masking actor-critic RLModule (RLlib's new API stack) trained by ``yaniv train-rllib``.

Two separate MLPs read the observation vector (``obs["observation"]``): the actor ends in
one logit per action id, the critic in one value. Logits of the actions the mask
(``obs["action_mask"]``) forbids are replaced by the most negative float32 before RLlib
builds its categorical distribution, so exploration, inference and the PPO loss all use
the masked distribution and a forbidden action has probability exactly zero (a finite
floor, not ``-inf``, keeps the entropy of all-masked terminal observations finite).

The parameters are named as in Stable-Baselines3's ``MaskableActorCriticPolicy``
(``mlp_extractor.policy_net.*``, ``mlp_extractor.value_net.*``, ``action_net.*``,
``value_net.*``), with its orthogonal initialisation, so an exported module is an
"MlpPolicy" of the play format (:mod:`training.rllib.export`) and plays as any other
trained agent.

``model_config``: ``net_arch`` (hidden sizes, default ``[256, 256]``) and ``activation``
(``relu`` or ``tanh``).
"""

from __future__ import annotations

import math

import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule
from torch import nn

ACTIVATIONS = {"relu": nn.ReLU, "tanh": nn.Tanh}
#: The logit of a masked action.
MASKED_LOGIT = torch.finfo(torch.float32).min


def mlp(sizes: list[int], activation: str) -> nn.Sequential:
    """``Linear, act, Linear, act, ...`` through ``sizes`` (SB3's ``MlpExtractor`` layout)."""
    layers: list[nn.Module] = []
    for a, b in zip(sizes, sizes[1:], strict=False):
        layers += [nn.Linear(a, b), ACTIVATIONS[activation]()]
    return nn.Sequential(*layers)


def masked_logits(logits: torch.Tensor, action_mask: torch.Tensor) -> torch.Tensor:
    return torch.where(action_mask.bool(), logits, torch.full_like(logits, MASKED_LOGIT))


class MaskedActorCritic(TorchRLModule, ValueFunctionAPI):
    """PPO actor-critic over the AEC ``{"observation", "action_mask"}`` observations."""

    def setup(self) -> None:
        n_obs = int(self.observation_space["observation"].shape[0])
        n_actions = int(self.action_space.n)
        arch = [int(n) for n in self.model_config.get("net_arch", [256, 256])]
        activation = self.model_config.get("activation", "relu")
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {', '.join(ACTIVATIONS)}, got {activation!r}")
        self.mlp_extractor = nn.Module()
        self.mlp_extractor.policy_net = mlp([n_obs, *arch], activation)
        self.mlp_extractor.value_net = mlp([n_obs, *arch], activation)
        last = arch[-1] if arch else n_obs
        self.action_net = nn.Linear(last, n_actions)
        self.value_net = nn.Linear(last, 1)
        for net, gain in (
            (self.mlp_extractor.policy_net, math.sqrt(2)),
            (self.mlp_extractor.value_net, math.sqrt(2)),
            (self.action_net, 0.01),
            (self.value_net, 1.0),
        ):
            for layer in net.modules():
                if isinstance(layer, nn.Linear):
                    nn.init.orthogonal_(layer.weight, gain=gain)
                    layer.bias.data.fill_(0.0)

    def _forward(self, batch: dict, **kwargs) -> dict:
        obs = batch[Columns.OBS]
        logits = self.action_net(self.mlp_extractor.policy_net(obs["observation"]))
        return {Columns.ACTION_DIST_INPUTS: masked_logits(logits, obs["action_mask"])}

    def compute_values(self, batch: dict, embeddings=None) -> torch.Tensor:
        x = batch[Columns.OBS]["observation"]
        return self.value_net(self.mlp_extractor.value_net(x)).squeeze(-1)
