"""The policy protocol every agent follows (:class:`yaniv_env.core.policies.Policy`), the
uniform random agent (the core's :class:`yaniv_env.core.random_policy.RandomPolicy`), and
the strict mode of the rule-based agents.

Strict mode: a rule-based agent (``heuristic``, ``search``) whose logic picks an illegal
action raises :class:`IllegalChoiceError` naming the agent, the action and the legal ones,
instead of playing a random legal move (with a warning). It is on when the agent is made
with ``strict=True``, or, by default, when the environment variable :data:`STRICT_ENV`
is set to anything but ``""``/``"0"`` (the test suite sets it, so that worker processes
inherit it too).
"""

from __future__ import annotations

import os
import warnings

import numpy as np

from yaniv_env.core.policies import Policy
from yaniv_env.core.random_policy import RandomPolicy as RandomAgent

__all__ = ["IllegalChoiceError", "Policy", "RandomAgent", "checked_choice", "strict_default"]


STRICT_ENV = "YANIV_STRICT_AGENTS"


class IllegalChoiceError(RuntimeError):
    """An agent's logic chose an action its mask does not allow (a bug in the agent)."""


def strict_default(strict: bool | None) -> bool:
    """``strict`` if given, else whether :data:`STRICT_ENV` asks for strict agents."""
    return os.environ.get(STRICT_ENV, "") not in ("", "0") if strict is None else bool(strict)


def checked_choice(agent: str, action: int, legal: list[int], rng: np.random.Generator, strict: bool) -> int:
    """``action`` if it is in ``legal``. Otherwise (a bug: the agents choose among legal
    moves by construction) raise :class:`IllegalChoiceError` when ``strict``, else warn
    and play a random legal action, so that a long evaluation is not lost to one slip."""
    if action in legal:
        return int(action)
    message = f"agent {agent!r} chose action {action}, which is not legal here; legal actions: {legal}"
    if strict:
        raise IllegalChoiceError(message)
    warnings.warn(message + "; playing a random legal action instead", RuntimeWarning, stacklevel=3)
    return int(legal[int(rng.integers(len(legal)))])
