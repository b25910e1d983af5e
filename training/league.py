"""Opponents for training: a weighted mix of baselines plus a self-play pool, drawn per episode.

The training environments draw each episode's opponents themselves, for every kind
(``--vec-env``), and the lean learner's games against opponents: from their ``opponent_mix``
and from a self-play pool (MaskablePPO's ``--league``, the lean learner's ``past``) they are
handed with ``set_pool`` (:meth:`yaniv_env.core.gym.CardGameGymEnv.set_pool`,
:meth:`yaniv_env.yaniv.batched.envs.LearnerGames.set_pool`, both drawing with
:func:`yaniv_env.core.opponents.draw_opponents`). ``info["opponent"]`` names the draw
("greedy", "pool", "random+heuristic" for three players...), so the Monitor logs can split
the learning curve by opponent.

:class:`SelfPlayPool` holds the members of a self-play pool, for both learners: past
versions of the learner's network as agents (:class:`agents.trained.TrainedAgent`, sampling
or arg-max), added from the network's weights (the lean learner's past selves,
:mod:`training.ppo`) or loaded from snapshot files (:class:`training.envs.VecOpponentPool`,
which hands them to the environments); :func:`as_agent` makes a network an agent.

:class:`League` is MaskablePPO's league: snapshot paths (relative to the run directory) and the
history of the gate evaluations. A snapshot joins when its mean placement reward against
the pool's members is at least the gate margin (the first one joins unconditionally); the
oldest member leaves when the pool is full.
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np


def parse_mix(spec: str) -> list[tuple[str, float]]:
    """``"random:1,greedy:2,heuristic"`` -> ``[("random", 1.0), ("greedy", 2.0), ("heuristic", 1.0)]``."""
    out: list[tuple[str, float]] = []
    for part in spec.split(","):
        part = part.strip()
        if not part:
            continue
        name, _, weight = part.partition(":")
        try:
            w = float(weight) if weight else 1.0
        except ValueError:
            raise ValueError(f"bad weight in opponent mix entry {part!r} (expected name or name:weight)") from None
        if w < 0:
            raise ValueError(f"negative weight in opponent mix entry {part!r}")
        out.append((name.strip(), w))
    if not out or sum(w for _, w in out) <= 0:
        raise ValueError(f"the opponent mix {spec!r} names no opponent with a positive weight")
    return out


def format_mix(mix: list[tuple[str, float]]) -> str:
    return ",".join(f"{n}:{w:g}" for n, w in mix)


def agent_available(name: str, rules) -> str | None:
    """``None`` when ``agents.make(name)`` works under ``rules``, else the reason it does not."""
    import agents

    try:
        agents.make(name, seed=0, rules=rules)
    except (ImportError, AttributeError, ValueError) as e:
        return f"{type(e).__name__}: {e}"
    return None


def as_agent(
    policy, rules, advice: str | None = None, seed: int | None = None, name: str = "learner", deterministic: bool = True
):
    """The network ``policy`` as an :class:`agents.trained.TrainedAgent` (advised by the agent
    ``advice``), as :func:`agents.load` makes the play file :func:`training.ppo.save_play_file`
    writes: the arg-max of its masked logits, or (not ``deterministic``) a sample of them; it
    shares ``policy``, so it plays the network as it is."""
    from agents.networks import describe_policy
    from agents.play_format import play_metadata
    from agents.trained import TrainedAgent

    meta = play_metadata(rules, describe_policy(policy), advice=advice or None, timesteps=0, training=None)
    return TrainedAgent(policy, meta, rules, seed=seed, deterministic=deterministic, name=name)


class SelfPlayPool:
    """A self-play pool's members: past versions of the learner's network, each an
    :class:`agents.trained.TrainedAgent` (what :func:`agents.trained.load` makes of a
    snapshot) seeded from the pool's generator as it joins, for both learners. The lean
    learner's past selves (:mod:`training.ppo`) join from the network's weights (:meth:`add`,
    the last ``size`` kept); MaskablePPO's league (:class:`training.envs.VecOpponentPool`)
    loads the snapshot files :class:`League` lists (:meth:`load`). Either way the training
    environments get :attr:`members` with their ``set_pool`` and draw one per episode and
    seat; a member acts in one forward pass over all the games where it sits.

    ``rules``: the rules the learner trains for (:func:`training.config.game_rules`, as its
    checkpoints record them: without the environment's ``--turn-limit``); ``size``: the most
    members kept (``None``: no limit); ``seed``: the generator the members' seeds are drawn
    from; ``deterministic``: the members play the arg-max of their logits (else they sample
    them); ``advice``: the advisor an added member asks (an advised learner's past selves
    take the same advice; a loaded snapshot's file names its own); ``torch_threads``: the
    torch threads set when a snapshot is loaded."""

    def __init__(
        self,
        rules,
        size: int | None = None,
        seed: int | None = 0,
        deterministic: bool = False,
        advice: str | None = None,
        torch_threads: int | None = None,
    ):
        self.rules = rules
        self.size = size
        self.rng = np.random.default_rng(seed)
        self.deterministic = deterministic
        self.advice = advice
        self.torch_threads = torch_threads
        self.paths: list[str | None] = []  # each member's snapshot (None: added from weights)
        self.members: list = []

    def _seed(self) -> int:
        return int(self.rng.integers(2**31))

    def _keep(self, paths: list, members: list) -> None:
        start = 0 if self.size is None else max(len(members) - self.size, 0)
        self.paths, self.members = paths[start:], members[start:]

    def add(self, policy, weights: dict | None = None) -> None:
        """A frozen copy of ``policy`` (with ``weights`` when given) joins the pool as a member
        (the oldest leaves when the pool is full)."""
        member = copy.deepcopy(policy)
        if weights is not None:
            member.load_state_dict(weights)
        agent = as_agent(member, self.rules, self.advice, self._seed(), "past", self.deterministic)
        self._keep([*self.paths, None], [*self.members, agent])

    def load(self, paths: list[str]) -> list:
        """The members of the snapshots ``paths``, in order, as the pool: those already loaded
        kept, the others loaded (in the order of ``paths``, each seeded from the pool's
        generator, so that members loaded again get the same seeds as before)."""
        loaded = {p: m for p, m in zip(self.paths, self.members, strict=True) if p is not None}
        self._keep(list(paths), [loaded[p] if p in loaded else self._load(p) for p in paths])
        return self.members

    def _load(self, path: str):
        from agents.trained import load

        return load(
            path,
            seed=self._seed(),
            rules=self.rules,
            deterministic=self.deterministic,
            torch_threads=self.torch_threads,
            trusted=True,  # snapshots this run wrote
        )

    def weights(self) -> list[dict]:
        """The members' network weights, oldest first (the lean learner's checkpoint keeps them)."""
        return [member.policy.state_dict() for member in self.members]


@dataclass
class League:
    """The self-play pool: snapshot paths relative to the run directory, and gate history."""

    pool: list[str] = field(default_factory=list)
    history: list[dict] = field(default_factory=list)
    size: int = 8

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict | None, size: int = 8) -> League:
        d = d or {}
        return cls(pool=list(d.get("pool", [])), history=list(d.get("history", [])), size=int(d.get("size", size)))

    def paths(self, run_dir: Path) -> list[str]:
        return [str(Path(run_dir) / p) for p in self.pool]

    def admit(self, rel_path: str) -> list[str]:
        """Add a snapshot; returns the members that left (oldest first) to keep ``size``."""
        self.pool.append(rel_path)
        gone = []
        while len(self.pool) > self.size:
            gone.append(self.pool.pop(0))
        return gone
