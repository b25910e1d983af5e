"""Single-agent Gymnasium wrapper: the learner takes one seat, opponents play the others.

.. code-block:: python

    import gymnasium, yaniv_env
    env = gymnasium.make("yaniv_env/Yaniv-v0", rules="standard", num_players=2,
                         opponents=["heuristic"])
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.unwrapped.action_masks().argmax())
    env.unwrapped.set_opponents(["greedy"])   # from the next reset on

Opponents are stepped inside :meth:`step`, so the observation, reward and termination
returned always belong to the learner. ``opponents`` is a list (one entry per other seat,
or one entry reused for all) of agent objects with ``act(observation, action_mask)``,
callables ``f(observation, action_mask) -> int``, or names of the policy registry
(:mod:`yaniv_env.core.policies`: ``agents`` registers ``random``, ``greedy``,
``heuristic``, ``search``, the shipped trained agents ``ppo``, ``ppo_advised`` and
``ppo_scratch``, and model paths); the default is the uniform
random agent. ``set_opponents(opponents)`` seats others from the next reset on, and
``opponents`` reads them. ``opponent_mix=[(opponent, weight), ...]`` draws each episode's
opponents instead, and ``set_pool(policies, probability)`` adds a self-play pool; both as
:class:`yaniv_env.core.gym.CardGameGymEnv` says, the opponents named in ``info["opponent"]``.
``learner_seat`` is a seat number or ``"random"`` (drawn per episode from the environment's
generator).

The wrapper is :class:`yaniv_env.core.gym.CardGameGymEnv` (shared with
:class:`yaniv_env.pis_yedili.gym_env.PisYediliGymEnv`) driving the AEC environment class
:attr:`YanivGymEnv.aec_class`; other keyword arguments are passed to its constructor
(``reveal`` among them). ``render()`` is the AEC environment's: text, frames
(``render_mode="rgb_array"``, for ``gymnasium.wrappers.RecordVideo``) or a window; the
default ``reveal="current"`` shows the learner's hand, since the wrapper returns when the
learner is to act.

The observation is the flat vector of the AEC environment (``yaniv_env.yaniv.observation``);
the legal-action mask is :meth:`action_masks` (for sb3-contrib's MaskablePPO) and
``info["action_mask"]``. The reward is the learner's AEC reward summed over everything
that happened since its previous decision.

An illegal action (only possible without the mask) ends the episode with
``illegal_reward`` (default -1) and ``info["illegal_action"] = True``, as PettingZoo's
``TerminateIllegalWrapper`` does, so that unmasked algorithms and the environment
checkers can run; ``illegal_action="raise"`` raises ``ValueError`` instead.
"""

from __future__ import annotations

from ..core.gym import CardGameGymEnv, OpponentSpec
from .aec import raw_env


class YanivGymEnv(CardGameGymEnv):
    """The single-agent wrapper around the Yaniv AEC environment."""

    aec_class = raw_env
    default_opponent: OpponentSpec = "random"


__all__ = ["OpponentSpec", "YanivGymEnv"]
