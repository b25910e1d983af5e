"""Single-agent Gymnasium wrapper for Pis Yedili: the learner takes one seat, opponents the others.

.. code-block:: python

    import gymnasium, yaniv_env
    env = gymnasium.make("yaniv_env/PisYedili-v0", num_players=3, opponents=["pis_heuristic"])
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.unwrapped.action_masks().argmax())

It is the wrapper both games share (:class:`yaniv_env.core.gym.CardGameGymEnv`: same
behaviour and arguments as Yaniv's, the AEC environment's ``reveal`` for rendering included)
around :class:`yaniv_env.pis_yedili.aec.raw_env`. Opponents are stepped inside
:meth:`step`, so the observation, reward and termination returned belong to the learner.
``opponents`` is a list (one entry per other seat, or one entry reused for all) of agent
objects with ``act(observation, action_mask)``, callables
``f(observation, action_mask) -> int``, or names of the policy registry
(:mod:`yaniv_env.core.policies`: ``"pis_heuristic"``, ``"pis_random"``; ``"random"`` is
the same agent); the default is the uniform random agent. ``set_opponents(opponents)``
seats others from the next reset on; ``opponent_mix=[(opponent, weight), ...]`` draws each
episode's opponents instead and ``set_pool(policies, probability)`` adds a self-play pool,
as in Yaniv's.
``learner_seat`` is a seat number or ``"random"`` (drawn per episode from the environment's
generator).

The observation is the flat vector of the AEC environment
(:mod:`yaniv_env.pis_yedili.observation`); the legal-action mask is :meth:`action_masks`
(for sb3-contrib's MaskablePPO) and ``info["action_mask"]``. The reward is the learner's
AEC reward summed over everything that happened since its previous decision.

An illegal action (only possible without the mask) ends the episode with
``illegal_reward`` (default -1) and ``info["illegal_action"] = True``;
``illegal_action="raise"`` raises ``ValueError`` instead.
"""

from __future__ import annotations

from ..core.gym import CardGameGymEnv
from .aec import raw_env


class PisYediliGymEnv(CardGameGymEnv):
    """The single-agent wrapper around the Pis Yedili AEC environment."""

    aec_class = raw_env
    default_opponent = "random"


__all__ = ["PisYediliGymEnv"]
