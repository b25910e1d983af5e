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
reads it from the observations of each call). This module holds the advisor side: the
advisor (:func:`make_advisor`, a batched agent), the advice column (:func:`advise` for a
batch of observations, :func:`advised` for one) and the observation space it makes
(:func:`advised_space`). Every place that advises goes through :func:`advise`: the
training environments' wrapper :class:`training.envs.VecAdvice` (every kind of training
VecEnv), and the advised models' decisions (:meth:`agents.trained.TrainedAgent.logits_batch`,
which its ``act`` runs on a batch of one and :class:`agents.batched.BatchedTrained` on a batch).
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces


def make_advisor(name: str, rules, seed: int | None):
    """The advisor agent ``name`` (a registered agent of ``agents.make``, not a file) for
    ``rules``, as a batched agent (``act_batch``; its decision on a row is the scalar
    agent's); ``ValueError`` if unknown."""
    # the registry itself, not the package that fills it (``agents`` imports this module)
    from yaniv_env.core.policies import batched_policy, make_policy, policy_names

    if not isinstance(name, str) or name not in policy_names():
        raise ValueError(f"advisor {name!r} is not a registered agent; agents: {', '.join(policy_names())}")
    try:
        agent = make_policy(name, seed=seed, rules=rules)
    except (KeyError, ValueError, TypeError) as e:
        raise ValueError(f"advisor {name!r} cannot be made for rules {rules.name!r}: {e}") from None
    return batched_policy(agent)


def advice_column(moves: np.ndarray) -> np.ndarray:
    """The advice column's action ids for the advisor's ``moves [B]``: a move ``-1`` (nothing
    legal: a final observation, where that column is never used to act) is written 0."""
    return np.maximum(moves, 0)


def with_advice(observations: np.ndarray, moves: np.ndarray) -> np.ndarray:
    """``observations [B, S]`` with ``moves [B]`` as one more column (``float32``,
    :func:`advice_column`)."""
    column = advice_column(moves).astype(np.float32)[:, None]
    return np.concatenate([np.asarray(observations, dtype=np.float32), column], axis=1)


def advise(advisor, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """``observations [B, S]`` with the batched ``advisor``'s move for each row (under its
    mask ``[B, A]``) appended: :func:`with_advice`."""
    return with_advice(observations, advisor.act_batch(observations, masks))


def advised(advisor, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """One ``observation`` with the batched ``advisor``'s move appended (:func:`advise` on a
    batch of one)."""
    return advise(advisor, np.asarray(observation)[None], np.asarray(mask)[None])[0]


def advised_space(space: spaces.Box, num_actions: int) -> spaces.Box:
    """The observation space ``space`` with the advice column (an action id) appended."""
    return spaces.Box(
        low=np.append(space.low, 0.0).astype(np.float32),
        high=np.append(space.high, float(num_actions - 1)).astype(np.float32),
        dtype=np.float32,
    )


#: Names this module re-exports from :mod:`agents.networks` (checkpoints pickle the two classes
#: by these names; they need the [train] extra), imported when first asked for: the batched
#: agents import this module, and most of their users (rule-based agents, evaluation workers)
#: never load torch.
_FROM_NETWORKS = ("AdvisedPolicy", "WithoutAdvice", "DEFAULT_ADVICE_SCALE")


def __getattr__(name: str):
    if name in _FROM_NETWORKS:
        from . import networks

        value = getattr(networks, name, None)
        if value is None:
            raise AttributeError(f"agents.advice.{name} needs the [train] extra (torch, sb3-contrib)")
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "advice_column",
    "advise",
    "advised",
    "advised_space",
    "make_advisor",
    "with_advice",
]
