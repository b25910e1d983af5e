"""The entrants of an evaluation: agent specs, their labels, and the agents built from them.

``"heuristic"``...), a path to a trained ``.zip`` model (``agents.load``), or a
``(label, factory)`` pair where ``factory(seed=..., rules=...)`` returns a policy (a factory
may also be a name or a path, to relabel it). With ``workers > 1`` specs are sent to other
processes, so a factory must be picklable (a module-level function or class, no lambda).
Repeated labels get ``#1``, ``#2``... suffixes.
"""

from __future__ import annotations

import ast
import pickle
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import agents
from yaniv_env.yaniv.rules import Rules

EntrantSpec = str | tuple[str, Callable | str]


def split_agents(text: str) -> list[str]:
    """A comma-separated agent list split at the commas outside parentheses:
    ``"heuristic(mu=4, bias=0),random"`` → ``["heuristic(mu=4, bias=0)", "random"]``."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


@dataclass(frozen=True)
class AgentWithOptions:
    """A registered agent made with keyword options (``agents.make(name, **options)``),
    from the text ``NAME(key=value, ...)`` (:meth:`parse`); picklable, so that worker
    processes build it too."""

    name: str
    options: tuple[tuple[str, object], ...]

    @classmethod
    def parse(cls, text: str) -> AgentWithOptions:
        """``NAME(key=value, ...)`` with literal values (numbers, 'strings', True, None),
        read without running anything; ``ValueError`` saying what is wrong otherwise."""
        try:
            node = ast.parse(text.strip(), mode="eval").body
        except SyntaxError:
            node = None
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and not node.args
            and all(k.arg for k in node.keywords)
        ):
            raise ValueError(f"agent {text!r}: expected NAME(key=value, ...), for example heuristic(mu=4, bias=0)")
        try:
            options = tuple((k.arg, ast.literal_eval(k.value)) for k in node.keywords)
        except ValueError:
            raise ValueError(
                f"agent {text!r}: option values must be literals (numbers, 'strings', True, False, None)"
            ) from None
        return cls(node.func.id, options)

    @property
    def label(self) -> str:
        return f"{self.name}({', '.join(f'{k}={v!r}' for k, v in self.options)})"

    def __call__(self, seed: int, rules: Rules):
        import agents

        try:
            return agents.make(self.name, seed=seed, rules=rules, **dict(self.options))
        except TypeError as e:  # an option the agent does not take
            raise ValueError(f"agent {self.label!r}: {e}") from None


def parse_entrants(entrants: Sequence[EntrantSpec]) -> tuple[list[str], list]:
    """Labels and normalised specs (a name/path string, or a factory). A string entrant
    ``NAME(key=value, ...)`` is the agent made with those options
    (:class:`AgentWithOptions`); a string of several is split at its top-level commas."""
    if isinstance(entrants, str):
        entrants = split_agents(entrants)
    labels, specs = [], []
    for e in entrants:
        if isinstance(e, str) and "(" in e:
            spec = AgentWithOptions.parse(e)
            label = spec.label
        elif isinstance(e, str):
            spec = e.strip()
            label = Path(spec).stem if spec.endswith((".safetensors", ".zip")) else spec
        elif isinstance(e, (tuple, list)) and len(e) == 2 and isinstance(e[0], str):
            label, spec = e[0], e[1]
            if not (isinstance(spec, str) or callable(spec)):
                raise ValueError(f"entrant {label!r}: the factory must be callable or an agent name, got {spec!r}")
        else:
            raise ValueError(f"an entrant is an agent name, a model path or a (label, factory) pair, got {e!r}")
        labels.append(label)
        specs.append(spec)
    if not specs:
        raise ValueError("no entrants given")
    counts = {lab: labels.count(lab) for lab in labels}
    seen: dict[str, int] = {}
    for i, lab in enumerate(labels):
        if counts[lab] > 1:
            seen[lab] = seen.get(lab, 0) + 1
            labels[i] = f"{lab}#{seen[lab]}"
    return labels, specs


def load_trusted(path: str, seed: int, rules: Rules):
    """The model at ``path`` as an agent, read even if reading it unpickles (``yaniv eval
    --trust``): for training checkpoints you made yourself."""

    return agents.load(path, seed=seed, rules=rules, trusted=True)


def build_agent(spec, seed: int, rules: Rules):
    if isinstance(spec, str):
        import agents

        try:
            return agents.make(spec, seed=seed, rules=rules)
        except ImportError as e:
            raise ValueError(f"agent {spec!r} could not be loaded: {e}") from None
    return spec(seed=seed, rules=rules)


def check_entrants(labels: list[str], specs: list, rules: Rules, workers: int) -> None:
    """Build every entrant once here, so that an unknown name fails early and clearly."""
    for label, spec in zip(labels, specs, strict=True):
        try:
            policy = build_agent(spec, 0, rules)
        except ValueError as e:
            raise ValueError(f"entrant {label!r}: {e}") from None
        if not callable(getattr(policy, "act", None)):
            raise ValueError(f"entrant {label!r} has no act(observation, action_mask) method")
    if workers > 1:
        try:
            pickle.dumps(specs)
        except Exception as e:
            raise ValueError(
                f"with workers > 1 every entrant must be picklable (a name, a path, or a module-level factory): {e}"
            ) from None
