"""Opponents for training: a weighted mix of baselines plus a self-play pool, drawn per episode.

:class:`OpponentSampler` wraps :class:`yaniv_env.yaniv.gym_env.YanivGymEnv` (or the Pis Yedili
wrapper); at every ``reset`` it draws, for each other seat, a baseline (by weight) or,
with probability ``league_prob`` once the pool is not empty, a snapshot from the pool
(uniformly), and seats them through the wrapper's ``set_opponents``. ``info["opponent"]``
names the draw ("greedy", "pool", "random+heuristic" for three players...), so the Monitor
logs can split the learning curve by opponent.

:class:`training.envs.VecOpponentPool` does the same on the batched vector environment
(:class:`yaniv_env.yaniv.batched.sb3.YanivVecEnv`, ``--vec-env batched``): the environment draws
each slot's opponents per episode (:meth:`yaniv_env.yaniv.batched.envs.LearnerGames.set_pool`) and
every pool member acts in batch, one forward pass per member and opponent step. Both draw
with :func:`yaniv_env.core.opponents.draw_opponents` and load the pool's snapshots with
:class:`Snapshots`.

:class:`League` is the pool itself: snapshot paths (relative to the run directory) and the
history of the gate evaluations. A snapshot joins when its mean placement reward against
the pool's members is at least the gate margin (the first one joins unconditionally); the
oldest member leaves when the pool is full.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

import gymnasium
import numpy as np

from yaniv_env.core.opponents import draw_opponents


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


#: Tags of :class:`OpponentSampler`'s seed streams (SeedSequence entropy beside the seed it is
#: given or reset with): each seat's baseline agents, and the draws of each episode's opponents.
SEAT_AGENTS, OPPONENT_DRAWS = 0x5EA7, 7


def seat_agent_seed(seed: int, seat: int, baseline: int) -> int:
    """The seed of baseline ``baseline``'s agent in the ``seat``-th other seat of an
    :class:`OpponentSampler` seeded with ``seed``."""
    return int(np.random.SeedSequence([seed, seat, baseline, SEAT_AGENTS]).generate_state(1)[0])


class OpponentSampler(gymnasium.Wrapper):
    """Draws the opponents of every episode from the baselines and the self-play pool
    (:func:`yaniv_env.core.opponents.draw_opponents`).

    ``baselines`` are ``(agent, weight)`` pairs, an agent being a name for ``agents.make``
    or a policy object. ``pool_rules``: the rules the snapshots were trained for (default:
    the environment's; ``yaniv train`` gives the run's, which have no ``--turn-limit``).
    Episodes that are over before the learner's first decision are dealt again (see
    :meth:`reset`).
    """

    def __init__(
        self,
        env,
        baselines: list[tuple[object, float]],
        seed: int = 0,
        league_prob: float = 0.0,
        pool_deterministic: bool = False,
        torch_threads: int | None = None,
        pool_rules=None,
    ):
        super().__init__(env)
        import agents

        base = env.unwrapped
        self._gym = base
        self.rules = base.rules
        seats = self.rules.num_players - 1
        self.rng = np.random.default_rng(seed)
        self.names = [n if isinstance(n, str) else str(getattr(n, "name", type(n).__name__)) for n, _ in baselines]
        w = np.array([w for _, w in baselines], dtype=float)
        self.weights = w / w.sum()
        # One instance per (baseline, seat), each with its own seeded generator; agent
        # objects (rather than names) are shared by the seats.
        self.baselines = [
            [
                agents.make(n, seed=seat_agent_seed(seed, s, j), rules=self.rules) if isinstance(n, str) else n
                for j, (n, _) in enumerate(baselines)
            ]
            for s in range(seats)
        ]
        self.league_prob = float(league_prob)
        self.snapshots = Snapshots(self.rules if pool_rules is None else pool_rules, pool_deterministic, torch_threads)
        self._label = ""

    @property
    def pool(self) -> list:
        """The pool's members (:class:`agents.trained.TrainedAgent`)."""
        return self.snapshots.members

    def set_pool(self, paths: list[str]) -> int:
        """Replace the pool by these checkpoints (:meth:`Snapshots.load`); returns its size."""
        return len(self.snapshots.load(paths, self.rng))

    def _draw(self) -> tuple[list, str]:
        k = len(self.names)
        members = range(k, k + len(self.pool))  # member m is drawn as k + m
        picks, labels = [], []
        drawn = draw_opponents(self.rng, len(self.baselines), self.weights, members, self.league_prob)
        for seat, c in enumerate(drawn):
            picks.append(self.baselines[seat][c] if c < k else self.pool[c - k])
            labels.append(self.names[c] if c < k else "pool")
        return picks, "+".join(labels)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self.rng = np.random.default_rng([seed, OPPONENT_DRAWS])
        picks, self._label = self._draw()
        # The wrapper seats them from this reset on (and deals again by itself when the
        # opponents end an episode before the learner's first decision).
        self._gym.set_opponents(picks)
        obs, info = self.env.reset(seed=seed, options=options)
        info["opponent"] = self._label
        return obs, info

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        info["opponent"] = self._label
        return obs, reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        return self._gym.action_masks()


class Snapshots:
    """The self-play pool's members, loaded from the snapshots a run wrote, for both kinds
    of training environment (:class:`OpponentSampler`; :class:`training.envs.VecOpponentPool`,
    whose ``member`` is :func:`agents.batched.batched`).

    ``rules``: the rules the run trains for (:func:`training.config.game_rules`, as its
    checkpoints record them: without the environment's ``--turn-limit``); ``deterministic``:
    the members play the arg-max of their logits; ``torch_threads``: their torch threads."""

    def __init__(self, rules, deterministic: bool, torch_threads: int | None, member=None):
        self.rules = rules
        self.deterministic = deterministic
        self.torch_threads = torch_threads
        self.member = member
        self.paths: list[str] = []
        self.members: list = []

    def load(self, paths: list[str], rng: np.random.Generator) -> list:
        """The members of ``paths``, in order: those already loaded kept, the others loaded
        (in the order of ``paths``, each seeded from ``rng``, so that members loaded again
        get the same seeds as before)."""
        loaded = dict(zip(self.paths, self.members, strict=True))
        self.members = [loaded[p] if p in loaded else self._load(p, rng) for p in paths]
        self.paths = list(paths)
        return self.members

    def _load(self, path: str, rng: np.random.Generator):
        from agents.trained import load

        agent = load(
            path,
            seed=int(rng.integers(2**31)),
            rules=self.rules,
            deterministic=self.deterministic,
            torch_threads=self.torch_threads,
            trusted=True,  # snapshots this run wrote
        )
        return agent if self.member is None else self.member(agent)


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
