"""The policy registry: opponents by name, below the environments.

A *policy* is anything with ``act(observation, action_mask) -> int`` (optionally
``reset(seed)``). The environments take policy objects; this registry lets them also take
a name (``opponents=["heuristic"]``) without knowing which package provides it.

Packages fill the registry with :func:`register_policy` (a name and a factory
``f(seed=..., rules=..., **options)``, or a ``"module:attr"`` string imported on first
use) and :func:`register_policy_loader` (a file suffix such as ``.zip`` and a loader
``f(path, seed=..., rules=..., **options)``). A package announces itself through the
``yaniv_env.policies`` entry-point group of its distribution (``pyproject.toml``)::

    [project.entry-points."yaniv_env.policies"]
    agents = "agents"

The registry imports the announced modules the first time it is asked for a name it does
not hold (or for the list of names); importing a module is what registers its policies.
So the environments never import the packages that provide policies, and those packages
are imported only when a name is actually used.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import numpy as np

from .imports import needs_extra

#: The entry-point group through which packages announce the modules that register policies.
ENTRY_POINT_GROUP = "yaniv_env.policies"


@runtime_checkable
class Policy(Protocol):
    """An agent: picks a legal action from an observation vector and its action mask.

    ``observation`` is the flat observation vector of the game (from the acting seat);
    ``action_mask`` is the int8 legal-action mask. ``reset(seed)`` reseeds the agent's own
    generator (optional).
    """

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int: ...


PolicyFactory = Callable[..., Policy]

_factories: dict[str, PolicyFactory | str] = {}
_loaders: dict[str, PolicyFactory] = {}
_batcher: list[Callable[..., Any] | str] = []  # at most one: the function that batches policies
_plugins_loaded = False


def register_policy(name: str, factory: PolicyFactory | str) -> None:
    """Make ``name`` build a policy with ``factory(seed=..., rules=..., **options)``
    (or ``"module:attr"``, imported on first use). Registering a name again replaces it."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"a policy name must be a non-empty string, got {name!r}")
    if not (callable(factory) or (isinstance(factory, str) and factory.count(":") == 1)):
        raise TypeError(f"policy {name!r}: the factory must be callable or 'module:attr', got {factory!r}")
    _factories[name] = factory


def register_policy_loader(suffix: str, loader: PolicyFactory) -> None:
    """Make names ending with ``suffix`` (``".zip"``) load a policy from that file with
    ``loader(path, seed=..., rules=..., **options)``."""
    if not suffix.startswith("."):
        raise ValueError(f"a file suffix starts with a dot, got {suffix!r}")
    _loaders[suffix] = loader


def register_batcher(batcher: Callable[..., Any] | str) -> None:
    """Make :func:`batched_policy` use ``batcher(spec, seed=..., rules=..., **options)`` (or
    ``"module:attr"``, imported on first use): a function that returns a policy with
    ``act_batch(observations, masks, keys=None)`` for a name or a policy object."""
    _batcher[:] = [batcher]


def batched_policy(spec: Any, seed: int | None = None, rules: Any = "standard", **options: Any):
    """A policy acting on a batch (``act_batch(observations [B, S], masks [B, A], keys=None)
    -> actions [B]``) for ``spec``, a registered name or a policy object: the core's
    ``"random"`` itself, any other from the batcher a package registered (``agents``
    registers :func:`agents.batched.batched`)."""
    if spec == "random" or type(spec).__name__ == "RandomPolicy":
        # the core's own policy (the environments' default opponent): no package needed
        with needs_extra("the batched random policy"):
            from .batched_random import batched_random

        return batched_random(spec, seed)
    if not _batcher:
        load_plugins()
    if not _batcher:
        raise ValueError("no package registered a batcher of policies (yaniv_env.core.policies.register_batcher)")
    batcher = _batcher[0]
    if isinstance(batcher, str):
        module, attr = batcher.split(":")
        with needs_extra("batched policies"):
            batcher = _batcher[0] = getattr(importlib.import_module(module), attr)
    with needs_extra(f"the batched policy {spec!r}"):
        return batcher(spec, seed=seed, rules=rules, **options)


def load_plugins() -> None:
    """Import the modules announced in the ``yaniv_env.policies`` entry-point group
    (once; later calls do nothing)."""
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    from importlib.metadata import entry_points  # not at import: it costs more than the registry

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        ep.load()


def policy_names() -> list[str]:
    """Every registered name, sorted (after loading the announced packages)."""
    load_plugins()
    return sorted(_factories)


def _factory(name: str) -> PolicyFactory | None:
    if name not in _factories:
        load_plugins()
    factory = _factories.get(name)
    if isinstance(factory, str):
        module, attr = factory.split(":")
        factory = _factories[name] = getattr(importlib.import_module(module), attr)
    return factory


def make_policy(name: str, seed: int | None = None, **options: Any) -> Policy:
    """A new policy by name, with its own generator seeded by ``seed`` (``rules=...`` and
    other options go to the factory). A name ending with a registered file suffix is loaded
    from that file. ``ValueError`` listing the known names for anything else."""
    if not isinstance(name, str):
        raise TypeError(f"a policy name must be a string, got {type(name).__name__}")
    with needs_extra(f"the agent {name!r}"):
        factory = _factory(name)
        if factory is not None:
            return factory(seed=seed, **options)
        for suffix, loader in _loaders.items():
            if name.endswith(suffix):
                return loader(name, seed=seed, **options)
    files = "".join(f" (or a path to a {s} file)" for s in sorted(_loaders))
    known = ", ".join(sorted(_factories)) or "none registered"
    raise ValueError(f"unknown agent {name!r}; agents: {known}{files}")


class CallablePolicy:
    """A function ``f(observation, action_mask) -> int`` as a policy."""

    def __init__(self, fn: Callable[[np.ndarray, np.ndarray], int]):
        self.fn = fn

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return self.fn(observation, action_mask)


def as_policy(spec: str | Policy | Callable, seed: int | None = None, rules: Any = None) -> Policy:
    """A policy from a spec: a name is made with :func:`make_policy` (``seed``, ``rules``),
    an object with ``act`` is kept, a callable is wrapped. ``ValueError`` for anything else."""
    if isinstance(spec, str):
        return make_policy(spec, seed=seed, rules=rules)
    if hasattr(spec, "act"):
        return spec
    if callable(spec):
        return CallablePolicy(spec)
    raise ValueError(f"a policy must be a registered name, an object with act(), or a callable; got {spec!r}")


# The core's own policy: an environment with default arguments needs no other package.
register_policy("random", "yaniv_env.core.random_policy:RandomPolicy")

__all__ = [
    "ENTRY_POINT_GROUP",
    "CallablePolicy",
    "Policy",
    "as_policy",
    "batched_policy",
    "load_plugins",
    "make_policy",
    "policy_names",
    "register_batcher",
    "register_policy",
    "register_policy_loader",
]
